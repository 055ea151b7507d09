package lake.engines;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.dynamo.MotoServer;

import java.nio.file.Path;
import java.util.function.Function;

class DynamoSparkAccessTest extends SparkAccessContract {
    @Override
    protected Function<Vertx, Future<? extends MetaStore>> backend(Path dir) {
        return MotoServer::openFreshStore;
    }
}
