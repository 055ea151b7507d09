package lake.meta.rocks;

import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.MetaStoreConformance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The shared backend contract against RocksDB with one fsync per mutation (group commit off). */
class RocksMetaStoreWithoutGroupCommitTest extends MetaStoreConformance {
    @TempDir
    Path dir;

    @Override
    protected MetaStore openStore(Vertx vertx) {
        return RocksMetaStore.open(RocksConfig.defaults(dir.resolve("db")).withGroupCommit(false));
    }
}
