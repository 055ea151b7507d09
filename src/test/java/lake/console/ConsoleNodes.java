package lake.console;

import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.NodeClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Real nodes for the console's tests (over {@link NodeHarness}): real clocks, a campaign every
 * second, RocksDB in a temporary directory, and a real HTTP client to put data in. Shared by the
 * browser tests and the screenshot, so the set-up lives in one place.
 */
final class ConsoleNodes implements AutoCloseable {
    static final String READ_WRITE = "console-rw-token-0123456789";
    static final String READ_ONLY = "console-ro-token-0123456789";
    static final String ADMIN = "console-admin-token-0123456789";
    /** A reader granted the namespace {@code robots} only: refused what spans every namespace. */
    static final String TEAM = "console-team-token-0123456789";
    static final long TTL_MS = 10_000;
    static final long RENEW_MS = 1_000;

    final NodeHarness harness = new NodeHarness();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static Settings settings(String id, Path dir) {
        return NodeHarness.settings(id, dir, TTL_MS, RENEW_MS, 1_000);
    }

    static Settings withTokens(Settings s) {
        return s.with(f -> f.authTokens = List.of(new AuthToken("writer", AuthTokens.sha256(READ_WRITE), true),
                new AuthToken("reader", AuthTokens.sha256(READ_ONLY), false),
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("team", AuthTokens.sha256(TEAM), AuthToken.Access.READ, null, List.of("robots"))));
    }

    /** A node hosting its own RocksDB store under {@code dir}; returns once it leads. */
    MetasrvNode leader(Settings s, Path dir) throws Exception {
        MetasrvNode node = harness.deploy(s, NodeClock.SYSTEM, v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
        await().atMost(Duration.ofSeconds(20)).until(() -> harness.status(node).isLeader());
        return node;
    }

    /** A second node on the store {@code leader}'s node hosts (same Vert.x instance): a standby. */
    MetasrvNode standby(Settings s) throws Exception {
        return harness.deploy(s, NodeClock.SYSTEM, null);
    }

    HttpResponse<String> post(MetasrvNode node, String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) b.header("Authorization", "Bearer " + token);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(MetasrvNode node, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
                .timeout(Duration.ofSeconds(10)).GET();
        if (token != null) b.header("Authorization", "Bearer " + token);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> delete(MetasrvNode node, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
                .timeout(Duration.ofSeconds(10)).DELETE();
        if (token != null) b.header("Authorization", "Bearer " + token);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Creates {@code key} with {@code value}; asserts it applied. */
    void create(MetasrvNode node, String key, byte[] value, String token) throws Exception {
        String body = "{\"key\":\"" + key + "\",\"expected\":null,\"value\":\"" + Base64.getEncoder().encodeToString(value) + "\"}";
        HttpResponse<String> r = post(node, "/v1/kv/cas", body, token);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"applied\":true");
    }

    /** Some keys, a namespace with a table at version 1, and a dropped table (a tombstone). */
    void sampleData(MetasrvNode node, String token) throws Exception {
        create(node, "tables/robots", "v1".getBytes(), token);
        create(node, "tables/episodes", "{\"owner\":\"ops\",\"rows\":1200}".getBytes(), token);
        create(node, "tables/raw", new byte[] {0, 1, 2, (byte) 0xff}, token);
        create(node, "config/retention", "30d".getBytes(), token);
        ok(post(node, "/v1/namespaces", "{\"namespace\":\"robots\"}", token));
        ok(post(node, "/v1/namespaces/robots/tables", "{\"name\":\"episodes\",\"columns\":[\"id:i64\",\"video:file\"]}", token));
        ok(post(node, "/v1/namespaces/robots/tables/episodes/versions", "{\"expected_version\":0,\"version\":1}", token));
        ok(post(node, "/v1/namespaces/robots/tables", "{\"name\":\"scratch\",\"columns\":[\"id:i64\"]}", token));
        ok(delete(node, "/v1/namespaces/robots/tables/scratch", token));
    }

    private static void ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 201);
    }

    @Override
    public void close() throws Exception {
        harness.close();
    }
}
