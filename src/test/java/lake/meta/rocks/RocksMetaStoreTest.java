package lake.meta.rocks;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.MetaStoreConformance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The shared backend contract against RocksDB with group commit on (the default). */
class RocksMetaStoreTest extends MetaStoreConformance {
    @TempDir
    Path dir;

    @Override
    protected MetaStore openStore(Vertx vertx) {
        return RocksMetaStore.open(RocksConfig.defaults(dir.resolve("db")));
    }
}
