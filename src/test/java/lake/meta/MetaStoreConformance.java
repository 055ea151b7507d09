package lake.meta;

import io.vertx.core.Future;

/**
 * Everything every {@link MetaStore} backend meets, run unchanged against each: the store contract
 * ({@link MetaStoreContract}) and the transaction contract ({@link TransactionContract}). A
 * backend test extends this class and opens a fresh, empty store for every test.
 */
public abstract class MetaStoreConformance extends StoreFixture implements MetaStoreContract, TransactionContract {

    /** For a backend's {@link #openStore}: as {@link StoreCalls#await(Future)}. */
    protected static <T> T await(Future<T> future) throws Exception {
        return StoreCalls.await(future);
    }
}
