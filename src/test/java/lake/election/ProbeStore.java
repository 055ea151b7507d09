package lake.election;

import io.vertx.core.Future;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A decorator over a real store for tests: it counts compare-and-sets the store refused (lost
 * races), and can fail reads or compare-and-sets with a retryable backend fault, as real DynamoDB
 * does under throttling or transaction conflicts.
 */
final class ProbeStore implements MetaStore {
    private final MetaStore delegate;
    private final AtomicInteger refusedCas = new AtomicInteger();
    private volatile boolean failGets;
    private volatile boolean failCas;

    ProbeStore(MetaStore delegate) {
        this.delegate = delegate;
    }

    ProbeStore failGets() {
        failGets = true;
        return this;
    }

    ProbeStore failCas() {
        failCas = true;
        return this;
    }

    /** How many compare-and-sets completed {@code false} so far. */
    int refusedCas() {
        return refusedCas.get();
    }

    private static <T> Future<T> fault() {
        return Future.failedFuture(new MetaException.RetryableBackend("injected throttling", null));
    }

    @Override
    public Future<Optional<byte[]>> get(String key) {
        return failGets ? fault() : delegate.get(key);
    }

    @Override
    public Future<Boolean> cas(String key, byte[] expected, byte[] value) {
        if (failCas) return fault();
        return delegate.cas(key, expected, value).onSuccess(won -> {
            if (!won) refusedCas.incrementAndGet();
        });
    }

    @Override
    public Future<Boolean> delete(String key, byte[] expected) {
        return delegate.delete(key, expected);
    }

    @Override
    public Future<ScanPage> scanPrefix(String prefix, String continuation, int limit) {
        return delegate.scanPrefix(prefix, continuation, limit);
    }

    @Override
    public Future<java.util.Optional<String>> lastKey(String prefix) {
        return delegate.lastKey(prefix);
    }

    /** The decorated store is owned and closed by the test, not by this view of it. */
    @Override
    public Future<Void> close() {
        return Future.succeededFuture();
    }
}
