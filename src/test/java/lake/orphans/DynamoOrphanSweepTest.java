package lake.orphans;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.dynamo.MotoServer;

import java.nio.file.Path;
import java.util.function.Function;

class DynamoOrphanSweepTest extends OrphanSweepContract {
    @Override
    protected Function<Vertx, Future<? extends MetaStore>> backend(Path dir) {
        return MotoServer::openFreshStore;
    }
}
