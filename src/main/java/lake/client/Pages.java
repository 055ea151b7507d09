package lake.client;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.streams.ReadStream;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A paged listing walked one page at a time: {@link #next()} fetches the following page with the
 * previous page's continuation. Not thread-safe: call {@link #next()} again only after the previous
 * page arrived. {@link #stream()} turns the walk into a Vert.x {@link ReadStream} of pages that
 * fetches only while there is demand (back-pressure).
 *
 * @param <P> the page type
 */
public final class Pages<P> {
    private final Function<String, Future<P>> fetch;
    private final Function<P, String> continuation;
    private String next;
    private boolean done;

    Pages(Function<String, Future<P>> fetch, Function<P, String> continuation) {
        this.fetch = fetch;
        this.continuation = continuation;
    }

    /** Whether another page may follow (true before the first page). */
    public boolean hasNext() { return !done; }

    /** The next page; fails with {@link IllegalStateException} after the last. */
    public Future<P> next() {
        if (done) return Future.failedFuture(new IllegalStateException("no page follows the last one"));
        return fetch.apply(next).map(p -> {
            next = continuation.apply(p);
            done = next == null;
            return p;
        });
    }

    /** Every remaining page, in order, mapped by {@code items} and concatenated. */
    public <T> Future<List<T>> collect(Function<P, List<T>> items) {
        List<T> out = new ArrayList<>();
        Promise<List<T>> all = Promise.promise();
        drain(items, out, all);
        return all.future();
    }

    /**
     * Loops while pages arrive at once (a blocking transport completes them on the caller's
     * thread) and continues from the callback when one arrives later, so the stack stays flat
     * however many pages there are.
     */
    private <T> void drain(Function<P, List<T>> items, List<T> out, Promise<List<T>> all) {
        while (hasNext()) {
            Future<P> page = next();
            if (!page.isComplete()) {
                page.onComplete(ar -> {
                    if (ar.failed()) {
                        all.fail(ar.cause());
                        return;
                    }
                    out.addAll(items.apply(ar.result()));
                    drain(items, out, all);
                });
                return;
            }
            if (page.failed()) {
                all.fail(page.cause());
                return;
            }
            out.addAll(items.apply(page.result()));
        }
        all.complete(out);
    }

    /** The remaining pages as a stream: each handled page, then the end, or one exception. */
    public ReadStream<P> stream() {
        return new PageStream();
    }

    private final class PageStream implements ReadStream<P> {
        private Handler<P> handler;
        private Handler<Throwable> exceptionHandler;
        private Handler<Void> endHandler;
        private long demand = Long.MAX_VALUE;
        private boolean fetching;
        private boolean ended;

        @Override public synchronized ReadStream<P> exceptionHandler(Handler<Throwable> h) { exceptionHandler = h; return this; }
        @Override public synchronized ReadStream<P> endHandler(Handler<Void> h) { endHandler = h; return this; }

        @Override public ReadStream<P> handler(Handler<P> h) {
            synchronized (this) { handler = h; }
            pump();
            return this;
        }

        @Override public synchronized ReadStream<P> pause() { demand = 0; return this; }

        @Override public ReadStream<P> resume() { return fetch(Long.MAX_VALUE); }

        @Override public ReadStream<P> fetch(long amount) {
            synchronized (this) { demand = Long.MAX_VALUE - demand < amount ? Long.MAX_VALUE : demand + amount; }
            pump();
            return this;
        }

        /**
         * Fetches one page at a time while a handler is set, there is demand and pages remain. A
         * page that arrived at once is handled in this loop, not by a nested call, so the stack
         * stays flat on a blocking transport.
         */
        private void pump() {
            while (true) {
                synchronized (this) {
                    if (fetching || ended || handler == null || demand == 0) return;
                    if (!hasNext()) {
                        ended = true;
                    } else {
                        fetching = true;
                    }
                }
                if (ended) {
                    Handler<Void> end = endHandler;
                    if (end != null) end.handle(null);
                    return;
                }
                Future<P> page = next();
                if (!page.isComplete()) {
                    page.onComplete(ar -> {
                        if (deliver(ar)) pump();
                    });
                    return;
                }
                if (!deliver(page)) return;
            }
        }

        /** Hands one fetched page (or its failure) on; false when the stream ended with it. */
        private boolean deliver(io.vertx.core.AsyncResult<P> ar) {
            Handler<P> h;
            synchronized (this) {
                fetching = false;
                if (demand != Long.MAX_VALUE) demand--;
                h = handler;
            }
            if (ar.failed()) {
                synchronized (this) { ended = true; }
                Handler<Throwable> eh = exceptionHandler;
                if (eh != null) eh.handle(ar.cause());
                return false;
            }
            if (h != null) h.handle(ar.result());
            return true;
        }
    }
}
