package lake.server;

import io.vertx.core.Future;
import lake.meta.GuardedMutation;
import lake.meta.MetaStore;
import lake.meta.ScanPage;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** Test decorator: passes every call to a real store and records the guarded mutations it saw. */
final class RecordingStore implements MetaStore {
    private final MetaStore real;
    final List<GuardedMutation> guarded = new CopyOnWriteArrayList<>();
    /** Guarded mutations the store answered {@code false}. */
    final java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();

    RecordingStore(MetaStore real) {
        this.real = real;
    }

    private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

    /** Every call of any kind that reached the real store so far. */
    int calls() { return calls.get(); }

    @Override public Future<Optional<byte[]>> get(String key) { calls.incrementAndGet(); return real.get(key); }
    @Override public Future<Boolean> cas(String key, byte[] expected, byte[] value) { calls.incrementAndGet(); return real.cas(key, expected, value); }
    @Override public Future<Boolean> delete(String key, byte[] expected) { calls.incrementAndGet(); return real.delete(key, expected); }
    @Override public Future<ScanPage> scanPrefix(String prefix, String c, int limit) { calls.incrementAndGet(); return real.scanPrefix(prefix, c, limit); }
    @Override public Future<Void> close() { return real.close(); }

    @Override
    public Future<Boolean> guardedMutate(GuardedMutation mutation) {
        calls.incrementAndGet();
        if (mutation != null) guarded.add(mutation);
        return real.guardedMutate(mutation).onSuccess(applied -> {
            if (!applied) refused.incrementAndGet();
        });
    }
}
