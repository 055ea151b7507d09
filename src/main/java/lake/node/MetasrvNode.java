package lake.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import lake.api.AccessControl;
import lake.api.NodeApi;
import lake.bus.Bus;
import lake.bus.BusBatch;
import lake.bus.StoreLink;
import lake.config.Settings;
import lake.console.EpochTimeline;
import lake.console.TimelineVerticle;
import lake.election.ElectionSettings;
import lake.ingress.ApiVerticle;
import lake.ingress.HttpVerticle;
import lake.meta.MetaStore;
import lake.metasrv.Leadership;
import lake.metasrv.NodeClock;
import lake.metrics.NodeMetrics;
import lake.security.ReloadableTls;

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
     * @param publicApi   also answer the shared {@code lake.v1.*} addresses
     * @param metrics     the registry {@code GET /metrics} serves; Main passes the one Vert.x records into
     */
    public record Options(Settings settings, NodeClock clock, Function<Vertx, Future<? extends MetaStore>> storeOpener,
                          String storeAddress, boolean publicApi, MeterRegistry metrics) {

        /** With a registry of this node's own. */
        public Options(Settings settings, NodeClock clock, Function<Vertx, Future<? extends MetaStore>> storeOpener,
                       String storeAddress, boolean publicApi) {
            this(settings, clock, storeOpener, storeAddress, publicApi,
                    new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        }
    }

    /**
     * HTTP ingress instances sharing the port, each on its own event loop: request parsing, JSON
     * and socket writes spread over the cores instead of queuing on one event loop. Each serves
     * requests with its own {@link NodeApi}, which owns nothing and learns leadership from the
     * election verticle's publications, so any number is equivalent to one.
     */
    public static final int HTTP_INSTANCES = Math.max(2, Runtime.getRuntime().availableProcessors());

    /**
     * Vert.x options for a process that runs one node: one event loop per core rather than Vert.x's
     * two. A write crosses the HTTP ingress (which runs the API) and the store verticle; with fewer
     * event loops they share a thread more often, so a request costs fewer cross-thread wake-ups, and no core has more
     * than one event loop competing for it. Netty's native epoll transport where the platform has it
     * (Linux; NIO elsewhere): fewer system calls per request than NIO's selector.
     */
    public static VertxOptions vertxOptions() {
        return new VertxOptions().setEventLoopPoolSize(Math.max(1, Runtime.getRuntime().availableProcessors()))
                .setPreferNativeTransport(true);
    }

    private final Vertx vertx;
    private final Options options;
    private final List<String> deployments = new ArrayList<>();
    private volatile HttpVerticle http;
    /** The node's tail of the change feed, fed by the leader's publications. */
    private volatile lake.watch.Tail tail;
    /** The node's revisions (its write path's), once started. */
    private volatile lake.feed.Feed feed;
    /** The OIDC provider's signing keys (their HTTP client), or {@code null}; closed once the ingress stopped. */
    private lake.oidc.SigningKeys signingKeys;
    /** The node's Iceberg REST catalog (its worker threads), closed once the ingress stopped. */
    private lake.iceberg.rest.IcebergService iceberg;
    /** Worker threads for Iceberg's blocking calls: enough to overlap store and file latency, bounded. */
    static final int ICEBERG_THREADS = 16;
    private NodeMetrics metrics;
    private lake.security.Principals principals;
    /** The HTTPS material, re-read on SIGHUP and on change; {@code null} without tls_cert_file. */
    private volatile ReloadableTls httpsTls;
    private MessageConsumer<Leadership> leadershipFeed;
    /** The node's probe of the members holding its forwarded writes (clustered nodes only). */
    private lake.cluster.Liveness liveness;
    /** Long polls this node holds now, across all its API instances. */
    private final java.util.concurrent.atomic.AtomicInteger waiting = new java.util.concurrent.atomic.AtomicInteger();
    /** Index in {@link #deployments} of the election verticle: everything after it is ingress. */
    private int electionIndex = -1;

    private MetasrvNode(Vertx vertx, Options options) {
        this.vertx = vertx;
        this.options = options;
    }

    /**
     * The highest epoch whose publication of the change feed this node's tail has taken, or -1
     * before the first: a leader whose epoch is here has started its revisions.
     */
    public long feedEpoch() {
        lake.watch.Tail t = tail;
        return t == null || !t.ready() ? -1 : t.epoch();
    }

    /** Writes this node holds until an earlier write on one of their keys settles (0 unless it leads). */
    public int writesWaitingForKey() {
        lake.feed.Feed f = feed;
        return f == null ? 0 : f.waiting();
    }

    public static Future<MetasrvNode> deploy(Vertx vertx, Options options) {
        MetasrvNode node = new MetasrvNode(vertx, options);
        return node.start().map(node);
    }

    private Future<Void> start() {
        Settings s = options.settings();
        metrics = new NodeMetrics(options.metrics(), s.nodeId());
        metrics.waitingLongPolls(waiting);
        principals = new lake.security.Principals(s.authTokens(), s.security());
        principals.watch(vertx);
        lake.oidc.OidcAuthenticator oidc = null;
        if (s.security().oidc() != null) {
            signingKeys = new lake.oidc.SigningKeys(vertx, s.security().oidc(), options.clock()::wallMillis);
            oidc = new lake.oidc.OidcAuthenticator(s.security().oidc(), signingKeys, options.clock()::wallMillis);
            // Fetched now, so the first bearer of a JWT does not wait for it; a provider still down is asked again later.
            signingKeys.current();
        }
        AccessControl access = new AccessControl(principals, metrics, s.cluster().secret(), oidc);
        boolean clustered = s.cluster().enabled();
        // Only a RocksDB store host serves its store to the cluster; DynamoDB nodes each keep theirs local.
        boolean sharedStore = clustered && s.store() == Settings.StoreType.ROCKS;
        ElectionSettings election = new ElectionSettings(s.nodeId(), s.leaseKey(), s.leaseTtlMs(), s.leaseRenewMs(),
                s.leaseSafetyMarginMs());
        StoreLink storeLink = new StoreLink(options.storeAddress(), s.storeTimeoutMs(), s.cluster().secret(),
                !sharedStore ? StoreLink.Reach.PROCESS_ONLY
                        : options.storeOpener() != null ? StoreLink.Reach.HOSTED_HERE : StoreLink.Reach.REMOTE);
        try {
            iceberg = new lake.iceberg.rest.IcebergService(s.catalogRoot(), lake.iceberg.rest.IcebergService.fileIO(s.catalogRoot(), s.icebergS3Endpoint()),
                    ICEBERG_THREADS, s.requestTimeoutMs(),
                    s.storageAccess().vending() ? lake.storage.CredentialVendor.create(s.storageAccess()) : null,
                    s.storageAccess().remoteSigning() ? lake.storage.RemoteSigner.create(new lake.storage.SignCheck.Target(
                            s.icebergS3Endpoint() == null ? null : java.net.URI.create(s.icebergS3Endpoint()), s.storageAccess().region())) : null,
                    s.icebergS3Endpoint(), s.storageAccess().region(), s.lifecycle());
        } catch (IllegalArgumentException unsupported) {
            // A catalog root Iceberg cannot write to (another scheme) leaves lake's own catalog fully usable.
            org.slf4j.LoggerFactory.getLogger(MetasrvNode.class).warn("no Iceberg catalog on this node: {}", unsupported.getMessage());
            iceberg = null;
        }
        // One forwarding lane per node, on one event loop: a follower's writes from all its HTTP
        // instances leave together (larger batches, fewer messages each way) instead of one stream
        // per instance.
        BusBatch.Sender lane = clustered ? BusBatch.Sender.standard(((io.vertx.core.internal.VertxInternal) vertx).createEventLoopContext()) : null;
        // One liveness probe per node: every instance's forwarder tells it what awaits an answer where.
        liveness = clustered ? lake.cluster.Liveness.of(vertx).orElse(null) : null;
        // The node's revisions: every API instance's writer hands them out; the election leads no
        // epoch the feed retired.
        lake.feed.Feed revisions = new lake.feed.Feed();
        metrics.writesWaitingForKey(revisions::waiting);
        feed = revisions;
        tail = new lake.watch.Tail(s.feed().tailRecords(), s.feed().tailBytes());
        NodeApi.Config api = new NodeApi.Config(election, storeLink, options.clock(), clustered, s.leaseTtlMs() + s.leaseRenewMs(),
                s.requestTimeoutMs(), metrics, s.catalogRoot(), waiting, access, iceberg, lane, liveness, revisions, s.feed(),
                tail, s.lifecycle());
        Supplier<HttpVerticle> ingress = () -> new HttpVerticle(api, s.httpHost(), s.httpPort(), access, drainMs(), httpsTls);
        leadershipFeed = vertx.eventBus().localConsumer(Bus.leadership(s.nodeId()), m -> metrics.leadership(m.body()));
        Function<Vertx, Future<? extends MetaStore>> opener = options.storeOpener() == null ? null
                : v -> options.storeOpener().apply(v).map(metrics::instrument);
        // The HTTPS material is read and checked on a worker (files), before anything is deployed.
        Future<Void> tls = !s.security().httpsEnabled() ? Future.succeededFuture()
                : vertx.executeBlocking(() -> new ReloadableTls("tls", s.security().tlsCertFile(), s.security().tlsKeyFile(),
                        s.security().tlsClientCaFile(), "tls-cert-file", "tls-key-file", "tls-client-ca-file"), false)
                        .map(t -> {
                            httpsTls = t;
                            t.watch(vertx);
                            return null;
                        });
        Future<Void> feed = tls.compose(v -> leadershipFeed.completion());
        Future<Void> store = opener == null ? feed
                : feed.compose(v -> deploy(new StoreVerticle(opener, options.storeAddress(), !sharedStore,
                        sharedStore ? s.cluster().secret() : null), new DeploymentOptions()));
        return store
                // Before the election verticle, so the timeline sees the node's first publication.
                .compose(v -> deploy(new TimelineVerticle(s.nodeId(), Bus.leadership(s.nodeId()), Bus.timeline(s.nodeId()),
                        options.clock(), EpochTimeline.DEFAULT_CAPACITY), new DeploymentOptions()))
                .compose(v -> deploy(new ElectionVerticle(election, storeLink, options.clock(), metrics, revisions::minEpoch), new DeploymentOptions()))
                .onSuccess(v -> electionIndex = deployments.size() - 1)
                .compose(v -> deploy(new ApiVerticle(api, options.publicApi(), s.httpHost(),
                        () -> http != null && http.isBound() ? http.actualPort() : 0, access, drainMs()), new DeploymentOptions()))
                .compose(v -> deploy(() -> http == null ? http = ingress.get() : ingress.get(),
                        new DeploymentOptions().setInstances(HTTP_INSTANCES)))
                // A node that fails to start (say its HTTP port is taken) may already have won the
                // lease: give it back, so a standby need not wait out the TTL.
                .recover(t -> resignIfDeployed().transform(ignored -> stopDeployments())
                        .transform(ignored -> leadershipFeed.unregister())
                        .transform(ignored -> Future.failedFuture(t)));
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

    /** The long polls (catalog snapshots and resolves with {@code wait_ms}) this node holds now. */
    public int waitingLongPolls() {
        return waiting.get();
    }

    public String nodeId() {
        return options.settings().nodeId();
    }

    public int httpPort() {
        return http.actualPort();
    }

    /** The meters of this node (served on {@code GET /metrics}). */
    public NodeMetrics metrics() {
        return metrics;
    }

    /**
     * How long requests in flight may take to finish on stop, per ingress (HTTP, then the bus API):
     * a quarter of the shutdown budget each, so half of it is left to resign and close the store.
     */
    private long drainMs() {
        return Math.max(1, options.settings().shutdownTimeoutMs() / 4);
    }

    /**
     * Stops gracefully: first the ingress (HTTP, then the bus API) stops taking requests and lets
     * those in flight finish, bounded by {@link #drainMs()} each; then, with no write left that
     * could need it, the lease is resigned when held, so a standby takes over at once; then the
     * election and the store verticle stop, which closes the store.
     */
    public Future<Void> stop() {
        if (principals != null) principals.stopWatching(vertx);
        if (httpsTls != null) httpsTls.stopWatching(vertx);
        DeliveryOptions resign = new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign").setSendTimeout(
                Math.max(1, Math.min(options.settings().storeTimeoutMs(), options.settings().shutdownTimeoutMs() / 4)));
        return stopDeployments(electionIndex + 1)
                .transform(ignored -> vertx.eventBus().request(Bus.election(nodeId()), null, resign))
                .transform(ignored -> stopDeployments(0))
                .transform(ignored -> leadershipFeed == null ? Future.succeededFuture() : leadershipFeed.unregister())
                .onComplete(ignored -> {
                    if (iceberg != null) iceberg.close();
                    if (signingKeys != null) signingKeys.close();
                    if (liveness != null) liveness.close();
                });
    }

    /**
     * Re-reads the node's security material (the tokens file) now, as SIGHUP asks; each piece
     * that does not check keeps what is in use and says why in the log and the audit trail.
     */
    public Future<Void> reloadSecurity(String trigger) {
        Future<Boolean> tokens = principals == null ? Future.succeededFuture(false) : principals.reload(vertx, trigger);
        Future<Boolean> https = httpsTls == null ? Future.succeededFuture(false) : httpsTls.reload(vertx, trigger);
        return Future.join(tokens, https).mapEmpty();
    }

    /** Undeploys, newest first, every deployment from index {@code from} on. */
    private Future<Void> stopDeployments(int from) {
        Future<Void> chain = Future.succeededFuture();
        for (int i = deployments.size() - 1; i >= Math.max(0, from); i--) {
            String id = deployments.get(i);
            chain = chain.transform(ignored -> vertx.undeploy(id).recover(t -> Future.succeededFuture()));
        }
        return chain.onComplete(ar -> deployments.subList(Math.min(Math.max(0, from), deployments.size()), deployments.size()).clear());
    }

    private Future<Void> resignIfDeployed() {
        if (electionIndex < 0 || electionIndex >= deployments.size()) return Future.succeededFuture();
        DeliveryOptions resign = new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign")
                .setSendTimeout(Math.max(1, options.settings().storeTimeoutMs()));
        return vertx.eventBus().request(Bus.election(nodeId()), null, resign).mapEmpty();
    }

    private Future<Void> stopDeployments() {
        return stopDeployments(0);
    }
}
