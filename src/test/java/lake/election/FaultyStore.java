package lake.election;

import io.vertx.core.Future;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;

import java.util.Optional;

/**
 * A decorator over a real store that fails reads or compare-and-sets with a retryable backend
 * fault, as real DynamoDB does under throttling or transaction conflicts.
 */
final class FaultyStore implements MetaStore {
    private final MetaStore delegate;
    private final boolean failGets;
    private final boolean failCas;

    FaultyStore(MetaStore delegate, boolean failGets, boolean failCas) {
        this.delegate = delegate;
        this.failGets = failGets;
        this.failCas = failCas;
    }

    static MetaException fault() {
        return new MetaException.RetryableBackend("injected throttling", null);
    }

    @Override
    public Future<Optional<byte[]>> get(String key) {
        return failGets ? Future.failedFuture(fault()) : delegate.get(key);
    }

    @Override
    public Future<Boolean> cas(String key, byte[] expected, byte[] value) {
        return failCas ? Future.failedFuture(fault()) : delegate.cas(key, expected, value);
    }

    @Override
    public Future<Boolean> delete(String key, byte[] expected) {
        return delegate.delete(key, expected);
    }

    @Override
    public Future<ScanPage> scanPrefix(String prefix, String continuation, int limit) {
        return delegate.scanPrefix(prefix, continuation, limit);
    }

    /** The decorated store is owned and closed by the test, not by this view of it. */
    @Override
    public Future<Void> close() {
        return Future.succeededFuture();
    }
}
