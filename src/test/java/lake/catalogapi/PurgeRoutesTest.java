package lake.catalogapi;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.config.AuthTokens;
import lake.config.access.AuthToken;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The purge routes' answers and refusals over HTTP, as docs/http-api.md ("Purges") states them,
 * against a real node (RocksDB) that requires tokens: an admin and a read-write principal.
 */
class PurgeRoutesTest {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String WRITER = "writer-token-0123456789abcdef";

    @TempDir Path dir;
    NodeHarness h;
    MetasrvNode node;

    @BeforeEach
    void node() throws Exception {
        h = new NodeHarness();
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("writer", AuthTokens.sha256(WRITER), AuthToken.Access.READ_WRITE, null, null, null, List.of()));
        node = h.publicLeader(NodeHarness.settings("a", dir.resolve("a"), 10_000, 0, 1_000).with(f -> f.authTokens = tokens));
        assertThat(call(HttpMethod.POST, "/v1/namespaces", "{\"namespace\":\"robots\"}", ADMIN).statusCode()).isEqualTo(200);
        assertThat(call(HttpMethod.POST, "/v1/namespaces/robots/tables", "{\"name\":\"episodes\",\"columns\":[\"id:i64\"]}", ADMIN)
                .statusCode()).isEqualTo(200);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    HttpResponse<Buffer> call(HttpMethod method, String uri, String body, String token) throws Exception {
        var req = h.http.request(method, node.httpPort(), "127.0.0.1", uri).putHeader("Authorization", "Bearer " + token);
        return NodeHarness.await(body == null ? req.send() : req.sendBuffer(Buffer.buffer(body)));
    }

    List<Object> queue() throws Exception {
        HttpResponse<Buffer> r = call(HttpMethod.GET, "/v1/catalog/purges", null, ADMIN);
        assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
        return r.bodyAsJsonObject().getJsonArray("purges").getList();
    }

    @Test
    void aPurgeQueryOtherThanTrueOrFalseIsRefusedAndDropsNothing() throws Exception {
        HttpResponse<Buffer> maybe = call(HttpMethod.DELETE, "/v1/namespaces/robots/tables/episodes?purge=maybe", null, ADMIN);
        assertThat(maybe.statusCode()).isEqualTo(400);
        assertThat(maybe.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("invalid_argument");
        assertThat(maybe.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("'purge'", "got 'maybe'");
        assertThat(call(HttpMethod.GET, "/v1/namespaces/robots/tables/episodes", null, ADMIN).statusCode()).as("still there").isEqualTo(200);
        assertThat(queue()).isEmpty();

        HttpResponse<Buffer> plain = call(HttpMethod.DELETE, "/v1/namespaces/robots/tables/episodes?purge=false", null, ADMIN);
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.bodyAsJsonObject().containsKey("purge")).as("purge=false is the plain drop").isFalse();
        assertThat(queue()).isEmpty();
    }

    @Test
    void thePurgeRouteQueuesForAdminsOnlyAndOnlyAKnownTombstone() throws Exception {
        JsonObject tomb = call(HttpMethod.DELETE, "/v1/namespaces/robots/tables/episodes", null, ADMIN).bodyAsJsonObject();
        String purge = "/v1/catalog/tombstones/robots/episodes/" + tomb.getString("incarnation_id") + "/purge";

        HttpResponse<Buffer> writer = call(HttpMethod.POST, purge, null, WRITER);
        assertThat(writer.statusCode()).isEqualTo(403);
        assertThat(writer.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("forbidden");
        assertThat(queue()).as("nothing queued by a refusal").isEmpty();
        HttpResponse<Buffer> unknown = call(HttpMethod.POST, "/v1/catalog/tombstones/robots/episodes/no-such-incarnation/purge", null, ADMIN);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("not_found");

        HttpResponse<Buffer> queued = call(HttpMethod.POST, purge, null, ADMIN);
        assertThat(queued.statusCode()).as(queued.bodyAsString()).isEqualTo(200);
        JsonObject job = queued.bodyAsJsonObject();
        assertThat(job.fieldNames()).containsExactlyInAnyOrder("namespace", "name", "incarnation_id", "reason", "state", "phase", "queued_ms",
                "epoch", "batches", "deleted", "message", "revision");
        assertThat(job.getString("state")).isEqualTo("queued");
        assertThat(job.getValue("phase")).as("a phase only while purging").isNull();
        assertThat(queue()).hasSize(1);
        assertThat(call(HttpMethod.GET, "/v1/catalog/purges?limit=0", null, ADMIN).statusCode()).isEqualTo(400);
        assertThat(call(HttpMethod.GET, "/v1/catalog/tombstones", null, ADMIN).bodyAsJsonObject().getJsonArray("tombstones")
                .getJsonObject(0).getLong("expires_ms")).isEqualTo(tomb.getLong("dropped_ms") + lake.config.LifecycleSettings.DEFAULTS.tableRetentionMs());
    }
}
