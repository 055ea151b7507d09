package lake.server;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import lake.config.Settings;
import lake.meta.MetaStore;
import lake.metasrv.NodeClock;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One Metasrv node on a Vert.x instance: its store verticle (when it hosts the store), election
 * verticle, API verticle and HTTP ingress, deployed in that order and stopped in reverse.
 */
public final class MetasrvNode {

    /**
     * @param storeOpener opens the store this node hosts; {@code null} when another deployment
     *                    already serves {@code storeAddress} (tests sharing one store)
     * @param workerStore run the store verticle on a worker thread (RocksDB)
     * @param publicApi   also answer the shared {@code lake.v1.*} addresses
     */
    public record Options(Settings settings, NodeClock clock, Function<Vertx, Future<? extends MetaStore>> storeOpener,
                          boolean workerStore, String storeAddress, boolean publicApi) {}

    /**
     * HTTP ingress instances sharing the port, each on its own event loop: request parsing, JSON
     * and socket writes spread over the cores instead of queuing on one event loop. They hold no
     * state, so any number is equivalent to one.
     */
    static final int HTTP_INSTANCES = Math.max(2, Runtime.getRuntime().availableProcessors());

    /**
     * Vert.x options for a process that runs one node: one event loop per core rather than Vert.x's
     * two. A write crosses the HTTP ingress, API and store verticles; with fewer event loops more
     * of them share a thread, so a request costs fewer cross-thread wake-ups, and no core has more
     * than one event loop competing for it.
     */
    public static VertxOptions vertxOptions() {
        return new VertxOptions().setEventLoopPoolSize(Math.max(1, Runtime.getRuntime().availableProcessors()));
    }

    private final Vertx vertx;
    private final Options options;
    private final List<String> deployments = new ArrayList<>();
    private HttpVerticle http;

    private MetasrvNode(Vertx vertx, Options options) {
        this.vertx = vertx;
        this.options = options;
    }

    public static Future<MetasrvNode> deploy(Vertx vertx, Options options) {
        MetasrvNode node = new MetasrvNode(vertx, options);
        return node.start().map(node);
    }

    private Future<Void> start() {
        Settings s = options.settings();
        ElectionSettings election = new ElectionSettings(s.nodeId(), s.leaseKey(), s.leaseTtlMs(), s.leaseRenewMs(),
                s.leaseSafetyMarginMs(), options.storeAddress(), s.storeTimeoutMs());
        Supplier<HttpVerticle> ingress = () -> new HttpVerticle(s.nodeId(), s.httpHost(), s.httpPort(), s.requestTimeoutMs());
        Future<Void> store = options.storeOpener() == null ? Future.succeededFuture()
                : deploy(new StoreVerticle(options.storeOpener(), options.storeAddress(), !options.publicApi()),
                        new DeploymentOptions().setThreadingModel(options.workerStore() ? ThreadingModel.WORKER : ThreadingModel.EVENT_LOOP));
        return store
                .compose(v -> deploy(new ElectionVerticle(election, options.clock()), new DeploymentOptions()))
                .compose(v -> deploy(new ApiVerticle(election, options.clock(), options.publicApi()), new DeploymentOptions()))
                .compose(v -> deploy(() -> http == null ? http = ingress.get() : ingress.get(),
                        new DeploymentOptions().setInstances(HTTP_INSTANCES)))
                .recover(t -> stopDeployments().transform(ignored -> Future.failedFuture(t)));
    }

    private Future<Void> deploy(io.vertx.core.Deployable verticle, DeploymentOptions opts) {
        return deploy(() -> verticle, opts);
    }

    private Future<Void> deploy(Supplier<? extends io.vertx.core.Deployable> verticles, DeploymentOptions opts) {
        return vertx.deployVerticle(verticles, opts).map(id -> {
            deployments.add(id);
            return null;
        });
    }

    public String nodeId() {
        return options.settings().nodeId();
    }

    public int httpPort() {
        return http.actualPort();
    }

    /**
     * Stops gracefully: resigns the lease when leading (so a standby takes over at once), then
     * undeploys ingress, API, election and store, which closes the store.
     */
    public Future<Void> stop() {
        DeliveryOptions resign = new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign")
                .setSendTimeout(Math.max(1, options.settings().storeTimeoutMs()));
        return vertx.eventBus().request(Bus.election(nodeId()), null, resign)
                .transform(ignored -> stopDeployments());
    }

    private Future<Void> stopDeployments() {
        Future<Void> chain = Future.succeededFuture();
        for (int i = deployments.size() - 1; i >= 0; i--) {
            String id = deployments.get(i);
            chain = chain.transform(ignored -> vertx.undeploy(id).recover(t -> Future.succeededFuture()));
        }
        return chain.onComplete(ar -> deployments.clear());
    }
}
