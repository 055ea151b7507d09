package lake.meta;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh, empty store for every test, on a Vert.x of its own: the subclass opens it for its
 * backend; both are closed after the test, Vert.x even when the store's close fails. The base of
 * every contract that runs unchanged against each backend (store, transactions, election,
 * catalog).
 */
public abstract class StoreFixture {
    protected Vertx vertx;
    protected MetaStore store;

    /** Opens a fresh, empty store for one test. */
    protected abstract MetaStore openStore(Vertx vertx) throws Exception;

    /** This test's store, for contracts written as interfaces ({@link StoreUnderTest}). */
    public MetaStore store() {
        return store;
    }

    /** The Vert.x this test's store runs on. */
    public Vertx vertx() {
        return vertx;
    }

    @BeforeEach
    void openFreshStore() throws Exception {
        vertx = Vertx.vertx();
        store = openStore(vertx);
    }

    @AfterEach
    void closeStore() throws Exception {
        try {
            if (store != null) StoreCalls.await(store.close());
        } finally {
            StoreCalls.await(vertx.close());
        }
    }
}
