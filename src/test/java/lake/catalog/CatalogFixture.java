package lake.catalog;

import io.vertx.core.Future;
import lake.catalog.model.CatalogException;
import lake.catalog.model.CatalogKeys;
import lake.catalog.model.Namespace;
import lake.catalog.model.Table;
import lake.meta.StoreCalls;
import lake.meta.StoreFixture;
import org.junit.jupiter.api.BeforeEach;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fresh, empty store per test (opened by the backend's subclass), a lease-like guard written
 * once, a {@link RecordingPort} over it and a {@link Catalog} over that port; plus helpers.
 */
abstract class CatalogFixture extends StoreFixture {
    static final String GUARD = "election/leader";
    static final byte[] LEASE = b("{\"holder\":\"node-a\",\"epoch\":1}");
    static final String ROOT = "s3://lake-data/catalog";
    static final List<String> COLUMNS = List.of("id:i64", "score:f64", "label:utf8", "ok:bool", "blob:file");

    protected RecordingPort port;
    protected Catalog catalog;

    /** Runs after {@link StoreFixture} opened the store. */
    @BeforeEach
    void openCatalog() throws Exception {
        assertThat(await(store.cas(GUARD, null, LEASE))).isTrue();
        port = new RecordingPort(store, GUARD, LEASE);
        catalog = new Catalog(port, ROOT + "/", System::currentTimeMillis, new Random());
    }

    Table newTable(String ns, String name) throws Exception {
        return await(catalog.createTable(ns, name, COLUMNS, null));
    }

    Namespace newNamespace(String ns) throws Exception {
        return await(catalog.createNamespace(ns, Map.of()));
    }

    /** The raw stored bytes at {@code key}, {@code null} when absent. */
    byte[] raw(String key) throws Exception {
        return await(store.get(key)).orElse(null);
    }

    String generation() throws Exception {
        Optional<byte[]> g = await(store.get(CatalogKeys.GENERATION));
        return g.map(v -> new String(v, StandardCharsets.UTF_8)).orElse(null);
    }

    /** How {@code future} failed; an assertion error if it succeeded. */
    static Throwable failure(Future<?> future) throws Exception {
        try {
            Object value = await(future);
            throw new AssertionError("expected a failure, got " + value);
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) {
            return e;
        }
    }

    /** Fails unless {@code future} fails with {@code type} and a message containing every fragment. */
    static <E extends CatalogException> E refused(Future<?> future, Class<E> type, String... fragments) throws Exception {
        Throwable t = failure(future);
        assertThat(t).isInstanceOf(type);
        for (String f : fragments) assertThat(t.getMessage()).contains(f);
        return type.cast(t);
    }

    static <T> T await(Future<T> future) throws Exception {
        return StoreCalls.await(future, "catalog");
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
