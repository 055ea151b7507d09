package lake.ingress;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.node.FaultyStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.expectError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP API through real HTTP against the deployed verticles: every endpoint, every error code,
 * and that each refused request left the store unchanged. Run against every backend.
 */
public abstract class HttpApiContract {

    /** Opens a fresh, empty store of the backend under test. */
    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;
    FaultyStore faulty;
    MetasrvNode node;
    ManualClock clock;

    @BeforeEach
    void startLeader() throws Exception {
        h = new NodeHarness();
        clock = new ManualClock(1_700_000_000_000L);
        Function<Vertx, Future<? extends MetaStore>> real = backend(dir);
        node = h.deploy(NodeHarness.settings("a", dir, 10_000, 0, 1_000, 2_000), clock,
                v -> real.apply(v).map(s -> faulty = new FaultyStore(s)));
        assertThat(h.campaign(node).isLeader()).isTrue();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private JsonObject cas(String key, String expected, String value) {
        return new JsonObject().put("key", key).put("expected", expected == null ? null : b64(expected)).put("value", b64(value));
    }

    private static JsonObject json(HttpResponse<Buffer> r) {
        return r.bodyAsJsonObject();
    }

    @Test
    void everyEndpointAnswersAsDocumented() throws Exception {
        assertThat(h.get(node, "/health").statusCode()).isEqualTo(200);
        assertThat(h.get(node, "/ready").statusCode()).isEqualTo(200);

        HttpResponse<Buffer> created = h.post(node, "/v1/kv/cas", cas("kv/a/one", null, "v1"));
        assertThat(created.statusCode()).isEqualTo(200);
        assertThat(json(created)).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1).put("revision", 1));
        assertThat(json(h.post(node, "/v1/kv/cas", cas("kv/a/one", null, "again"))).getBoolean("applied")).isFalse();
        assertThat(json(h.post(node, "/v1/kv/cas", cas("kv/a/one", "v1", "v2").put("epoch", 1))).getBoolean("applied")).isTrue();

        HttpResponse<Buffer> got = h.get(node, "/v1/kv/kv/a/one");
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(json(got)).isEqualTo(new JsonObject().put("key", "kv/a/one").put("value", b64("v2")));
        String odd = "kv/a/two words+é?#";
        assertThat(json(h.post(node, "/v1/kv/cas", cas(odd, null, "x"))).getBoolean("applied")).isTrue();
        assertThat(json(h.get(node, "/v1/kv/" + URLEncoder.encode(odd, StandardCharsets.UTF_8).replace("%2F", "/")
                .replace("+", "%20"))).getString("key")).isEqualTo(odd);
        HttpResponse<Buffer> missing = h.get(node, "/v1/kv/kv/absent");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(json(missing).getJsonObject("error").getString("code")).isEqualTo("not_found");

        for (int i = 0; i < 5; i++) h.post(node, "/v1/kv/cas", cas("kv/b/" + i, null, "b" + i));
        List<String> keys = new ArrayList<>();
        String continuation = null;
        do {
            String uri = "/v1/kv?prefix=kv/b/&limit=2" + (continuation == null ? "" : "&continuation=" + continuation);
            JsonObject page = json(h.get(node, uri));
            JsonArray entries = page.getJsonArray("entries");
            assertThat(entries.size()).isLessThanOrEqualTo(2);
            for (int i = 0; i < entries.size(); i++) keys.add(entries.getJsonObject(i).getString("key"));
            continuation = page.getString("continuation");
        } while (continuation != null);
        assertThat(keys).containsExactly("kv/b/0", "kv/b/1", "kv/b/2", "kv/b/3", "kv/b/4");
        assertThat(json(h.get(node, "/v1/kv?prefix=kv/")).getJsonArray("entries")).hasSize(7);

