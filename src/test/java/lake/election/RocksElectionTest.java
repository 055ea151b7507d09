package lake.election;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The election contract over RocksDB with its default (group commit) configuration. */
class RocksElectionTest extends ElectionContract {
    @TempDir
    Path dir;

    @Override
    protected MetaStore openStore(Vertx vertx) {
        return RocksMetaStore.open(RocksConfig.defaults(dir.resolve("db")));
    }
}
