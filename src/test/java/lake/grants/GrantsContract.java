package lake.grants;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;
import lake.meta.MetaStore;
import lake.node.AuditLog;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Grants as data (issue 37): stored in the fenced store through {@code /v1/grants}, followed by
 * the node from the change feed, applied to the next request without a restart; managed by admins
 * and by holders of {@code manage-grants} within what they hold; strict input. Principals: an
 * admin; {@code team-c}, read-write, configured with {@code "grants": []} (restricted, nothing
 * granted yet); {@code manager}, read-write, holding read and manage-grants on {@code team_c};
 * {@code viewer}, read-only, {@code "grants": []}; {@code plain}, read-write without grants;
 * {@code lead}, read-write, {@code namespaces: [team_c]}. Run against every backend.
 */
public abstract class GrantsContract {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String TEAM_C = "team-c-token-0123456789abcdef";
    static final String MANAGER = "manager-token-0123456789abcdef";
    static final String VIEWER = "viewer-token-0123456789abcdef";
    static final String PLAIN = "plain-token-0123456789abcdef";
    static final String LEAD = "lead-token-0123456789abcdef";
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;
    int port;

    @BeforeEach
    void node() throws Exception {
        h = new NodeHarness();
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("team-c", AuthTokens.sha256(TEAM_C), AuthToken.Access.READ_WRITE, null, null, null, List.of()),
                new AuthToken("manager", AuthTokens.sha256(MANAGER), AuthToken.Access.READ_WRITE, null, null, null,
                        List.of(new CatalogGrant("team_c", null, EnumSet.of(Privilege.READ, Privilege.MANAGE_GRANTS)))),
                new AuthToken("viewer", AuthTokens.sha256(VIEWER), AuthToken.Access.READ, null, null, null, List.of()),
                new AuthToken("plain", AuthTokens.sha256(PLAIN), true),
                new AuthToken("lead", AuthTokens.sha256(LEAD), AuthToken.Access.READ_WRITE, null, List.of("team_c"), null, List.of()));
        MetasrvNode node = h.deploy(NodeHarness.settings("a", dir.resolve("a"), 10_000, 0, 1_000).with(f -> f.authTokens = tokens),
                new ManualClock(1_700_000_000_000L), backend(dir));
        assertThat(h.campaign(node).isLeader()).isTrue();
        port = node.httpPort();
        assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"team_c\"]}", ADMIN).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"other\"]}", ADMIN).statusCode()).isEqualTo(200);
        HttpResponse<String> t = call("POST", "/iceberg/v1/namespaces/team_c/tables", "{\"name\":\"t\",\"schema\":{\"type\":\"struct\","
                + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}", ADMIN);
        assertThat(t.statusCode()).as(t.body()).isEqualTo(200);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    HttpResponse<String> call(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String grant(String principal, String ns, String privileges) {
        return "{\"principal\":\"" + principal + "\",\"namespace\":\"" + ns + "\",\"privileges\":[" + privileges + "]}";
    }

    int loadT(String token) throws Exception {
        return call("GET", "/iceberg/v1/namespaces/team_c/tables/t", null, token).statusCode();
    }

    @Test
    void grantsChangedAtRuntimeApplyWithoutRestart() throws Exception {
        assertThat(loadT(TEAM_C)).as("nothing granted yet: hidden").isEqualTo(404);
        HttpResponse<String> granted = call("POST", "/v1/grants", grant("team-c", "team_c", "\"read\""), ADMIN);
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
        JsonObject g = new JsonObject(granted.body());
        assertThat(g.getBoolean("changed")).isTrue();
        assertThat(g.getJsonArray("privileges").getList()).containsExactly("read");
        assertThat(g.getLong("revision")).as("a fenced write, in the change feed").isPositive();
        await().atMost(Duration.ofSeconds(20)).until(() -> loadT(TEAM_C) == 200);

        String commit = "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]}";
        assertThat(call("POST", "/iceberg/v1/namespaces/team_c/tables/t", commit, TEAM_C).statusCode()).as("read only: forbidden").isEqualTo(403);
        assertThat(call("POST", "/v1/grants", grant("team-c", "team_c", "\"write\""), ADMIN).statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> call("POST", "/iceberg/v1/namespaces/team_c/tables/t", commit, TEAM_C).statusCode() == 200);

        HttpResponse<String> listed = call("GET", "/v1/grants?principal=team-c", null, TEAM_C);
        assertThat(listed.statusCode()).as("a principal lists its own grants").isEqualTo(200);
        assertThat(new JsonObject(listed.body()).getJsonArray("grants")).singleElement().satisfies(o -> {
            JsonObject e = (JsonObject) o;
            assertThat(e.getString("namespace")).isEqualTo("team_c");
            assertThat(e.getJsonArray("privileges").getList()).containsExactly("read", "write");
            assertThat(e.getString("by")).isEqualTo("operator");
        });

        HttpResponse<String> revoked = call("POST", "/v1/grants/revoke", "{\"principal\":\"team-c\",\"namespace\":\"team_c\"}", ADMIN);
        assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
        assertThat(new JsonObject(revoked.body()).getJsonArray("privileges").getList()).isEmpty();
        await().atMost(Duration.ofSeconds(20)).until(() -> loadT(TEAM_C) == 404);
        assertThat(new JsonObject(call("GET", "/v1/grants", null, ADMIN).body()).getJsonArray("grants")).isEmpty();
        HttpResponse<String> again = call("POST", "/v1/grants/revoke", "{\"principal\":\"team-c\",\"namespace\":\"team_c\"}", ADMIN);
        assertThat(new JsonObject(again.body()).getBoolean("changed")).as("revoking what is not held writes nothing").isFalse();
    }

    @Test
    void grantsAreManagedOnlyWithinWhatTheManagerHolds() throws Exception {
        try (AuditLog audit = new AuditLog()) {
            HttpResponse<String> byManager = call("POST", "/v1/grants", grant("viewer", "team_c", "\"read\""), MANAGER);
            assertThat(byManager.statusCode()).as(byManager.body()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> loadT(VIEWER) == 200);

            HttpResponse<String> escalate = call("POST", "/v1/grants", grant("team-c", "team_c", "\"write\""), MANAGER);
            assertThat(escalate.statusCode()).as("it may grant only what it holds").isEqualTo(403);
            assertThat(escalate.body()).contains("only privileges it holds");
            assertThat(call("POST", "/v1/grants", grant("team-c", "other", "\"read\""), MANAGER).statusCode())
                    .as("outside its manage-grants").isEqualTo(403);
            assertThat(call("POST", "/v1/grants", grant("team-c", "team_c", "\"read\""), TEAM_C).statusCode())
                    .as("without manage-grants").isEqualTo(403);
            assertThat(call("GET", "/v1/grants", null, TEAM_C).statusCode()).as("every principal's grants: admin only").isEqualTo(403);
            assertThat(call("GET", "/v1/grants?principal=viewer", null, TEAM_C).statusCode()).isEqualTo(403);
            assertThat(call("POST", "/v1/grants", grant("manager", "team_c.x", "\"read\""), MANAGER).statusCode())
                    .as("a manager may not grant to itself: such a grant would outlive the revoke of its manage-grants").isEqualTo(403);
            HttpResponse<String> managed = call("GET", "/v1/grants?namespace=team_c", null, MANAGER);
            assertThat(managed.statusCode()).as("a manager lists the grants within what it manages").isEqualTo(200);
            assertThat(new JsonObject(managed.body()).getJsonArray("grants")).singleElement()
                    .satisfies(o -> assertThat(((JsonObject) o).getString("principal")).isEqualTo("viewer"));
            assertThat(call("GET", "/v1/grants?namespace=other", null, MANAGER).statusCode()).isEqualTo(403);
            assertThat(call("GET", "/v1/grants?namespace=team_c", null, PLAIN).statusCode())
                    .as("a principal configured without grants holds no manage-grants").isEqualTo(403);
            // A manager whose other rights come from `namespaces` (exactly team_c) grants nothing that
            // children would inherit: a namespace grant must be held as one.
            assertThat(call("POST", "/v1/grants", grant("lead", "team_c", "\"manage-grants\""), ADMIN).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> call("GET", "/v1/grants?namespace=team_c", null, LEAD).statusCode() == 200);
            HttpResponse<String> inherited = call("POST", "/v1/grants", grant("team-c", "team_c", "\"create\""), LEAD);
            assertThat(inherited.statusCode()).as(inherited.body()).isEqualTo(403);
            assertThat(inherited.body()).contains("only privileges it holds");
            assertThat(call("POST", "/v1/grants/revoke", "{\"principal\":\"lead\",\"namespace\":\"team_c\"}", ADMIN).statusCode()).isEqualTo(200);
            assertThat(call("POST", "/v1/grants/revoke", "{\"principal\":\"viewer\",\"namespace\":\"team_c\"}", MANAGER).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> loadT(VIEWER) == 404);

            assertThat(new JsonObject(call("GET", "/v1/grants", null, ADMIN).body()).getJsonArray("grants")).as("the refusals wrote nothing").isEmpty();
            assertThat(audit.lines("admin")).anySatisfy(l -> {
                assertThat(l.getString("principal")).isEqualTo("manager");
                assertThat(l.getString("op")).isEqualTo("grant");
                assertThat(l.getString("grantee")).isEqualTo("viewer");
                assertThat(l.getString("namespace")).isEqualTo("team_c");
                assertThat(l.getValue("name")).isNull();
                assertThat(l.getJsonArray("privileges").getList()).containsExactly("read");
                assertThat(l.getJsonArray("held").getList()).containsExactly("read");
                assertThat(l.getBoolean("changed")).isTrue();
                assertThat(l.getLong("revision")).isPositive();
                assertThat(l.getString("outcome")).isEqualTo("ok");
            });
            assertThat(audit.lines("refused")).anySatisfy(l -> {
                assertThat(l.getString("principal")).isEqualTo("manager");
                assertThat(l.getString("grantee")).isEqualTo("team-c");
                assertThat(l.getInteger("outcome")).isEqualTo(403);
            });
        }
    }

    @Test
    void lakectlAndTheJavaClientManageGrants() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.util.Map<String, String> env = java.util.Map.of("LAKECTL_TOKEN", ADMIN, "LAKECTL_ENDPOINTS", "http://127.0.0.1:" + port);
        int added = lake.cli.Lakectl.run(new String[] {"grant", "add", "team-c", "team_c", "read", "write", "--name", "t"},
                new java.io.ByteArrayInputStream(new byte[0]), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true), env);
        assertThat(added).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("team-c on team_c.t: read,write (revision ");
        await().atMost(Duration.ofSeconds(20)).until(() -> loadT(TEAM_C) == 200);

        try (lake.client.MetasrvClient client = lake.client.MetasrvClient.httpBlocking(lake.client.model.ClientOptions.defaults()
                .withEndpoints("http://127.0.0.1:" + port).withToken(ADMIN).withCallTimeout(Duration.ofSeconds(10)))) {
            List<lake.wire.grants.Grant> listed = client.grants("team-c").toCompletionStage().toCompletableFuture().get();
            assertThat(listed).singleElement().satisfies(g -> {
                assertThat(g.name()).isEqualTo("t");
                assertThat(g.privileges()).containsExactly("read", "write");
                assertThat(g.by()).isEqualTo("operator");
            });
            lake.wire.grants.GrantChange revoked = client.revoke("team-c", "team_c", "t", List.of("write"))
                    .toCompletionStage().toCompletableFuture().get();
            assertThat(revoked.changed()).isTrue();
            assertThat(revoked.privileges()).containsExactly("read");
        }
        out.reset();
        int revoked = lake.cli.Lakectl.run(new String[] {"grant", "revoke", "team-c", "team_c", "--name", "t"},
                new java.io.ByteArrayInputStream(new byte[0]), new java.io.PrintStream(out, true), new java.io.PrintStream(err, true), env);
        assertThat(revoked).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("team-c on team_c.t: (nothing) (revision ");
        await().atMost(Duration.ofSeconds(20)).until(() -> loadT(TEAM_C) == 404);
        out.reset();
        int refused = lake.cli.Lakectl.run(new String[] {"grant", "add", "team-c", "team_c", "read"}, new java.io.ByteArrayInputStream(new byte[0]),
                new java.io.PrintStream(out, true), new java.io.PrintStream(err, true),
                java.util.Map.of("LAKECTL_TOKEN", TEAM_C, "LAKECTL_ENDPOINTS", "http://127.0.0.1:" + port));
        assertThat(refused).as("forbidden: exit 5").isEqualTo(5);
    }

    @Test
    void aRevokeReachesAnOpenEventStream() throws Exception {
        assertThat(call("POST", "/iceberg/v1/namespaces/other/tables", "{\"name\":\"u\",\"schema\":{\"type\":\"struct\","
                + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}", ADMIN).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/v1/grants", grant("team-c", "team_c", "\"read\""), ADMIN).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/v1/grants", grant("team-c", "other", "\"read\""), ADMIN).statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> loadT(TEAM_C) == 200);
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpRequest sse = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/catalog/events"))
                .header("Authorization", "Bearer " + TEAM_C).header("Accept", "text/event-stream").build();
        java.util.concurrent.CompletableFuture<HttpResponse<java.util.stream.Stream<String>>> stream =
                HTTP.sendAsync(sse, HttpResponse.BodyHandlers.ofLines());
        stream.thenAccept(r -> r.body().forEach(lines::add));
        String commit = "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"%s\"}}]}";
        assertThat(call("POST", "/iceberg/v1/namespaces/team_c/tables/t", commit.formatted("before"), ADMIN).statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> lines.stream().anyMatch(l -> l.contains("\"team_c\"")));

        assertThat(call("POST", "/v1/grants/revoke", "{\"principal\":\"team-c\",\"namespace\":\"team_c\"}", ADMIN).statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> loadT(TEAM_C) == 404);
        int seen = lines.size();
        assertThat(call("POST", "/iceberg/v1/namespaces/team_c/tables/t", commit.formatted("after"), ADMIN).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/iceberg/v1/namespaces/other/tables/u", commit.formatted("marker"), ADMIN).statusCode()).isEqualTo(200);
        // Events come in revision order: once the later commit to `other` arrives, the one to team_c was passed over.
        await().atMost(Duration.ofSeconds(20)).until(() -> lines.subList(seen, lines.size()).stream().anyMatch(l -> l.contains("\"other\"")));
        assertThat(lines.subList(seen, lines.size())).as("the open stream no longer shows team_c").noneMatch(l -> l.contains("team_c"));
        stream.cancel(true);
    }

    @Test
    void grantRequestsAreStrictAndRefusedWholly() throws Exception {
        String[][] bad = {
                {grant("team-c", "team_c", "\"delete\""), "unknown privilege delete"},
                {"{\"principal\":\"team-c\",\"namespace\":\"team_c\",\"privileges\":[\"read\"],\"table\":\"t\"}", "'table'"},
                {grant("team\\u0007c", "team_c", "\"read\""), "field 'principal'"},
                {grant("x".repeat(256), "team_c", "\"read\""), "field 'principal'"},
                {grant("team-c", "team_c", ""), "field 'privileges' must be a non-empty array"},
                {"{\"principal\":\"team-c\",\"privileges\":[\"read\"]}", "'namespace'"},
                {grant("operator", "team_c", "\"read\""), "as an admin"},
                {grant("viewer", "team_c", "\"read\",\"write\""), "read-only"},
        };
        for (String[] b : bad) {
            HttpResponse<String> r = call("POST", "/v1/grants", b[0], ADMIN);
            assertThat(r.statusCode()).as(b[0] + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(b[0]).contains(b[1]);
        }
        assertThat(call("GET", "/v1/grants?user=x", null, ADMIN).statusCode()).isEqualTo(400);
        assertThat(new JsonObject(call("GET", "/v1/grants", null, ADMIN).body()).getJsonArray("grants")).as("nothing was written").isEmpty();
    }
}
