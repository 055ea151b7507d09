package lake.meta;

import io.vertx.core.Vertx;

import java.util.TreeMap;

import static lake.meta.StoreCalls.await;

/**
 * What a store-level contract reads through: the fresh store of the current test, the Vert.x it
 * runs on, and what that store holds now. Implemented by a {@link StoreFixture}.
 */
public interface StoreUnderTest {

    /** The guard key of guarded writes: a lease-like key that a guarded write only compares. */
    String GUARD = "election/leader";

    MetaStore store();

    Vertx vertx();

    /** The value at {@code key}, or {@code null} when absent. */
    default byte[] value(String key) throws Exception {
        return await(store().get(key)).orElse(null);
    }

    /** Every entry in the store, by key. */
    default TreeMap<String, byte[]> all() throws Exception {
        TreeMap<String, byte[]> out = new TreeMap<>(Keys.UTF8_ORDER);
        String continuation = null;
        do {
            ScanPage page = await(store().scanPrefix("", continuation, 1000));
            for (KeyValue kv : page.entries()) out.put(kv.key(), kv.value());
            continuation = page.continuation();
        } while (continuation != null);
        return out;
    }
}
