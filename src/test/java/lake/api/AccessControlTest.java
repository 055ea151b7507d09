package lake.api;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import lake.bus.Bus;
import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;

import static lake.node.ApiFixture.b64;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Access control over real HTTP and the real event bus: a missing or wrong token is 401, a
 * read-only token writing is 403, and a refused request writes nothing. Tokens never reach a log.
 */
class AccessControlTest {
    static final String READ_WRITE = "rw-token-0123456789abcdef";
    static final String READ_ONLY = "ro-token-0123456789abcdef";
    static final String ADMIN = "admin-token-0123456789abcdef";

    @TempDir Path dir;
    NodeHarness h;
    RecordingStore recording;
    MetasrvNode node;
    ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void leaderWithTokens() throws Exception {
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
        h = new NodeHarness();
        Settings s = NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> f.authTokens = List.of(
                new AuthToken("writer", AuthTokens.sha256(READ_WRITE), true),
                new AuthToken("reader", AuthTokens.sha256(READ_ONLY), false),
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null)));
        node = NodeHarness.await(MetasrvNode.deploy(h.vertx, new MetasrvNode.Options(s, new ManualClock(1_700_000_000_000L),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(st -> recording = new RecordingStore(st)),
                Bus.STORE, true)));
        assertThat(h.campaign(node).isLeader()).isTrue();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        for (ILoggingEvent e : logs.list) {
            String text = e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage());
            assertThat(text).as("a log line").doesNotContain(READ_WRITE).doesNotContain(READ_ONLY).doesNotContain("wrong-token");
        }
    }

    private HttpResponse<Buffer> http(HttpMethod method, String uri, String authorization, JsonObject body) throws Exception {
        HttpRequest<Buffer> req = h.http.request(method, node.httpPort(), "127.0.0.1", uri);
        if (authorization != null) req.putHeader("Authorization", authorization);
        return NodeHarness.await(body == null ? req.send() : req.sendJsonObject(body));
    }

    private static JsonObject create(String key) {
        return new JsonObject().put("key", key).putNull("expected").put("value", b64("v"));
    }

    private static void expectError(HttpResponse<Buffer> r, int status, String code) {
        assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(status);
        assertThat(r.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo(code);
    }

    @Test
    void httpWithoutAValidTokenIs401AndWritesNothing() throws Exception {
        HttpResponse<Buffer> missing = http(HttpMethod.POST, "/v1/kv/cas", null, create("kv/x"));
        expectError(missing, 401, "unauthorized");
        assertThat(missing.getHeader("WWW-Authenticate")).isEqualTo("Bearer realm=\"lake-metasrv\"");

        HttpResponse<Buffer> wrong = http(HttpMethod.POST, "/v1/kv/cas", "Bearer wrong-token-0123456789", create("kv/x"));
        expectError(wrong, 401, "unauthorized");
        assertThat(wrong.getHeader("WWW-Authenticate")).contains("error=\"invalid_token\"");
        assertThat(wrong.bodyAsString()).doesNotContain("wrong-token");

        expectError(http(HttpMethod.POST, "/v1/kv/cas", "Basic " + READ_WRITE, create("kv/x")), 401, "unauthorized");
        expectError(http(HttpMethod.POST, "/v1/kv/delete", null, new JsonObject().put("key", "kv/x").put("expected", b64("v"))),
                401, "unauthorized");
        expectError(http(HttpMethod.POST, "/v1/leader/resign", null, null), 401, "unauthorized");
        expectError(http(HttpMethod.GET, "/v1/kv/kv/x", null, null), 401, "unauthorized");
        expectError(http(HttpMethod.GET, "/v1/kv?prefix=kv/", "Bearer ", null), 401, "unauthorized");
        expectError(http(HttpMethod.GET, "/v1/leader", null, null), 401, "unauthorized");

        assertThat(recording.guardedWrites()).as("nothing reached the store").isZero();
        assertThat(h.status(node).isLeader()).as("the unauthenticated resign did nothing").isTrue();
        HttpResponse<Buffer> scan = http(HttpMethod.GET, "/v1/kv?prefix=kv/", "Bearer " + READ_ONLY, null);
        assertThat(scan.bodyAsJsonObject().getJsonArray("entries")).isEmpty();
    }

    /** The console's views are /v1 reads; its assets hold no data and stay open; access says what a token may do. */
    @Test
    void consoleViewsNeedATokenAndAccessSaysWhetherItMayWrite() throws Exception {
        for (String view : new String[] {"/v1/timeline", "/v1/meters", "/v1/access"}) {
            expectError(http(HttpMethod.GET, view, null, null), 401, "unauthorized");
            expectError(http(HttpMethod.GET, view, "Bearer wrong-token-0123456789", null), 401, "unauthorized");
            assertThat(http(HttpMethod.GET, view, "Bearer " + READ_ONLY, null).statusCode()).as(view).isEqualTo(200);
        }
        JsonObject reader = http(HttpMethod.GET, "/v1/access", "Bearer " + READ_ONLY, null).bodyAsJsonObject();
        assertThat(reader).isEqualTo(new JsonObject().put("node_id", "a").put("tokens_required", true).put("may_write", false));
        // may_write answers for the one write the console offers, resign, which needs admin.
        JsonObject writer = http(HttpMethod.GET, "/v1/access", "Bearer " + READ_WRITE, null).bodyAsJsonObject();
        assertThat(writer.getBoolean("may_write")).isFalse();
        JsonObject admin = http(HttpMethod.GET, "/v1/access", "Bearer " + ADMIN, null).bodyAsJsonObject();
        assertThat(admin.getBoolean("may_write")).isTrue();
        assertThat(http(HttpMethod.GET, "/ui/", null, null).statusCode()).as("the page itself needs no token").isEqualTo(200);
        assertThat(http(HttpMethod.GET, "/ui/console.js", null, null).statusCode()).isEqualTo(200);
    }

    /** The router matches normalised paths; the token check must hold for every spelling of a /v1 path. */
    @Test
    void everySpellingOfAV1PathNeedsAToken() throws Exception {
        NodeHarness.settled(node);
        int before = recording.calls();
        expectError(http(HttpMethod.POST, "/x/../v1/kv/cas", null, create("kv/dots")), 401, "unauthorized");
        expectError(http(HttpMethod.POST, "//v1/kv/cas", null, create("kv/slashes")), 401, "unauthorized");
        expectError(http(HttpMethod.GET, "/v1/kv/../../v1/kv/kv/x", null, null), 401, "unauthorized");
        expectError(http(HttpMethod.GET, "/%761/kv/kv/x", null, null), 401, "unauthorized");
        assertThat(recording.calls()).as("nothing reached the store").isEqualTo(before);
    }

    @Test
    void readOnlyTokenReadsButItsWritesAre403() throws Exception {
        assertThat(http(HttpMethod.POST, "/v1/kv/cas", "Bearer " + READ_WRITE, create("kv/x")).bodyAsJsonObject().getBoolean("applied"))
                .isTrue();
        int guarded = recording.guardedWrites();

        assertThat(http(HttpMethod.GET, "/v1/kv/kv/x", "Bearer " + READ_ONLY, null).statusCode()).isEqualTo(200);
        assertThat(http(HttpMethod.GET, "/v1/leader", "bearer " + READ_ONLY, null).statusCode()).as("scheme is case-insensitive")
                .isEqualTo(200);
        HttpResponse<Buffer> cas = http(HttpMethod.POST, "/v1/kv/cas", "Bearer " + READ_ONLY,
                new JsonObject().put("key", "kv/x").put("expected", b64("v")).put("value", b64("changed")));
        expectError(cas, 403, "forbidden");
        assertThat(cas.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("'reader'");
        expectError(http(HttpMethod.POST, "/v1/kv/delete", "Bearer " + READ_ONLY,
                new JsonObject().put("key", "kv/x").put("expected", b64("v"))), 403, "forbidden");
        expectError(http(HttpMethod.POST, "/v1/leader/resign", "Bearer " + READ_ONLY, null), 403, "forbidden");

        assertThat(recording.guardedWrites()).as("no refused write reached the store").isEqualTo(guarded);
        assertThat(http(HttpMethod.GET, "/v1/kv/kv/x", "Bearer " + READ_WRITE, null).bodyAsJsonObject().getString("value"))
                .isEqualTo(b64("v"));
        assertThat(h.status(node).isLeader()).isTrue();
    }

    @Test
    void healthReadyAndMetricsStayOpen() throws Exception {
        assertThat(http(HttpMethod.GET, "/health", null, null).statusCode()).isEqualTo(200);
        assertThat(http(HttpMethod.GET, "/ready", null, null).statusCode()).isEqualTo(200);
        http(HttpMethod.GET, "/v1/leader", null, null);
        http(HttpMethod.POST, "/v1/leader/resign", "Bearer " + READ_ONLY, null);
        HttpResponse<Buffer> metrics = http(HttpMethod.GET, "/metrics", null, null);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.bodyAsString())
                .contains("lake_auth_rejections_total{code=\"unauthorized\",ingress=\"http\",node=\"a\"} 1.0")
                .contains("lake_auth_rejections_total{code=\"forbidden\",ingress=\"http\",node=\"a\"} 1.0");
    }

    private Message<JsonObject> bus(String address, JsonObject body, String token) throws Exception {
        DeliveryOptions opts = new DeliveryOptions();
        if (token != null) opts.addHeader(Bus.TOKEN_HEADER, token);
        return NodeHarness.await(h.vertx.eventBus().request(address, body, opts));
    }

    private void expectBusError(String address, JsonObject body, String token, int status, String code) {
        assertThatThrownBy(() -> bus(address, body, token)).isInstanceOfSatisfying(ReplyException.class, e -> {
            assertThat(e.failureCode()).isEqualTo(status);
            assertThat(new JsonObject(e.getMessage()).getJsonObject("error").getString("code")).isEqualTo(code);
        });
    }

    @Test
    void busRequestsNeedTheTokenHeader() throws Exception {
        expectBusError(Bus.KV_CAS, create("kv/bus"), null, 401, "unauthorized");
        expectBusError(Bus.KV_CAS, create("kv/bus"), "wrong-token-0123456789", 401, "unauthorized");
        expectBusError(Bus.KV_GET, new JsonObject().put("key", "kv/bus"), null, 401, "unauthorized");
        expectBusError(Bus.LEADER_RESIGN, new JsonObject(), null, 401, "unauthorized");
        expectBusError(Bus.KV_CAS, create("kv/bus"), READ_ONLY, 403, "forbidden");
        expectBusError(Bus.KV_DELETE, new JsonObject().put("key", "kv/bus").put("expected", b64("v")), READ_ONLY, 403, "forbidden");
        expectBusError(Bus.LEADER_RESIGN, new JsonObject(), READ_ONLY, 403, "forbidden");
        assertThat(recording.guardedWrites()).as("nothing reached the store").isZero();
        expectBusError(Bus.KV_GET, new JsonObject().put("key", "kv/bus"), READ_ONLY, 404, "not_found");

        assertThat(bus(Bus.KV_CAS, create("kv/bus"), READ_WRITE).body().getBoolean("applied")).isTrue();
        assertThat(bus(Bus.KV_SCAN, new JsonObject().put("prefix", "kv/"), READ_ONLY).body().getJsonArray("entries")).hasSize(1);
        assertThat(bus(Bus.LEADER, new JsonObject(), READ_ONLY).body().getString("leader")).isEqualTo("a");
        assertThat(recording.guardedWrites()).isEqualTo(1);
        assertThat(node.metrics().scrape())
                .contains("lake_auth_rejections_total{code=\"unauthorized\",ingress=\"bus\",node=\"a\"} 4.0")
                .contains("lake_auth_rejections_total{code=\"forbidden\",ingress=\"bus\",node=\"a\"} 3.0");
    }

    @Test
    void exposureWarningOnlyForNonLoopbackWithoutTokens() {
        assertThat(AccessControl.exposureWarning("127.0.0.1", false)).isEmpty();
        assertThat(AccessControl.exposureWarning("localhost", false)).isEmpty();
        assertThat(AccessControl.exposureWarning("::1", false)).isEmpty();
        assertThat(AccessControl.exposureWarning("0.0.0.0", false)).hasValueSatisfying(w -> assertThat(w).contains("http-host 0.0.0.0"));
        assertThat(AccessControl.exposureWarning("0.0.0.0", true)).isEmpty();
    }
}