        JsonObject wrongDelete = new JsonObject().put("key", "kv/b/0").put("expected", b64("nope"));
        assertThat(json(h.post(node, "/v1/kv/delete", wrongDelete))).isEqualTo(new JsonObject().put("applied", false).put("epoch", 1));
        JsonObject delete = new JsonObject().put("key", "kv/b/0").put("expected", b64("b0"));
        assertThat(json(h.post(node, "/v1/kv/delete", delete)).getBoolean("applied")).isTrue();
        assertThat(h.get(node, "/v1/kv/kv/b/0").statusCode()).isEqualTo(404);

        JsonObject leader = json(h.get(node, "/v1/leader"));
        assertThat(leader.getString("node_id")).isEqualTo("a");
        assertThat(leader.getString("role")).isEqualTo("leader");
        assertThat(leader.getString("leader")).isEqualTo("a");
        assertThat(leader.getLong("epoch")).isEqualTo(1L);
        assertThat(leader.getLong("expires_at_ms")).isEqualTo(clock.wallMillis() + 10_000);

        HttpResponse<Buffer> resigned = h.post(node, "/v1/leader/resign", new JsonObject());
        assertThat(json(resigned)).isEqualTo(new JsonObject().put("resigned", true));
        assertThat(h.get(node, "/ready").statusCode()).isEqualTo(503);
        JsonObject after = json(h.get(node, "/v1/leader"));
        assertThat(after.getString("role")).isEqualTo("follower");
        assertThat(after.getValue("leader")).isNull();
        assertThat(json(h.post(node, "/v1/leader/resign", new JsonObject())).getBoolean("resigned")).isFalse();
    }

    /**
     * {@code hide_system=true} leaves Metasrv's own keys (the catalog's and the lease key) out of
     * a scan unless the prefix names their range; the continuation stays the store's, so a page
     * of hidden keys comes back empty with a continuation and the walk goes on to the user's keys.
     */
    @Test
    void scanHidesSystemKeysWhenAsked() throws Exception {
        assertThat(h.post(node, "/v1/namespaces", new JsonObject().put("namespace", "robots")).statusCode()).isEqualTo(200);
        assertThat(h.post(node, "/v1/namespaces/robots/tables", new JsonObject().put("name", "episodes")
                .put("columns", new JsonArray().add("id:i64"))).statusCode()).isEqualTo(200);
        assertThat(json(h.post(node, "/v1/kv/cas", cas("a/x", null, "v"))).getBoolean("applied")).isTrue();
        assertThat(json(h.post(node, "/v1/kv/cas", cas("zz/y", null, "v"))).getBoolean("applied")).isTrue();

        List<String> every = scanAll("/v1/kv?prefix=&limit=1");
        assertThat(every).contains("__lake_internal/catalog-directory-generation", "__lake_internal/namespaces/robots",
                "a/x", "election/leader", "tbl/robots/episodes", "zz/y");
        int[] emptyPages = {0};
        assertThat(scanAll("/v1/kv?prefix=&limit=1&hide_system=true", emptyPages)).containsExactly("a/x", "zz/y");
        assertThat(emptyPages[0]).as("pages of hidden keys came back empty, with a continuation").isEqualTo(every.size() - 2);
        assertThat(scanAll("/v1/kv?prefix=&hide_system=false")).isEqualTo(every);
        // A prefix inside a system range asks for it.
        assertThat(scanAll("/v1/kv?prefix=tbl/&hide_system=true")).containsExactly("tbl/robots/episodes");
        assertThat(scanAll("/v1/kv?prefix=election/leader&hide_system=true")).containsExactly("election/leader");
        assertThat(scanAll("/v1/kv?prefix=election/&hide_system=true")).isEmpty();
        expectError(h.get(node, "/v1/kv?prefix=&hide_system=yes"), 400, "invalid_argument", "hide_system");
    }

    private List<String> scanAll(String uri) throws Exception {
        return scanAll(uri, new int[1]);
    }

    /** Every key of a paged scan; {@code emptyPages[0]} counts the pages that held none but had a continuation. */
    private List<String> scanAll(String uri, int[] emptyPages) throws Exception {
        List<String> keys = new ArrayList<>();
        String continuation = null;
        do {
            HttpResponse<Buffer> r = h.get(node, uri + (continuation == null ? "" : "&continuation="
                    + URLEncoder.encode(continuation, StandardCharsets.UTF_8)));
            assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
            JsonObject page = json(r);
            JsonArray entries = page.getJsonArray("entries");
            for (int i = 0; i < entries.size(); i++) keys.add(entries.getJsonObject(i).getString("key"));
            continuation = page.getString("continuation");
            if (entries.isEmpty() && continuation != null) emptyPages[0]++;
        } while (continuation != null);
        return keys;
    }

    @Test
    void everyErrorCodeLeavesTheStoreUnchanged() throws Exception {
        assertThat(json(h.post(node, "/v1/kv/cas", cas("kv/t", null, "v1"))).getBoolean("applied")).isTrue();
        JsonObject before = json(h.get(node, "/v1/kv?limit=1000"));

        expectError(h.send(node, HttpMethod.POST, "/v1/kv/cas", "{not json"), 400, "invalid_argument", "JSON");
        expectError(h.send(node, HttpMethod.POST, "/v1/kv/cas", "[1,2]"), 400, "invalid_argument", "JSON");
        expectError(h.send(node, HttpMethod.POST, "/v1/kv/cas", ""), 400, "invalid_argument", "body");
        expectError(h.post(node, "/v1/kv/cas", new JsonObject().put("key", "k").put("value", b64("v"))), 400, "invalid_argument", "expected");
        expectError(h.post(node, "/v1/kv/cas", cas("k", null, "v").put("colour", "red")), 400, "invalid_argument", "colour");
        expectError(h.post(node, "/v1/kv/cas", cas("k", null, "v").put("value", "%%%")), 400, "invalid_argument", "base64");
        expectError(h.post(node, "/v1/kv/cas", cas("", null, "v")), 400, "invalid_argument", "key");
        expectError(h.post(node, "/v1/kv/cas", cas("a\u0000b", null, "v")), 400, "invalid_argument", "NUL");
        expectError(h.post(node, "/v1/kv/cas", cas("k".repeat(1025), null, "v")), 400, "invalid_argument", "1024");
        expectError(h.post(node, "/v1/kv/cas", cas("k", null, "v").put("key", 7)), 400, "invalid_argument", "key");
        expectError(h.post(node, "/v1/kv/cas", cas("k", null, "v").put("epoch", -1)), 400, "invalid_argument", "epoch");
        expectError(h.post(node, "/v1/kv/cas", cas("election/leader", null, "v")), 400, "invalid_argument", "lease");
        expectError(h.post(node, "/v1/kv/delete", new JsonObject().put("key", "election/leader").put("expected", b64("x"))),
                400, "invalid_argument", "lease");
        expectError(h.post(node, "/v1/kv/delete", new JsonObject().put("key", "kv/t")), 400, "invalid_argument", "expected");
        expectError(h.get(node, "/v1/kv?limit=0"), 400, "invalid_argument", "limit");
        expectError(h.get(node, "/v1/kv?limit=1001"), 400, "invalid_argument", "limit");
        expectError(h.get(node, "/v1/kv?limit=ten"), 400, "invalid_argument", "limit");
        expectError(h.get(node, "/v1/kv?pfx=a"), 400, "invalid_argument", "pfx");
        expectError(h.get(node, "/v1/kv?prefix=a&continuation=Zm9v"), 400, "invalid_argument", "continuation");

        expectError(h.get(node, "/v1/kv/kv/missing"), 404, "not_found", "kv/missing");
        expectError(h.get(node, "/v2/nothing"), 404, "not_found", "/v2/nothing");
        expectError(h.send(node, HttpMethod.PUT, "/v1/kv/cas", "{}"), 405, "method_not_allowed", "PUT");
        expectError(h.send(node, HttpMethod.DELETE, "/v1/kv/kv/t", null), 405, "method_not_allowed", "DELETE");

        String hugeBody = "{\"key\":\"k\",\"expected\":null,\"value\":\"" + "A".repeat(HttpVerticle.CAS_BODY_BYTES) + "\"}";
        expectError(h.send(node, HttpMethod.POST, "/v1/kv/cas", hugeBody), 413, "payload_too_large", "body");
        String bigValue = Base64.getEncoder().encodeToString(new byte[256 * 1024 + 1]);
        expectError(h.post(node, "/v1/kv/cas", new JsonObject().put("key", "k").putNull("expected").put("value", bigValue)),
                413, "payload_too_large", "value");

        expectError(h.post(node, "/v1/kv/cas", cas("kv/t", "v1", "v2").put("epoch", 2)), 409, "epoch_mismatch", "epoch 2");

        faulty.fault.set(new MetaException.RetryableBackend("throttled by test", null));
        HttpResponse<Buffer> unavailable = h.post(node, "/v1/kv/cas", cas("kv/t", "v1", "v3"));
        expectError(unavailable, 503, "backend_unavailable", "throttled by test");
        assertThat(unavailable.getHeader("Retry-After")).isNotBlank();
        expectError(h.get(node, "/v1/kv/kv/t"), 503, "backend_unavailable", "throttled");
        faulty.fault.set(new MetaException.PermanentBackend("disk on fire (test)", null));
        expectError(h.post(node, "/v1/kv/cas", cas("kv/t", "v1", "v3")), 500, "internal", "disk on fire");
        faulty.fault.set(null);

        clock.advanceMono(10_000);
        HttpResponse<Buffer> notLeader = h.post(node, "/v1/kv/cas", cas("kv/t", "v1", "v4"));
        expectError(notLeader, 503, "not_leader", "deadline");
        assertThat(notLeader.getHeader("Retry-After")).isNotBlank();

        assertThat(json(h.get(node, "/v1/kv?limit=1000"))).isEqualTo(before);
        assertThat(faulty).isNotNull();
    }

    /** The issue's own example: conditions of every kind, writes of every kind, one atomic step. */
    @Test
    void transactionsAnswerAsDocumented() throws Exception {
        assertThat(json(h.post(node, "/v1/kv/cas", cas("tables/b", null, "v1"))).getBoolean("applied")).isTrue();
        assertThat(json(h.post(node, "/v1/kv/cas", cas("gen", null, "g1"))).getBoolean("applied")).isTrue();
        String example = "{\"ops\": [\n"
                + "   {\"key\": \"tables/a\", \"expected\": null, \"value\": \"djE=\"},\n"
                + "   {\"key\": \"tables/b\", \"expected\": \"djE=\", \"delete\": true},\n"
                + "   {\"key\": \"gen\", \"exists\": true},\n"
                + "   {\"key\": \"idx/a\", \"value\": \"eA==\"}\n"
                + " ],\n \"epoch\": 1}";
        HttpResponse<Buffer> applied = h.send(node, HttpMethod.POST, "/v1/txn", example);
        assertThat(applied.statusCode()).as(applied.bodyAsString()).isEqualTo(200);
        assertThat(json(applied)).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1).put("revision", 3));
        assertThat(json(h.get(node, "/v1/kv/tables/a")).getString("value")).isEqualTo("djE=");
        assertThat(h.get(node, "/v1/kv/tables/b").statusCode()).isEqualTo(404);
        assertThat(json(h.get(node, "/v1/kv/gen")).getString("value")).isEqualTo(b64("g1"));
        assertThat(json(h.get(node, "/v1/kv/idx/a")).getString("value")).isEqualTo("eA==");
        JsonObject before = json(h.get(node, "/v1/kv?limit=1000"));

        // Operations 1 and 2 fail (tables/a exists now, gen holds g1): nothing is written, both are named.
        JsonObject failing = new JsonObject().put("ops", new JsonArray()
                .add(new JsonObject().put("key", "tables/c").putNull("expected").put("value", b64("c")))
                .add(new JsonObject().put("key", "tables/a").putNull("expected").put("value", b64("again")))
                .add(new JsonObject().put("key", "gen").put("expected", b64("g0")).put("value", b64("g2")))
                .add(new JsonObject().put("key", "idx/a").put("exists", true).put("delete", true)));
        assertThat(json(h.post(node, "/v1/txn", failing))).isEqualTo(new JsonObject().put("applied", false)
                .put("failed", new JsonArray().add(1).add(2)).put("epoch", 1));
        assertThat(json(h.get(node, "/v1/kv?limit=1000"))).as("nothing of it was written").isEqualTo(before);

        expectError(h.post(node, "/v1/txn", failing.copy().put("epoch", 2)), 409, "epoch_mismatch", "epoch 2");
        faulty.fault.set(new MetaException.RetryableBackend("throttled by test", null));
        expectError(h.post(node, "/v1/txn", failing), 503, "backend_unavailable", "throttled by test");
        faulty.fault.set(null);
        faulty.answerNothing.set(true);
        JsonObject lost = new JsonObject().put("ops", new JsonArray().add(new JsonObject().put("key", "tables/lost").put("value", b64("l"))));
        expectError(h.post(node, "/v1/txn", lost), 504, "outcome_unknown", "read");
        faulty.answerNothing.set(false);
        assertThat(json(h.get(node, "/v1/kv/tables/lost")).getString("value")).as("the unanswered transaction applied").isEqualTo(b64("l"));
    }

    @Test
    void writeWithoutAnAnswerIsOutcomeUnknown() throws Exception {
        faulty.answerNothing.set(true);
        HttpResponse<Buffer> lost = h.post(node, "/v1/kv/cas", cas("kv/lost-reply", null, "v"));
        expectError(lost, 504, "outcome_unknown", "read");
        assertThat(lost.getHeader("Retry-After")).as("not a plain retry").isNull();
        faulty.answerNothing.set(false);
        // Why it must not be a refusal: the write did apply.
        assertThat(json(h.get(node, "/v1/kv/kv/lost-reply")).getString("value")).isEqualTo(b64("v"));
    }

    /** Each HTTP ingress instance runs its own NodeApi; every one of them must follow leadership. */
    @Test
    void everyIngressInstanceLearnsALeadershipChange() throws Exception {
        // A fresh connection per request: the server hands connections to its instances in turn.
        io.vertx.ext.web.client.WebClient fresh = io.vertx.ext.web.client.WebClient.create(h.vertx,
                new io.vertx.ext.web.client.WebClientOptions().setKeepAlive(false));
        int connections = 4 * MetasrvNode.HTTP_INSTANCES;
        try {
            for (int i = 0; i < connections; i++) {
                assertThat(NodeHarness.await(fresh.get(node.httpPort(), "127.0.0.1", "/ready").send()).statusCode()).isEqualTo(200);
            }
            assertThat(h.post(node, "/v1/leader/resign", new JsonObject()).statusCode()).isEqualTo(200);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> {
                for (int i = 0; i < connections; i++) {
                    assertThat(NodeHarness.await(fresh.get(node.httpPort(), "127.0.0.1", "/ready").send()).statusCode()).isEqualTo(503);
                }
            });
            for (int i = 0; i < connections; i++) {
                HttpResponse<Buffer> write = NodeHarness.await(fresh.post(node.httpPort(), "127.0.0.1", "/v1/kv/cas")
                        .sendBuffer(Buffer.buffer(cas("kv/after-resign/" + i, null, "v").encode())));
                expectError(write, 503, "not_leader", "not the leader");
            }
            assertThat(json(h.get(node, "/v1/kv?prefix=kv/after-resign/")).getJsonArray("entries")).isEmpty();
        } finally {
            fresh.close();
        }
    }

}
