package lake.server;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.config.Settings;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;

import java.nio.file.Path;
import java.util.function.Function;

/** Opens the configured backend. The only place that names concrete {@link MetaStore} classes. */
public final class Stores {
    private Stores() {}

    /** Where RocksDB keeps its files inside the data directory. */
    public static Path rocksPath(Settings s) {
        return s.dataDir().resolve("rocksdb");
    }

    public static Function<Vertx, Future<? extends MetaStore>> opener(Settings s) {
        return switch (s.store()) {
            case ROCKS -> vertx -> RocksMetaStore.open(vertx,
                    RocksConfig.defaults(rocksPath(s)).withGroupCommit(s.rocksGroupCommit()));
            case DYNAMO -> vertx -> Future.failedFuture(new lake.meta.MetaException.Unsupported("dynamo store not wired yet"));
        };
    }

    /** RocksDB calls block, so its store verticle runs on a worker; DynamoDB's SDK is async. */
    public static boolean needsWorker(Settings s) {
        return s.store() == Settings.StoreType.ROCKS;
    }
}
