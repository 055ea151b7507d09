package lake.node;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import lake.bus.Bus;
import lake.config.Settings;
import lake.meta.MetaStore;
import lake.metasrv.Leadership;
import lake.metasrv.NodeClock;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Deploys Metasrv nodes in one Vert.x instance and talks to them over real HTTP. Public for the client's tests (lake.client). */
public final class NodeHarness implements AutoCloseable {
    public final Vertx vertx = Vertx.vertx();
    public final WebClient http = WebClient.create(vertx);
    private final List<MetasrvNode> nodes = new ArrayList<>();

    /**
     * Tests' dropped-table life: the default retention, the purge worker idle (a pass a day), so no
     * background read of it reaches a store whose calls a test counts; {@link #PURGING} for tests of purges.
     */
    public static final lake.config.LifecycleSettings LIFECYCLE = new lake.config.LifecycleSettings(
            lake.config.LifecycleSettings.DEFAULTS.tableRetentionMs(), 24 * 3_600_000L, 1_000);
    /** The default retention, the purge worker looking every 100 ms, batches of 1,000. */
    public static final lake.config.LifecycleSettings PURGING = new lake.config.LifecycleSettings(
            lake.config.LifecycleSettings.DEFAULTS.tableRetentionMs(), 100, 1_000);

    public static Settings settings(String nodeId, Path dataDir, long ttlMs, long renewMs, long marginMs, long storeTimeoutMs) {
        return new Settings(nodeId, "127.0.0.1", 0, dataDir, Settings.StoreType.ROCKS, true, null, "us-east-1",
                "unused", false, "election/leader", ttlMs, renewMs, marginMs, 10_000, storeTimeoutMs).with(f -> f.lifecycle = LIFECYCLE);
    }

    public static Settings settings(String nodeId, Path dataDir, long ttlMs, long renewMs, long marginMs) {
        return settings(nodeId, dataDir, ttlMs, renewMs, marginMs, 10_000);
    }

    /**
     * The fenced-path contracts' node ({@code FencingContract}, {@code ChangeRecordsContract}):
     * node {@code id} under {@code dir/id}, lease TTL {@code ApiFixture.TTL} with renewals and the
     * margin fixed for an injected clock, the feed as {@code feed}; it hosts the store
     * {@code backend} opens, wrapped by {@code wrap} (recording, faults), or, with
     * {@code backend == null}, shares the one another node hosts.
     */
    public MetasrvNode fencedPathNode(String id, Path dir, NodeClock clock, lake.config.FeedSettings feed,
                                      Function<Vertx, Future<? extends MetaStore>> backend,
                                      Function<MetaStore, MetaStore> wrap) throws Exception {
        return deploy(settings(id, dir.resolve(id), ApiFixture.TTL, 0, 1_000).with(f -> f.feed = feed), clock,
                backend == null ? null : v -> backend.apply(v).map(wrap));
    }

    /** Deploys a node; {@code store} null means it uses the store another node already hosts. */
    public MetasrvNode deploy(Settings s, NodeClock clock, Function<Vertx, Future<? extends MetaStore>> store) throws Exception {
        MetasrvNode node = await(MetasrvNode.deploy(vertx, new MetasrvNode.Options(s, clock, store, Bus.STORE, false)));
        nodes.add(node);
        return node;
    }

    /**
     * One node over RocksDB under {@code dir}, its store behind a {@link RecordingStore} (handed to
     * {@code recorder} once open), serving the public bus API too; returns once it leads.
     */
    public MetasrvNode recordedLeader(Path dir, NodeClock clock, java.util.function.Consumer<RecordingStore> recorder) throws Exception {
        return recordedLeader(dir, clock, v -> lake.meta.rocks.RocksMetaStore.open(v, lake.meta.rocks.RocksConfig.defaults(dir.resolve("rocks"))), recorder);
    }

    /** As {@link #recordedLeader(Path, NodeClock, java.util.function.Consumer)}, over {@code backend}. */
    public MetasrvNode recordedLeader(Path dir, NodeClock clock, Function<Vertx, Future<? extends MetaStore>> backend,
                               java.util.function.Consumer<RecordingStore> recorder) throws Exception {
        return recordedLeader(dir, clock, backend, recorder, LIFECYCLE);
    }

