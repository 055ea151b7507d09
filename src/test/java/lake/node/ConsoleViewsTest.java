package lake.node;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.api.RecordedLeaderTest;
import org.junit.jupiter.api.Test;

import static lake.node.ApiFixture.cas;
import static lake.node.ApiFixture.expectError;
import static lake.node.MetricsTest.sample;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's read views and assets over real HTTP on one leader (docs/http-api.md, docs/console.md):
 * what they answer, that they agree with /metrics, and that they decode strictly like the rest of the API.
 */
class ConsoleViewsTest extends RecordedLeaderTest {

    @Test
    void timelineShowsThisNodesTakeoverAndItsCurrentView() throws Exception {
        HttpResponse<Buffer> r = h.get(node, "/v1/timeline");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.getHeader("Content-Type")).startsWith("application/json");
        JsonObject t = r.bodyAsJsonObject();
        assertThat(t.getString("node_id")).isEqualTo("a");
        assertThat(t.getInteger("capacity")).isEqualTo(lake.console.EpochTimeline.DEFAULT_CAPACITY);
        JsonArray changes = t.getJsonArray("changes");
        assertThat(changes).hasSize(1);
        JsonObject takeover = changes.getJsonObject(0);
        assertThat(takeover.getString("kind")).isEqualTo("takeover");
        assertThat(takeover.getString("node")).isEqualTo("a");
        assertThat(takeover.getLong("epoch")).isEqualTo(1);
        assertThat(takeover.getLong("at_ms")).as("the node's (frozen) wall clock").isEqualTo(1_700_000_000_000L);
        assertThat(takeover.getString("reason")).isEqualTo("won the lease");
        JsonObject now = t.getJsonObject("now");
        assertThat(now.getString("role")).isEqualTo("leader");
        assertThat(now.getLong("epoch")).isEqualTo(1);
        assertThat(now.getLong("authority_ms")).as("within TTL − margin").isPositive().isLessThanOrEqualTo(9_000);

