package lake.orphans;

import lake.config.AuthTokens;
import lake.config.access.AuthToken;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep needs {@code drop} on the table (a delete run removes files, as a purge does): a
 * principal that may write the table but not drop it is refused {@code 403}, one that cannot see
 * it gets the same {@code 404} as for a missing table, one granted {@code drop} is answered.
 */
class OrphanSweepAccessTest {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String WRITER = "writer-token-0123456789abcdef";
    static final String DROPPER = "dropper-token-0123456789abcdef";
    static final String STRANGER = "stranger-token-0123456789abcdef";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir Path dir;

    @Test
    void sweepNeedsDropOnTheTable() throws Exception {
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("writer", AuthTokens.sha256(WRITER), AuthToken.Access.READ_WRITE, null, null, null, List.of(
                        new CatalogGrant("robots", null, EnumSet.of(Privilege.READ, Privilege.WRITE, Privilege.CREATE)))),
                new AuthToken("dropper", AuthTokens.sha256(DROPPER), AuthToken.Access.READ_WRITE, null, null, null, List.of(
                        new CatalogGrant("robots", "episodes", EnumSet.of(Privilege.READ, Privilege.DROP)))),
                new AuthToken("stranger", AuthTokens.sha256(STRANGER), AuthToken.Access.READ_WRITE, null, null, null, List.of(
                        new CatalogGrant("other", null, Set.of(Privilege.READ)))));
        try (NodeHarness h = new NodeHarness()) {
            MetasrvNode node = h.deploy(NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> f.authTokens = tokens),
                    new ManualClock(System.currentTimeMillis()), v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
            assertThat(h.campaign(node).isLeader()).isTrue();
            int port = node.httpPort();
            assertThat(post(port, ADMIN, "/iceberg/v1/namespaces", "{\"namespace\":[\"robots\"]}").statusCode()).isEqualTo(200);
            HttpResponse<String> created = post(port, ADMIN, "/iceberg/v1/namespaces/robots/tables", "{\"name\":\"episodes\",\"schema\":"
                    + "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);

            String route = "/iceberg/management/v1/namespaces/robots/tables/episodes/orphan-files";
            HttpResponse<String> writer = post(port, WRITER, route, "{\"delete\":true}");
            assertThat(writer.statusCode()).as(writer.body()).isEqualTo(403);
            assertThat(post(port, STRANGER, route, "{}").statusCode()).as("a table it cannot see answers as absent").isEqualTo(404);
            HttpResponse<String> dropper = post(port, DROPPER, route, "{}");
            assertThat(dropper.statusCode()).as(dropper.body()).isEqualTo(200);
            assertThat(OrphanSweepContract.reported(OrphanSweepContract.JSON.readTree(dropper.body()))).isEmpty();
        }
    }

    private static HttpResponse<String> post(int port, String token, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
