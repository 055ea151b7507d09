package lake.client;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import lake.client.model.MetasrvException;
import lake.wire.WatchEvent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A running watch of one prefix: long polls the change feed, each request resuming after the last
 * record read (its {@link #cursor()}), so reconnects and failovers lose and repeat nothing. A
 * request that fails for a reason that may pass (no node reachable, no leader, a node still
 * learning the feed) is tried again, backing off to five seconds; a refusal that will not pass
 * ({@code 410 compacted}, access, input) or a listener that throws ends it.
 */
public final class Watcher {
    /** Hears each change once, in revision order. */
    @FunctionalInterface
    public interface Listener {
        void onEvent(WatchEvent event);
    }

    /** How long each request waits for a change. */
    static final long WAIT_MS = 25_000;
    static final int PAGE = 500;
    static final long MAX_BACKOFF_MS = 5_000;

    /** One page after a revision: a watch of a prefix, or of the catalog's events. */
    @FunctionalInterface
    interface Source {
        Future<WatchEvent.Page> after(long revision);
    }

    private final Source source;
    private final Listener listener;
    private final Promise<Void> ended = Promise.promise();
    private volatile long cursor;
    private volatile boolean cancelled;
    private int failures;

    private Watcher(Source source, long after, Listener listener) {
        this.source = source;
        this.cursor = after;
        this.listener = listener;
    }

    /**
     * Where each request is sent from: a blocking client's long poll holds its thread for the
     * whole wait, so never the caller's nor an event loop (daemon threads, made as needed).
     */
    private static final java.util.concurrent.Executor SENDER = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "lake-client-watch");
        t.setDaemon(true);
        return t;
    });

    static Watcher start(MetasrvClient client, String prefix, long after, Listener listener) {
        String p = prefix == null ? "" : prefix;
        return start(revision -> client.watchPage(p, revision, PAGE, WAIT_MS), after, listener);
    }

    static Watcher catalog(MetasrvClient client, long after, Listener listener) {
        return start(revision -> client.catalogEventsPage(revision, PAGE, WAIT_MS), after, listener);
    }

    private static Watcher start(Source source, long after, Listener listener) {
        Watcher w = new Watcher(source, after, listener);
        SENDER.execute(w::next);
        return w;
    }

    /** The revision the next request resumes after: the last record read (shown or filtered out). */
    public long cursor() {
        return cursor;
    }

    /** Stops after the request in flight; {@link #ended()} completes. */
    public void cancel() {
        cancelled = true;
    }

    /** Completes when cancelled; fails with what ended the watch otherwise. */
    public Future<Void> ended() {
        return ended.future();
    }

    private void next() {
        if (cancelled) {
            ended.tryComplete();
            return;
        }
        Future<WatchEvent.Page> page;
        try {
            page = source.after(cursor);
        } catch (RuntimeException e) {
            page = Future.failedFuture(e);
        }
        // The listener runs on a watch thread, never on the client's event loop (it may block, or call the client).
        page.onComplete(ar -> SENDER.execute(() -> took(ar)));
    }

    private void took(io.vertx.core.AsyncResult<WatchEvent.Page> ar) {
        if (ar.failed()) {
            failed(ar.cause());
            return;
        }
        failures = 0;
        for (WatchEvent e : ar.result().events()) {
            if (cancelled) break;
            try {
                listener.onEvent(e);
            } catch (RuntimeException thrown) {
                ended.tryFail(thrown);
                return;
            }
            cursor = e.revision();
        }
        if (!cancelled) cursor = ar.result().cursor();
        next();
    }

    private void failed(Throwable t) {
        boolean passes = t instanceof MetasrvException m && (m.retryable() || m instanceof MetasrvException.Unreachable
                || m instanceof MetasrvException.OutcomeUnknown);
        if (!passes || cancelled) {
            if (cancelled) ended.tryComplete();
            else ended.tryFail(t);
            return;
        }
        failures++;
        long delay = Math.min(MAX_BACKOFF_MS, 100L << Math.min(failures, 6));
        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS, SENDER).execute(this::next);
    }
}
