package lake.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * The management face's dropped-view routes under grants (docs/iceberg.md, "Dropped tables"): the
 * listing needs {@code drop} on the namespace, an undrop {@code drop} on the dropped name and
 * {@code create} where its body sends it — the body read once, so the destination checked is the
 * one the undrop then writes: refused there, nothing is written; a body that is not the route's is
 * refused {@code 400} naming the field before anything is checked.
 */
class ManagementAccessTest {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String KEEPER = "keeper-token-0123456789abcdef";
    static final String STRANGER = "stranger-token-0123456789abcdef";
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    static final String SCHEMA = "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}";

    @TempDir Path dir;

    @Test
    void droppedViewUndropIsDecidedOnTheDestinationItsBodyNames() throws Exception {
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("keeper", AuthTokens.sha256(KEEPER), AuthToken.Access.READ_WRITE, null, null, null, List.of(
                        new CatalogGrant("robots", null, EnumSet.of(Privilege.READ, Privilege.CREATE, Privilege.DROP)),
                        new CatalogGrant("elsewhere", null, EnumSet.of(Privilege.READ)))),
                new AuthToken("stranger", AuthTokens.sha256(STRANGER), AuthToken.Access.READ_WRITE, null, null, null, List.of(
                        new CatalogGrant("other", null, Set.of(Privilege.READ)))));
        try (NodeHarness h = new NodeHarness()) {
            MetasrvNode node = h.deploy(NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> f.authTokens = tokens),
                    new ManualClock(System.currentTimeMillis()), v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
            assertThat(h.campaign(node).isLeader()).isTrue();
            int port = node.httpPort();
            for (String ns : List.of("robots", "elsewhere")) {
                assertThat(send(port, ADMIN, "POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"" + ns + "\"]}").statusCode()).isEqualTo(200);
            }
            HttpResponse<String> created = send(port, ADMIN, "POST", "/iceberg/v1/namespaces/robots/views", "{\"name\":\"v\",\"schema\":" + SCHEMA
                    + ",\"view-version\":{\"version-id\":1,\"timestamp-ms\":1700000000000,\"schema-id\":0,\"summary\":{},"
                    + "\"representations\":[{\"type\":\"sql\",\"sql\":\"select 1 as id\",\"dialect\":\"spark\"}],\"default-namespace\":[\"robots\"]},"
                    + "\"properties\":{}}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            String uuid = JSON.readTree(created.body()).at("/metadata/view-uuid").asText();
            assertThat(send(port, ADMIN, "DELETE", "/iceberg/v1/namespaces/robots/views/v", null).statusCode()).isEqualTo(204);

            String listing = "/iceberg/management/v1/namespaces/robots/dropped-views";
            assertThat(send(port, STRANGER, "GET", listing, null).statusCode()).as("a namespace it cannot see answers as absent").isEqualTo(404);
            HttpResponse<String> listed = send(port, KEEPER, "GET", listing, null);
            assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
            assertThat(JSON.readTree(listed.body()).get("dropped-views")).extracting(v -> v.get("view-uuid").asText()).containsExactly(uuid);

            String undrop = listing + "/v/undrop";
            HttpResponse<String> elsewhere = send(port, KEEPER, "POST", undrop, "{\"destination\":{\"namespace\":[\"elsewhere\"],\"name\":\"v\"}}");
            assertThat(elsewhere.statusCode()).as("no create in elsewhere: " + elsewhere.body()).isEqualTo(403);
            HttpResponse<String> bogus = send(port, KEEPER, "POST", undrop, "{\"bogus\":1}");
            assertThat(bogus.statusCode()).as(bogus.body()).isEqualTo(400);
            assertThat(bogus.body()).contains("Invalid undrop request: unknown field bogus");
            assertThat(send(port, STRANGER, "POST", undrop, "{}").statusCode()).isEqualTo(404);
            assertThat(JSON.readTree(send(port, ADMIN, "GET", listing, null).body()).get("dropped-views")).as("nothing written").hasSize(1);

            HttpResponse<String> back = send(port, KEEPER, "POST", undrop, "{}");
            assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
            JsonNode loaded = JSON.readTree(send(port, KEEPER, "GET", "/iceberg/v1/namespaces/robots/views/v", null).body());
            assertThat(loaded.at("/metadata/view-uuid").asText()).isEqualTo(uuid);
            assertThat(send(port, ADMIN, "GET", "/iceberg/v1/namespaces/elsewhere/views/v", null).statusCode()).isEqualTo(404);
        }
    }

    private static HttpResponse<String> send(int port, String token, String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
