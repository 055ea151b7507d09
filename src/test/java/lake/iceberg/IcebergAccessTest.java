package lake.iceberg;

import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Access control applies to /iceberg as to /v1: read tokens load, write tokens commit, namespace
 * create/drop need admin, a principal granted a namespace uses it (IcebergAccessContract has the
 * per-object rules); metrics reports are counted.
 */
class IcebergAccessTest {
    static final String READ_WRITE = "rw-token-0123456789abcdef";
    static final String READ_ONLY = "ro-token-0123456789abcdef";
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String GRANTED = "granted-token-0123456789abcdef";

    @TempDir Path dir;

    @Test
    void readTokensLoadWriteTokensCommit() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            Settings s = NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> f.authTokens = List.of(
                    new AuthToken("writer", AuthTokens.sha256(READ_WRITE), true),
                    new AuthToken("reader", AuthTokens.sha256(READ_ONLY), false),
                    new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                    new AuthToken("robots-only", AuthTokens.sha256(GRANTED), AuthToken.Access.READ_WRITE, null, List.of("robots"))));
            MetasrvNode node = h.deploy(s, new ManualClock(1_700_000_000_000L),
                    v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
            assertThat(h.campaign(node).isLeader()).isTrue();
            int port = node.httpPort();
            Map<String, String> writer = Map.of("Authorization", "Bearer " + READ_WRITE);
            Map<String, String> reader = Map.of("Authorization", "Bearer " + READ_ONLY);
            String ns = "{\"namespace\":[\"robots\"]}";

            assertThat(Rest.call(port, "GET", "/v1/config", null, Map.of()).statusCode()).as("no token").isEqualTo(401);
            assertThat(Rest.call(port, "POST", "/v1/namespaces", ns, reader).statusCode()).as("read token writing").isEqualTo(403);
            assertThat(Rest.call(port, "GET", "/v1/namespaces/robots", null, writer).statusCode()).as("nothing was created").isEqualTo(404);
            assertThat(Rest.call(port, "POST", "/v1/namespaces", ns, writer).statusCode()).as("namespace create needs admin").isEqualTo(403);
            Map<String, String> admin = Map.of("Authorization", "Bearer " + ADMIN);
            assertThat(Rest.call(port, "POST", "/v1/namespaces", ns, admin).statusCode()).isEqualTo(200);
            assertThat(Rest.call(port, "GET", "/v1/namespaces/robots", null, reader).statusCode()).as("read token loading").isEqualTo(200);
            Map<String, String> granted = Map.of("Authorization", "Bearer " + GRANTED);
            assertThat(Rest.call(port, "GET", "/v1/namespaces/robots", null, granted).statusCode())
                    .as("a principal granted the namespace uses it").isEqualTo(200);
            assertThat(Rest.call(port, "DELETE", "/v1/namespaces/robots", null, granted).statusCode())
                    .as("dropping a top-level namespace needs admin, whatever the grants").isEqualTo(403);
            assertThat(Rest.call(port, "POST", "/v1/namespaces", "{\"namespace\":[\"robots\",\"made\"]}", granted).statusCode())
                    .as("'namespaces' names exactly its namespaces: no children made through it, on any face").isEqualTo(403);
            assertThat(Rest.call(port, "DELETE", "/v1/namespaces/robots", null, writer).statusCode()).as("drop needs admin").isEqualTo(403);
            assertThat(Rest.call(port, "GET", "/v1/namespaces/robots", null, reader).statusCode()).as("not dropped").isEqualTo(200);

            String report = "{\"report-type\":\"commit-report\",\"table-name\":\"robots.t\",\"snapshot-id\":1,\"sequence-number\":1,"
                    + "\"operation\":\"append\",\"metrics\":{}}";
            HttpResponse<String> reported = Rest.call(port, "POST", "/v1/namespaces/robots/tables/t/metrics", report, writer);
            assertThat(reported.statusCode()).as(reported.body()).isEqualTo(204);
            assertThat(node.metrics().scrape()).contains("lake_iceberg_metrics_reports_total{node=\"a\"} 1.0");
        }
    }
}