    /** As {@link #recordedLeader(Path, NodeClock, Function, java.util.function.Consumer)}, dropped tables living by {@code lifecycle}. */
    public MetasrvNode recordedLeader(Path dir, NodeClock clock, Function<Vertx, Future<? extends MetaStore>> backend,
                               java.util.function.Consumer<RecordingStore> recorder, lake.config.LifecycleSettings lifecycle) throws Exception {
        MetasrvNode node = await(MetasrvNode.deploy(vertx, new MetasrvNode.Options(settings("a", dir, 10_000, 0, 1_000).with(f -> f.lifecycle = lifecycle), clock,
                v -> backend.apply(v).map(s -> {
                    RecordingStore r = new RecordingStore(s);
                    recorder.accept(r);
                    return r;
                }), Bus.STORE, true)));
        nodes.add(node);
        if (!campaign(node).isLeader()) throw new IllegalStateException("node a did not win the lease");
        settled(node);
        return node;
    }

    /**
     * Waits until {@code node} has read its stored grants (lake.grants follows them once the node
     * knows the feed's position): after that, no background read of its own reaches the store, so a
     * test may count the store calls its requests make.
     */
    public static void settled(MetasrvNode node) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> node.metrics().grantsRevision() >= 0);
    }

    /**
     * One node with settings {@code s} over RocksDB under its data directory, serving the public
     * bus API too (with a system clock fixed at a point, as the access tests need none to move);
     * returns once it leads.
     */
    public MetasrvNode publicLeader(Settings s) throws Exception {
        MetasrvNode node = await(MetasrvNode.deploy(vertx, new MetasrvNode.Options(s, new ManualClock(1_700_000_000_000L),
                v -> lake.meta.rocks.RocksMetaStore.open(v, lake.meta.rocks.RocksConfig.defaults(s.dataDir().resolve("rocks"))),
                Bus.STORE, true)));
        nodes.add(node);
        if (!campaign(node).isLeader()) throw new IllegalStateException("node " + s.nodeId() + " did not win the lease");
        return node;
    }

    /**
     * Runs a campaign round on {@code node}; when it leads, returns once its change feed has
     * started (its revisions read from the store and published), so that no store call of that
     * start lands in what a test measures afterwards.
     */
    public Leadership campaign(MetasrvNode node) throws Exception {
        Leadership l = await(vertx.eventBus().<Leadership>request(Bus.election(node.nodeId()), null,
                new DeliveryOptions().addHeader(Bus.OP_HEADER, "campaign"))).body();
        if (l.isLeader()) {
            try {
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                        .until(() -> Long.compareUnsigned(node.feedEpoch(), l.epoch()) >= 0 || !status(node).isLeader());
            } catch (org.awaitility.core.ConditionTimeoutException storeUnavailable) {
                // A test that made the store fail: the feed starts at the first write instead.
            }
        }
        return l;
    }

    public Leadership status(MetasrvNode node) throws Exception {
        return await(vertx.eventBus().<Leadership>request(Bus.election(node.nodeId()), null,
                new DeliveryOptions().addHeader(Bus.OP_HEADER, "status"))).body();
    }

    public HttpResponse<Buffer> send(MetasrvNode node, HttpMethod method, String uri, String body) throws Exception {
        var req = http.request(method, node.httpPort(), "127.0.0.1", uri);
        return await(body == null ? req.send() : req.sendBuffer(Buffer.buffer(body)));
    }

    public HttpResponse<Buffer> sendBytes(MetasrvNode node, HttpMethod method, String uri, byte[] body) throws Exception {
        return await(http.request(method, node.httpPort(), "127.0.0.1", uri).sendBuffer(Buffer.buffer(body)));
    }

    public HttpResponse<Buffer> sendWithType(MetasrvNode node, String uri, String contentType, String body) throws Exception {
        return await(http.request(HttpMethod.POST, node.httpPort(), "127.0.0.1", uri)
                .putHeader("Content-Type", contentType).sendBuffer(Buffer.buffer(body)));
    }

    public HttpResponse<Buffer> get(MetasrvNode node, String uri) throws Exception {
        return send(node, HttpMethod.GET, uri, null);
    }

    public HttpResponse<Buffer> post(MetasrvNode node, String uri, JsonObject body) throws Exception {
        return send(node, HttpMethod.POST, uri, body.encode());
    }

    public static <T> T await(Future<T> f) throws Exception {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        for (int i = nodes.size() - 1; i >= 0; i--) {
            try {
                await(nodes.get(i).stop());
            } catch (Exception ignored) {
                // Closing Vert.x below releases whatever a failed stop left.
            }
        }
        http.close();
        await(vertx.close());
    }
}
