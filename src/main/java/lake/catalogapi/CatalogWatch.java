package lake.catalogapi;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import lake.bus.Bus;
import lake.meta.MetaStore;
import lake.protocol.ApiError;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The long polls of one {@code NodeApi}, confined to its event loop: each waits until a store
 * key's value changes from what its client knew, or until its deadline. A waiting request holds
 * no thread, only a promise and a timer.
 *
 * <p>How a change is seen, on any node: the leader publishes {@link Bus#CATALOG_CHANGED} after
 * every acknowledged catalog write, which wakes the watch at once; and while anyone waits, the
 * watch reads each watched key every {@link #POLL_MS} ms, so a lost publication costs at most
 * that. Reads are per distinct key, not per waiter: a thousand clients waiting on the catalog
 * generation cost one read per tick.
 *
 * <p>The number of waiting requests is bounded per node ({@code waiting}, shared by every
 * instance); past the bound a request is refused with {@code 503}, never queued.
 */
public final class CatalogWatch {
    static final long POLL_MS = 100;

    private final Vertx vertx;
    private final MetaStore store;
    private final AtomicInteger waiting;
    private final int maxWaiting;
    private final Map<String, List<Waiter>> byKey = new HashMap<>();
    private MessageConsumer<Object> changes;
    private long ticker = -1;
    private boolean reading;
    /** A change was announced while a tick was reading: read again as soon as it ends. */
    private boolean again;

    private record Waiter(Predicate<Optional<byte[]>> changed, Promise<Boolean> promise, long timer) {}

    public CatalogWatch(Vertx vertx, MetaStore store, AtomicInteger waiting, int maxWaiting) {
        this.vertx = vertx;
        this.store = store;
        this.waiting = waiting;
        this.maxWaiting = maxWaiting;
    }

    public Future<Void> start() {
        changes = vertx.eventBus().consumer(Bus.CATALOG_CHANGED, m -> tick());
        return changes.completion();
    }

    public Future<Void> stop() {
        vertx.cancelTimer(ticker);
        for (List<Waiter> ws : byKey.values()) {
            for (Waiter w : ws) finish(w, false);
        }
        byKey.clear();
        return changes == null ? Future.succeededFuture() : changes.unregister();
    }

    /**
     * Completes {@code true} once {@code key}'s value makes {@code changed} true, or {@code false}
     * after {@code waitMs} or as soon as {@code abandoned} completes (the client went away: its slot
     * is given back at once, not at the deadline). The caller reads the key first and waits only
     * when nothing changed.
     */
    Future<Boolean> await(String key, Predicate<Optional<byte[]>> changed, long waitMs, Future<?> abandoned) {
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            return Future.failedFuture(new ApiError(503, "too_many_waiters", "this node already holds " + maxWaiting
                    + " waiting requests; retry, or ask without wait_ms", 1));
        }
        Promise<Boolean> promise = Promise.promise();
        Waiter w = new Waiter(changed, promise, vertx.setTimer(Math.max(1, waitMs), id -> expire(key, promise)));
        byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(w);
        if (ticker < 0) ticker = vertx.setPeriodic(POLL_MS, id -> tick());
        abandoned.onComplete(gone -> expire(key, promise));
        return promise.future();
    }

    private void expire(String key, Promise<Boolean> promise) {
        List<Waiter> ws = byKey.get(key);
        if (ws == null) return;
        for (Iterator<Waiter> it = ws.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.promise() == promise) {
                it.remove();
                finish(w, false);
            }
        }
        forgetIfEmpty(key);
    }

    /** One read per watched key; completes every waiter whose key changed. */
    private void tick() {
        if (byKey.isEmpty()) return;
        if (reading) {
            again = true;
            return;
        }
        reading = true;
        again = false;
        List<Future<?>> reads = new ArrayList<>();
        for (String key : List.copyOf(byKey.keySet())) {
            reads.add(store.get(key).onSuccess(value -> {
                List<Waiter> ws = byKey.get(key);
                if (ws == null) return;
                for (Iterator<Waiter> it = ws.iterator(); it.hasNext(); ) {
                    Waiter w = it.next();
                    if (w.changed().test(value)) {
                        it.remove();
                        finish(w, true);
                    }
                }
                forgetIfEmpty(key);
            }));
        }
        // A failed read leaves its waiters waiting: the next tick reads again, the deadline still holds.
        Future.join(reads).onComplete(ar -> {
            reading = false;
            if (again) tick();
        });
    }

    private void forgetIfEmpty(String key) {
        List<Waiter> ws = byKey.get(key);
        if (ws != null && ws.isEmpty()) byKey.remove(key);
        if (byKey.isEmpty() && ticker >= 0) {
            vertx.cancelTimer(ticker);
            ticker = -1;
        }
    }

    private void finish(Waiter w, boolean changed) {
        vertx.cancelTimer(w.timer());
        // The slot is given back before the answer goes out: whoever sees the answer sees the count without it.
        if (w.promise().future().isComplete()) return;
        waiting.decrementAndGet();
        w.promise().complete(changed);
    }
}
