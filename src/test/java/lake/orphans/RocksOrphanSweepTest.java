package lake.orphans;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;

import java.nio.file.Path;
import java.util.function.Function;

class RocksOrphanSweepTest extends OrphanSweepContract {
    @Override
    protected Function<Vertx, Future<? extends MetaStore>> backend(Path dir) {
        return v -> RocksMetaStore.open(v, RocksConfig.defaults(dir));
    }
}