        // Renewals are not changes.
        h.campaign(node);
        h.campaign(node);
        assertThat(h.get(node, "/v1/timeline").bodyAsJsonObject().getJsonArray("changes")).hasSize(1);
    }

    @Test
    void meterViewCarriesTheSameNumbersAsMetrics() throws Exception {
        h.post(node, "/v1/kv/cas", cas("kv/x", null, "v1"));
        h.post(node, "/v1/kv/cas", cas("kv/x", "v1", "v2").put("epoch", 7));
        h.get(node, "/v1/kv/kv/x");
        JsonObject m = h.get(node, "/v1/meters").bodyAsJsonObject();
        String scrape = h.get(node, "/metrics").bodyAsString();

        assertThat(m.getString("node_id")).isEqualTo("a");
        JsonObject applied = request(m, "cas", "applied");
        assertThat(applied.getLong("count")).isEqualTo(1).isEqualTo(
                (long) sample(scrape, "lake_requests_seconds_count{node=\"a\",op=\"cas\",outcome=\"applied\"}"));
        JsonArray buckets = applied.getJsonArray("buckets");
        assertThat(buckets).hasSize(15);
        assertThat(buckets.getJsonObject(0).getDouble("le_ms")).isEqualTo(0.25);
        assertThat(buckets.getJsonObject(14).getDouble("le_ms")).isEqualTo(10_000.0);
        assertThat(buckets.getJsonObject(14).getLong("count")).as("cumulative: the last bucket holds every request").isEqualTo(1);
        assertThat(request(m, "cas", "epoch_mismatch").getLong("count")).isEqualTo(1);
        assertThat(request(m, "get", "ok").getLong("count")).isEqualTo(1);
        assertThat(m.getJsonObject("counters").getLong("epoch_mismatch")).isEqualTo(1);
        assertThat(m.getJsonObject("counters").getLong("fenced")).isZero();
        assertThat(m.getJsonObject("store_errors").getLong("RetryableBackend")).isZero();
        assertThat(m.getJsonObject("gauges").getLong("leader")).isEqualTo(1);
        assertThat(m.getJsonObject("gauges").getLong("epoch")).isEqualTo(1);
        // The purge worker's meters, for the catalog view: counters at zero until it counts, the queue's gauge as scraped.
        JsonObject purge = m.getJsonObject("purge");
        assertThat(purge.fieldNames()).containsExactlyInAnyOrder("files_deleted", "batches", "tables", "refused", "passes", "queue_jobs");
        assertThat(purge.getLong("refused")).isZero();
        assertThat(purge.getLong("queue_jobs")).isEqualTo((long) sample(scrape, "lake_purge_queue_jobs{node=\"a\"}"));
    }

    private static JsonObject request(JsonObject meters, String op, String outcome) {
        return meters.getJsonArray("requests").stream().map(o -> (JsonObject) o)
                .filter(r -> op.equals(r.getString("op")) && outcome.equals(r.getString("outcome"))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + op + "/" + outcome + " in " + meters.encode()));
    }

    @Test
    void viewsTakeNoQueryNoBodyAndOnlyGet() throws Exception {
        int before = store.calls();
        for (String path : new String[] {"/v1/timeline", "/v1/meters", "/v1/access"}) {
            expectError(h.get(node, path + "?limit=5"), 400, "invalid_argument", "no query");
            expectError(h.send(node, HttpMethod.GET, path, "{}"), 400, "invalid_argument", "no request body");
            expectError(h.send(node, HttpMethod.POST, path, null), 405, "method_not_allowed", path);
            expectError(h.get(node, path + "/"), 404, "not_found", "no route");
        }
        expectError(h.get(node, "/v1/./timeline"), 404, "not_found", "no route");
        assertThat(store.calls()).as("no view touches the store").isEqualTo(before);
    }

    @Test
    void consoleAssetsComeFromTheJarWithAPolicyThatAllowsOnlyThisNode() throws Exception {
        HttpResponse<Buffer> redirect = NodeHarness.await(h.http.request(HttpMethod.GET, node.httpPort(), "127.0.0.1", "/ui")
                .followRedirects(false).send());
        assertThat(redirect.statusCode()).isEqualTo(301);
        assertThat(redirect.getHeader("Location")).isEqualTo("/ui/");
        HttpResponse<Buffer> root = NodeHarness.await(h.http.request(HttpMethod.GET, node.httpPort(), "127.0.0.1", "/")
                .followRedirects(false).send());
        assertThat(root.statusCode()).as("GET / lands on the console").isEqualTo(302);
        assertThat(root.getHeader("Location")).isEqualTo("/ui/");
        HttpResponse<Buffer> page = h.get(node, "/ui/");
        assertThat(page.statusCode()).as(page.bodyAsString()).isEqualTo(200);
        assertThat(page.getHeader("Content-Type")).startsWith("text/html");
        assertThat(page.getHeader("Content-Security-Policy")).contains("default-src 'self'").contains("script-src 'self'");
        assertThat(page.bodyAsString()).contains("<script src=\"console.js\"").doesNotContain("http://").doesNotContain("https://");
        for (String asset : new String[] {"/ui/console.js", "/ui/console.css"}) {
            HttpResponse<Buffer> r = h.get(node, asset);
            assertThat(r.statusCode()).as(asset).isEqualTo(200);
            // The one URL in the script is the SVG namespace name, which is an identifier, not a load.
            assertThat(r.bodyAsString().replace("http://www.w3.org/2000/svg", "")).as(asset + " loads nothing from elsewhere")
                    .doesNotContain("https://").doesNotContain("http://");
        }
        assertThat(h.get(node, "/ui/index.html").bodyAsString()).isEqualTo(page.bodyAsString());
        // Only the listed assets exist, read from the class path: no other name, directory or file under /ui/.
        for (String missing : new String[] {"/ui/missing.js", "/ui/console/index.html", "/ui/../pom.xml", "/ui/%2e%2e/pom.xml"}) {
            assertThat(h.get(node, missing).statusCode()).as(missing).isEqualTo(404);
        }
        assertThat(h.send(node, HttpMethod.POST, "/ui/", "x").statusCode()).isEqualTo(405);
    }
}
