package lake.node;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.config.ClusterSettings;
import lake.config.Settings;
import lake.meta.MetaStore;
import lake.meta.dynamo.DynamoConfig;
import lake.meta.dynamo.DynamoMetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;

import java.net.URI;
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
            case DYNAMO -> vertx -> DynamoMetaStore.open(vertx, dynamoConfig(s));
        };
    }

    /**
     * The store this node hosts, or {@code null} when it reaches another node's: a RocksDB node in
     * the {@code remote} role. DynamoDB nodes each host a store verticle over the shared table.
     */
    public static Function<Vertx, Future<? extends MetaStore>> hostedOpener(Settings s) {
        boolean remote = s.cluster().enabled() && s.store() == Settings.StoreType.ROCKS
                && s.cluster().storeRole() == ClusterSettings.StoreRole.REMOTE;
        return remote ? null : opener(s);
    }

    /** Credentials come from the SDK's default provider chain (environment, profile, instance role). */
    public static DynamoConfig dynamoConfig(Settings s) {
        DynamoConfig c = DynamoConfig.of(s.dynamoRegion(), s.dynamoTable()).withCreateTable(s.dynamoCreateTable());
        return s.dynamoEndpoint() == null ? c : c.withEndpoint(URI.create(s.dynamoEndpoint()));
    }
}
