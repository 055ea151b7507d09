package lake.bench;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import lake.meta.GuardedMutation;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.MetasrvNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

/**
 * The ceiling the fenced path is measured against: a bare HTTP front end over the same
 * group-committed, fsynced RocksDB writer, with none of the service around it — no router, no
 * event bus, no leadership, no validation beyond what {@link GuardedMutation} enforces, no access
 * control, no metrics. {@code POST} any path with {@code {"key":K,"expected":null,"value":B64}}
 * creates K guarded by a fixed lease record, exactly the mutation the fenced path builds, and
 * answers {@code {"applied":true|false}} after the fsync. Same Vert.x options and number of HTTP
 * instances as a node. Used by {@code scripts/bench/fenced-vs-bare} for a same-run comparison.
 *
 * <p>Run: {@code java -cp ... lake.bench.BareFrontEnd PORT DATA_DIR}.
 */
public final class BareFrontEnd {
    private static final String LEASE_KEY = "election/leader";
    private static final byte[] LEASE = ("{\"holder\":\"bare\",\"epoch\":1,\"expires_at_ms\":9223372036854775807}")
            .getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        Vertx vertx = Vertx.vertx(MetasrvNode.vertxOptions());
        RocksMetaStore.open(vertx, RocksConfig.defaults(dir))
                .compose(store -> store.cas(LEASE_KEY, null, LEASE).map(store))
                .compose(store -> vertx.deployVerticle(() -> new Ingress(store, port),
                        new DeploymentOptions().setInstances(Math.max(2, Runtime.getRuntime().availableProcessors()))))
                .onSuccess(id -> System.out.println("bare front end listening on " + port))
                .onFailure(t -> {
                    t.printStackTrace();
                    System.exit(1);
                });
    }

    private static final class Ingress extends VerticleBase {
        private final MetaStore store;
        private final int port;

        Ingress(MetaStore store, int port) {
            this.store = store;
            this.port = port;
        }

        @Override
        public Future<?> start() {
            return vertx.createHttpServer().requestHandler(this::handle).listen(port, "127.0.0.1");
        }

        private void handle(HttpServerRequest req) {
            if (req.path().equals("/ready")) {
                req.response().end("{\"ready\":true}");
                return;
            }
            req.body().onSuccess(buf -> {
                JsonObject o = buf.toJsonObject();
                GuardedMutation m = GuardedMutation.create(LEASE_KEY, LEASE, o.getString("key"),
                        Base64.getDecoder().decode(o.getString("value")));
                store.guardedMutate(m).onComplete(ar -> {
                    if (ar.succeeded()) {
                        req.response().putHeader("content-type", "application/json")
                                .end(new JsonObject().put("applied", ar.result()).encode());
                    } else {
                        req.response().setStatusCode(500).end(String.valueOf(ar.cause()));
                    }
                });
            });
        }
    }
}
