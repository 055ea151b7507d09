package lake.node;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.NodeClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;

import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.cas;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** GET /metrics serves the documented meters, and they move with what the node does. */
class MetricsTest {
    static final long T0 = 1_700_000_000_000L;
    static final long TTL = 10_000;

    @TempDir Path dir;
    NodeHarness h;
    FaultyStore faulty;

    @BeforeEach
    void harness() {
        h = new NodeHarness();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private Function<Vertx, Future<? extends MetaStore>> store() {
        return v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(s -> faulty = new FaultyStore(s));
    }

    /** The value of the sample whose line starts with {@code series} (name and labels, exactly). */
    static double sample(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) return Double.parseDouble(line.substring(series.length() + 1).trim());
        }
        throw new AssertionError("no sample " + series + " in\n" + scrape);
    }

    private String scrape(MetasrvNode node) throws Exception {
        HttpResponse<Buffer> r = h.get(node, "/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.getHeader("Content-Type")).startsWith("text/plain");
        return r.bodyAsString();
    }

    @Test
    void metricsServeRoleEpochAndRequestsByOutcome() throws Exception {
        MetasrvNode a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), TTL, 0, 1_000), new ManualClock(T0), store());
        String before = scrape(a);
        assertThat(sample(before, "lake_leader{node=\"a\"}")).isZero();
        assertThat(sample(before, "lake_requests_seconds_count{node=\"a\",op=\"cas\",outcome=\"applied\"}"))
                .as("pre-registered at zero").isZero();

        h.campaign(a);
        // The node's HTTP instances learn the new leadership from its publication, a moment after
        // the campaign answers; until then a write is refused 503 not_leader (nothing written).
        // Each write is sent until it is not that refusal, so the outcomes below are the real ones.
        postOnceLeading(a, cas("kv/x", null, "v1"));
        postOnceLeading(a, cas("kv/x", null, "again"));
        postOnceLeading(a, cas("kv/x", "v1", "v2").put("epoch", 7));
        h.get(a, "/v1/kv/kv/x");
        h.get(a, "/v1/kv/kv/absent");

        assertRequestCounts(scrape(a));
    }

    private void postOnceLeading(MetasrvNode node, io.vertx.core.json.JsonObject body) {
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> h.post(node, "/v1/kv/cas", body).statusCode() != 503);
    }

    private void assertRequestCounts(String m) {
        assertThat(sample(m, "lake_leader{node=\"a\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_epoch{node=\"a\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_leadership_changes_total{node=\"a\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_requests_seconds_count{node=\"a\",op=\"cas\",outcome=\"applied\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_requests_seconds_count{node=\"a\",op=\"cas\",outcome=\"not_applied\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_requests_seconds_count{node=\"a\",op=\"cas\",outcome=\"epoch_mismatch\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_requests_seconds_count{node=\"a\",op=\"get\",outcome=\"ok\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_requests_seconds_count{node=\"a\",op=\"get\",outcome=\"not_found\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_requests_seconds_bucket{node=\"a\",op=\"cas\",outcome=\"applied\",le=\"10.0\"}"))
                .as("histogram buckets").isEqualTo(1.0);
        assertThat(sample(m, "lake_epoch_mismatch_rejections_total{node=\"a\"}")).isEqualTo(1.0);
        assertThat(sample(m, "lake_fenced_rejections_total{node=\"a\"}")).isZero();
        for (String name : new String[] {"lake_lease_renewals_total", "lake_lease_renewal_failures_total",
                "lake_store_errors_total", "lake_auth_rejections_total"}) {
            assertThat(m).contains("# TYPE " + name + " counter");
        }
    }

    /** Two nodes on frozen clocks: a leads epoch 1 and writes kv/x, b takes over with epoch 2, a's next write is fenced. */
    private record Fenced(MetasrvNode a, MetasrvNode b) {}

    private Fenced fencedTakeover() throws Exception {
        ManualClock clockA = new ManualClock(T0);
        ManualClock clockB = new ManualClock(T0);
        MetasrvNode a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), TTL, 0, 1_000), clockA, store());
        MetasrvNode b = h.deploy(NodeHarness.settings("b", dir.resolve("b"), TTL, 0, 1_000), clockB, null);
        h.campaign(a);
        h.post(a, "/v1/kv/cas", cas("kv/x", null, "a1"));
        clockB.setWall(T0 + TTL);
        assertThat(h.campaign(b).epoch()).isEqualTo(2L);

        HttpResponse<Buffer> stale = h.post(a, "/v1/kv/cas", cas("kv/x", "a1", "stale"));
        assertThat(stale.statusCode()).isEqualTo(409);
        await().atMost(Duration.ofSeconds(10)).until(() -> !h.status(a).isLeader());
        return new Fenced(a, b);
    }

    @Test
    void fencedRejectionMovesTheFencedCounterAndTheRole() throws Exception {
        Fenced f = fencedTakeover();
        MetasrvNode a = f.a();
        MetasrvNode b = f.b();

        String ma = scrape(a);
        assertThat(sample(ma, "lake_fenced_rejections_total{node=\"a\"}")).isEqualTo(1.0);
        assertThat(sample(ma, "lake_requests_seconds_count{node=\"a\",op=\"cas\",outcome=\"fenced\"}")).isEqualTo(1.0);
        await().atMost(Duration.ofSeconds(5)).until(() -> sample(scrape(a), "lake_leader{node=\"a\"}") == 0.0);
        assertThat(sample(scrape(a), "lake_leadership_changes_total{node=\"a\"}")).isEqualTo(2.0);
        String mb = scrape(b);
        assertThat(sample(mb, "lake_leader{node=\"b\"}")).isEqualTo(1.0);
        assertThat(sample(mb, "lake_epoch{node=\"b\"}")).isEqualTo(2.0);
        assertThat(h.get(b, "/v1/kv/kv/x").bodyAsJsonObject().getString("value")).isEqualTo(b64("a1"));
    }

    /** The epoch timeline (GET /v1/timeline) says why a stepped down: a fenced write; b's says it took epoch 2. */
    @Test
    void fencedStepDownIsOnTheTimeline() throws Exception {
        Fenced f = fencedTakeover();
        JsonArray onA = h.get(f.a(), "/v1/timeline").bodyAsJsonObject().getJsonArray("changes");
        assertThat(onA).hasSize(2);
        JsonObject fenced = onA.getJsonObject(0);
        assertThat(fenced.getString("kind")).isEqualTo("fenced");
        assertThat(fenced.getString("node")).isEqualTo("a");
        assertThat(fenced.getLong("epoch")).as("the epoch given up").isEqualTo(1);
        assertThat(fenced.getString("reason")).startsWith("fenced: write under epoch 1 by node a refused");
        assertThat(onA.getJsonObject(1).getString("kind")).isEqualTo("takeover");
        assertThat(h.get(f.a(), "/v1/meters").bodyAsJsonObject().getJsonObject("counters").getLong("fenced")).isEqualTo(1);

        JsonArray onB = h.get(f.b(), "/v1/timeline").bodyAsJsonObject().getJsonArray("changes");
        assertThat(onB.getJsonObject(0).getString("kind")).isEqualTo("takeover");
        assertThat(onB.getJsonObject(0).getString("node")).isEqualTo("b");
        assertThat(onB.getJsonObject(0).getLong("epoch")).isEqualTo(2);
    }

    @Test
    void renewalsRenewalFailuresAndStoreErrorsAreCounted() throws Exception {
        MetasrvNode a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), 2_000, 200, 400), NodeClock.SYSTEM, store());
        await().atMost(Duration.ofSeconds(10)).until(() -> sample(scrape(a), "lake_lease_renewals_total{node=\"a\"}") >= 2);

        faulty.fault.set(new MetaException.RetryableBackend("TransactionConflict (test)", null));
        await().atMost(Duration.ofSeconds(5)).until(() -> sample(scrape(a), "lake_lease_renewal_failures_total{node=\"a\"}") >= 1);
        HttpResponse<Buffer> read = h.get(a, "/v1/kv/kv/x");
        assertThat(read.statusCode()).isEqualTo(503);
        faulty.fault.set(null);

        String m = scrape(a);
        assertThat(sample(m, "lake_store_errors_total{kind=\"RetryableBackend\",node=\"a\"}")).isGreaterThanOrEqualTo(2.0);
        assertThat(sample(m, "lake_store_errors_total{kind=\"PermanentBackend\",node=\"a\"}")).isZero();
        assertThat(sample(m, "lake_requests_seconds_count{node=\"a\",op=\"get\",outcome=\"backend_unavailable\"}")).isEqualTo(1.0);
        assertThat(new JsonObject(read.bodyAsString()).getJsonObject("error").getString("code")).isEqualTo("backend_unavailable");
    }
}
