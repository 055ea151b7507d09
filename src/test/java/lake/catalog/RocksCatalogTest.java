package lake.catalog;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The catalog contract over a real RocksDB store in a temporary directory. */
class RocksCatalogTest extends CatalogContract {
    @TempDir
    Path dir;

    @Override
    protected MetaStore openStore(Vertx vertx) {
        return RocksMetaStore.open(RocksConfig.defaults(dir.resolve("db")));
    }
}
