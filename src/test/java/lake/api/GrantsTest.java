package lake.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import lake.bus.Bus;
import lake.config.AuthTokens;
import lake.config.SecuritySettings;
import lake.config.Settings;
import lake.node.AuditLog;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.protocol.Ops;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static lake.node.ApiFixture.b64;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Roles and grants over real HTTP and the real event bus, with the principals read from a real
 * tokens file that is rewritten while the node runs. Four principals: an admin, a read-write and a
 * read-only one granted {@code tables/robots/} and namespace {@code robots}, and a read-write one
 * without grants (an entry as written before grants existed). "Inside" is the robots key or
 * namespace, "outside" the cars one.
 */
class GrantsTest {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String ROBOTS_RW = "robots-rw-token-0123456789ab";
    static final String ROBOTS_RO = "robots-ro-token-0123456789ab";
    static final String ALL_RW = "all-rw-token-0123456789abcdef";
    static final List<String> TOKENS = List.of(ADMIN, ROBOTS_RW, ROBOTS_RO, ALL_RW);

    @TempDir Path dir;
    NodeHarness h;
    MetasrvNode node;
    Path tokensFile;
    AuditLog audit;
    final AtomicInteger unique = new AtomicInteger();

    static String entry(String name, String access, String token, String grants) {
        return "{\"name\":\"" + name + "\",\"access\":\"" + access + "\",\"token_sha256\":\""
                + HexFormat.of().formatHex(AuthTokens.sha256(token)) + "\"" + grants + "}";
    }

    static final String ROBOTS_GRANTS = ",\"prefixes\":[\"tables/robots/\"],\"namespaces\":[\"robots\"]";

    void writeTokens(String... entries) throws Exception {
        Path tmp = dir.resolve("tokens.tmp");
        Files.writeString(tmp, "[" + String.join(",", entries) + "]");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        // Renamed into place, as operators (and config management) replace a file: never half-written.
        Files.move(tmp, tokensFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    void writeAllTokens() throws Exception {
        writeTokens(entry("admin", "admin", ADMIN, ""), entry("robots-rw", "read-write", ROBOTS_RW, ROBOTS_GRANTS),
                entry("robots-ro", "read", ROBOTS_RO, ROBOTS_GRANTS), entry("all-rw", "read-write", ALL_RW, ""));
    }

    @BeforeEach
    void leaderWithTokensFile() throws Exception {
        audit = new AuditLog();
        tokensFile = dir.resolve("tokens.json");
        writeAllTokens();
        h = new NodeHarness();
        Settings s = NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> {
            f.authTokens = AuthTokens.withFile(List.of(), tokensFile);
            f.security = new SecuritySettings(tokensFile, List.of());
        });
        node = h.publicLeader(s);
        for (String ns : List.of("robots", "cars")) {
            assertThat(http(HttpMethod.POST, "/v1/namespaces", ADMIN, new JsonObject().put("namespace", ns)).statusCode()).isEqualTo(200);
            HttpResponse<Buffer> table = http(HttpMethod.POST, "/v1/namespaces/" + ns + "/tables", ALL_RW,
                    new JsonObject().put("name", "t").put("columns", new JsonArray().add("id:i64")));
            assertThat(table.statusCode()).as(table.bodyAsString()).isEqualTo(200);
            assertThat(http(HttpMethod.POST, "/v1/kv/cas", ALL_RW, create("tables/" + ns + "/k")).statusCode()).isEqualTo(200);
        }
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
        audit.close();
        audit.assertNoLineContains(TOKENS.toArray(String[]::new));
        for (String t : TOKENS) audit.assertNoLineContains(HexFormat.of().formatHex(AuthTokens.sha256(t)));
    }

    static JsonObject create(String key) {
        return new JsonObject().put("key", key).putNull("expected").put("value", b64("v"));
    }

    HttpResponse<Buffer> http(HttpMethod method, String uri, String token, JsonObject body) throws Exception {
        HttpRequest<Buffer> req = h.http.request(method, node.httpPort(), "127.0.0.1", uri);
        if (token != null) req.putHeader("Authorization", "Bearer " + token);
        return NodeHarness.await(body == null ? req.send() : req.sendJsonObject(body));
    }

    /** The bus answer's status: 200, or the ReplyException's failure code. */
    int bus(String address, JsonObject body, String token) throws Exception {
        try {
            NodeHarness.await(h.vertx.eventBus().request(address, body, new DeliveryOptions().addHeader(Bus.TOKEN_HEADER, token)));
            return 200;
        } catch (ReplyException e) {
            return e.failureCode();
        }
    }

    /** One operation, inside or outside the robots grants, over either ingress; answers the status. */
    interface Call {
        int run(String token, boolean inside, boolean overHttp) throws Exception;
    }

    record Op(String name, Call call, Map<String, boolean[]> allowed) {}

    /** {inside, outside} per principal. */
    static Map<String, boolean[]> rule(boolean admin, boolean robotsRw, boolean robotsRo, boolean allRwInside, boolean outsideForAll) {
        return Map.of(ADMIN, new boolean[] {admin, admin}, ROBOTS_RW, new boolean[] {robotsRw, false},
                ROBOTS_RO, new boolean[] {robotsRo, false}, ALL_RW, new boolean[] {allRwInside, outsideForAll});
    }

    static final Map<String, boolean[]> READ = rule(true, true, true, true, true);
    static final Map<String, boolean[]> WRITE = rule(true, true, false, true, true);
    static final Map<String, boolean[]> ADMIN_ONLY = Map.of(ADMIN, new boolean[] {true, true}, ROBOTS_RW, new boolean[] {false, false},
            ROBOTS_RO, new boolean[] {false, false}, ALL_RW, new boolean[] {false, false});
    /** Whole-catalog reads: no principal with grants, inside or out. */
    static final Map<String, boolean[]> UNRESTRICTED = Map.of(ADMIN, new boolean[] {true, true}, ROBOTS_RW, new boolean[] {false, false},
            ROBOTS_RO, new boolean[] {false, false}, ALL_RW, new boolean[] {true, true});

    static String ns(boolean inside) {
        return inside ? "robots" : "cars";
    }

    int either(boolean overHttp, HttpMethod method, String uri, String token, JsonObject httpBody, String address, JsonObject busBody)
            throws Exception {
        return overHttp ? http(method, uri, token, httpBody).statusCode() : bus(address, busBody, token);
    }

    List<Op> ops() {
        List<Op> ops = new ArrayList<>();
        ops.add(new Op("get", (t, in, web) -> either(web, HttpMethod.GET, "/v1/kv/tables/" + ns(in) + "/k", t, null,
                Bus.KV_GET, new JsonObject().put("key", "tables/" + ns(in) + "/k")), READ));
        ops.add(new Op("scan", (t, in, web) -> either(web, HttpMethod.GET, "/v1/kv?prefix=tables/" + ns(in) + "/", t, null,
                Bus.KV_SCAN, new JsonObject().put("prefix", "tables/" + ns(in) + "/")), READ));
        ops.add(new Op("cas", (t, in, web) -> {
            JsonObject b = create("tables/" + ns(in) + "/cas-" + unique.incrementAndGet());
            return either(web, HttpMethod.POST, "/v1/kv/cas", t, b, Bus.KV_CAS, b);
        }, WRITE));
        ops.add(new Op("delete", (t, in, web) -> {
            JsonObject b = new JsonObject().put("key", "tables/" + ns(in) + "/absent").put("expected", b64("v"));
            return either(web, HttpMethod.POST, "/v1/kv/delete", t, b, Bus.KV_DELETE, b);
        }, WRITE));
        ops.add(new Op("txn", (t, in, web) -> {
            // Outside: one key inside the grant and one outside; the whole transaction is refused.
            String first = "tables/robots/txn-" + unique.incrementAndGet();
            JsonObject b = new JsonObject().put("ops", new JsonArray()
                    .add(new JsonObject().put("key", first).putNull("expected").put("value", b64("v")))
                    .add(new JsonObject().put("key", "tables/" + ns(in) + "/txn-" + unique.incrementAndGet()).put("value", b64("v"))));
            int status = either(web, HttpMethod.POST, "/v1/txn", t, b, Bus.KV_TXN, b);
            if (status == 403) {
                assertThat(http(HttpMethod.GET, "/v1/kv/" + first, ADMIN, null).statusCode()).as("nothing of a refused txn is written")
                        .isEqualTo(404);
            }
            return status;
        }, WRITE));
        ops.add(new Op("get-namespace", (t, in, web) -> either(web, HttpMethod.GET, "/v1/namespaces/" + ns(in), t, null,
                lake.protocol.Ops.catalogAddress(Ops.GET_NAMESPACE), new JsonObject().put("namespace", ns(in))), READ));
        ops.add(new Op("list-tables", (t, in, web) -> either(web, HttpMethod.GET, "/v1/namespaces/" + ns(in) + "/tables", t, null,
                Ops.catalogAddress(Ops.LIST_TABLES), new JsonObject().put("namespace", ns(in))), READ));
        ops.add(new Op("resolve", (t, in, web) -> either(web, HttpMethod.GET, "/v1/namespaces/" + ns(in) + "/tables/t", t, null,
                Ops.catalogAddress(Ops.RESOLVE), new JsonObject().put("namespace", ns(in)).put("name", "t")), READ));
        ops.add(new Op("create-table", (t, in, web) -> {
            String name = "t" + unique.incrementAndGet();
            JsonObject cols = new JsonObject().put("columns", new JsonArray().add("id:i64"));
            return either(web, HttpMethod.POST, "/v1/namespaces/" + ns(in) + "/tables", t, cols.copy().put("name", name),
                    Ops.catalogAddress(Ops.CREATE_TABLE), cols.copy().put("name", name).put("namespace", ns(in)));
        }, WRITE));
        ops.add(new Op("snapshot", (t, in, web) -> either(web, HttpMethod.GET, "/v1/catalog", t, null,
                Ops.catalogAddress(Ops.SNAPSHOT), new JsonObject()), UNRESTRICTED));
        ops.add(new Op("list-tombstones", (t, in, web) -> either(web, HttpMethod.GET, "/v1/catalog/tombstones", t, null,
                Ops.catalogAddress(Ops.LIST_TOMBSTONES), new JsonObject()), UNRESTRICTED));
        ops.add(new Op("create-namespace", (t, in, web) -> {
            JsonObject b = new JsonObject().put("namespace", (in ? "robots" : "cars") + "-made-" + unique.incrementAndGet());
            return either(web, HttpMethod.POST, "/v1/namespaces", t, b, Ops.catalogAddress(Ops.CREATE_NAMESPACE), b);
        }, ADMIN_ONLY));
        ops.add(new Op("drop-namespace", (t, in, web) -> {
            String absent = "gone-" + unique.incrementAndGet();
            return either(web, HttpMethod.DELETE, "/v1/namespaces/" + absent, t, null,
                    Ops.catalogAddress(Ops.DROP_NAMESPACE), new JsonObject().put("namespace", absent));
        }, ADMIN_ONLY));
        ops.add(new Op("purge-tombstone", (t, in, web) -> {
            JsonObject b = new JsonObject().put("namespace", ns(in)).put("name", "t").put("incarnation_id", "absent");
            return either(web, HttpMethod.DELETE, "/v1/catalog/tombstones/" + ns(in) + "/t/absent", t, null,
                    Ops.catalogAddress(Ops.PURGE_TOMBSTONE), b);
        }, ADMIN_ONLY));
        return ops;
    }

    @Test
    void grantsMatrixHolds() throws Exception {
        List<String> wrong = new ArrayList<>();
        int refusals = 0;
        for (Op op : ops()) {
            for (String token : TOKENS) {
                for (boolean inside : new boolean[] {true, false}) {
                    for (boolean overHttp : new boolean[] {true, false}) {
                        boolean expected = op.allowed().get(token)[inside ? 0 : 1];
                        int audited = audit.lines("refused").size();
                        int status = op.call().run(token, inside, overHttp);
                        // A refusal is audited: 403, or 404 for a catalog object the principal may not see
                        // (answered as absent, so the status alone cannot tell it from a missing one).
                        boolean allowed = audit.lines("refused").size() == audited;
                        if (!allowed && status != 403 && status != 404) wrong.add(op.name() + ": refused with " + status);
                        if (!expected) refusals++;
                        if (allowed != expected || status == 401 || status >= 500) {
                            wrong.add(op.name() + " by " + token.substring(0, token.indexOf("-token")) + (inside ? " inside" : " outside")
                                    + (overHttp ? " over HTTP" : " over the bus") + ": " + status);
                        }
                    }
                }
            }
        }
        assertThat(wrong).as("every role x operation x inside/outside x ingress").isEmpty();
        assertThat(audit.lines("refused")).as("one audit line per refusal").hasSize(refusals)
                .allSatisfy(l -> assertThat(l.getInteger("outcome")).isIn(403, 404));
        assertThat(http(HttpMethod.GET, "/v1/kv/tables/cars/k", ADMIN, null).bodyAsJsonObject().getString("value"))
                .as("the outside key kept its value").isEqualTo(b64("v"));

        // Listing namespaces: a principal with grants sees only its own; the others see every one.
        for (boolean overHttp : new boolean[] {true, false}) {
            for (String token : TOKENS) {
                JsonObject page = overHttp ? http(HttpMethod.GET, "/v1/namespaces", token, null).bodyAsJsonObject()
                        : NodeHarness.await(h.vertx.eventBus().<JsonObject>request(Ops.catalogAddress(Ops.LIST_NAMESPACES),
                                new JsonObject(), new DeliveryOptions().addHeader(Bus.TOKEN_HEADER, token))).body();
                if (token.equals(ROBOTS_RW) || token.equals(ROBOTS_RO)) {
                    assertThat(page.getJsonArray("namespaces")).as(token).containsExactly("robots");
                } else {
                    assertThat(page.getJsonArray("namespaces")).as(token).contains("robots", "cars");
                }
            }
        }

        // Resign, last (it hands the lease away): admin only, on both ingresses; the refusals change nothing.
        for (String token : List.of(ROBOTS_RW, ROBOTS_RO, ALL_RW)) {
            assertThat(http(HttpMethod.POST, "/v1/leader/resign", token, null).statusCode()).isEqualTo(403);
            assertThat(bus(Bus.LEADER_RESIGN, new JsonObject(), token)).isEqualTo(403);
        }
        assertThat(h.status(node).isLeader()).as("refused resigns left the lease alone").isTrue();
        assertThat(bus(Bus.LEADER_RESIGN, new JsonObject(), ADMIN)).isEqualTo(200);
        assertThat(h.status(node).isLeader()).isFalse();
        assertThat(audit.lines("admin")).anySatisfy(l -> {
            assertThat(l.getString("op")).isEqualTo("resign");
            assertThat(l.getString("principal")).isEqualTo("admin");
            assertThat(l.getString("ingress")).isEqualTo("bus");
            assertThat(l.getString("outcome")).isEqualTo("ok");
        });
    }

    @Test
    void revokedTokenStopsWorkingWithoutRestart() throws Exception {
        assertThat(http(HttpMethod.GET, "/v1/kv/tables/robots/k", ROBOTS_RW, null).statusCode()).isEqualTo(200);

        // Revoked by rewriting the file: the node notices the change by itself.
        writeTokens(entry("admin", "admin", ADMIN, ""), entry("robots-ro", "read", ROBOTS_RO, ROBOTS_GRANTS),
                entry("all-rw", "read-write", ALL_RW, ""));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(http(HttpMethod.GET, "/v1/kv/tables/robots/k", ROBOTS_RW, null).statusCode()).isEqualTo(401));
        assertThat(bus(Bus.KV_GET, new JsonObject().put("key", "tables/robots/k"), ROBOTS_RW)).isEqualTo(401);
        assertThat(http(HttpMethod.GET, "/v1/kv/tables/robots/k", ROBOTS_RO, null).statusCode()).as("the others still work").isEqualTo(200);

        // Added back, applied at once by a reload (what SIGHUP does).
        writeAllTokens();
        NodeHarness.await(node.reloadSecurity("SIGHUP"));
        assertThat(http(HttpMethod.POST, "/v1/kv/cas", ROBOTS_RW, create("tables/robots/back")).statusCode()).isEqualTo(200);

        // A malformed file keeps the set in use, and the log says why.
        Files.writeString(tokensFile, "[{\"name\":\"broken\"");
        NodeHarness.await(node.reloadSecurity("SIGHUP"));
        assertThat(http(HttpMethod.GET, "/v1/kv/tables/robots/back", ROBOTS_RW, null).statusCode()).isEqualTo(200);
        assertThat(audit.lines("reload")).anySatisfy(l -> {
            assertThat(l.getString("outcome")).isEqualTo("refused");
            assertThat(l.getString("detail")).contains("auth-tokens-file").contains("not a JSON array");
        }).anySatisfy(l -> {
            assertThat(l.getString("outcome")).isEqualTo("applied");
            assertThat(l.getString("detail")).contains("robots-rw");
        });
        // An entry that does not check (an admin with grants) is refused whole too, naming the entry.
        writeTokens(entry("admin", "admin", ADMIN, ROBOTS_GRANTS));
        NodeHarness.await(node.reloadSecurity("SIGHUP"));
        assertThat(http(HttpMethod.GET, "/v1/kv/tables/robots/back", ROBOTS_RW, null).statusCode()).isEqualTo(200);
        assertThat(audit.lines("reload")).anySatisfy(l -> assertThat(l.getString("detail")).contains("entry 'admin'"));
        // Found by the review: an emptied file (every principal revoked) turned access control off,
        // opening the node to anonymous writes. It is refused; the set in use stays.
        Files.writeString(tokensFile, "[]");
        NodeHarness.await(node.reloadSecurity("SIGHUP"));
        assertThat(http(HttpMethod.POST, "/v1/kv/cas", null, create("tables/robots/anonymous")).statusCode())
                .as("still needs a token").isEqualTo(401);
        assertThat(http(HttpMethod.GET, "/v1/kv/tables/robots/back", ROBOTS_RW, null).statusCode()).isEqualTo(200);
        assertThat(audit.lines("reload")).anySatisfy(l -> {
            assertThat(l.getString("outcome")).isEqualTo("refused");
            assertThat(l.getString("detail")).contains("turn access control off");
        });
        // The refused 401s were audited without a principal, by ingress.
        assertThat(audit.lines("refused")).filteredOn(l -> l.getInteger("outcome") == 401)
                .extracting(l -> l.getString("ingress")).contains("http", "bus");
    }

    /** One audit line per refusal kind (401 missing, 401 wrong, 403 per rule) and per admin action, on either ingress. */
    @Test
    void auditRecordsEveryRefusalAndAdminAction() throws Exception {
        http(HttpMethod.GET, "/v1/kv/tables/robots/k", null, null);
        bus(Bus.KV_GET, new JsonObject().put("key", "tables/robots/k"), "wrong-token-0123456789abc");
        http(HttpMethod.POST, "/v1/kv/cas", ROBOTS_RO, create("tables/robots/ro"));
        bus(Bus.KV_GET, new JsonObject().put("key", "tables/cars/k"), ROBOTS_RW);
        http(HttpMethod.GET, "/v1/kv?prefix=tables/", ROBOTS_RW, null);
        http(HttpMethod.GET, "/v1/namespaces/cars/tables", ROBOTS_RW, null);
        http(HttpMethod.GET, "/v1/catalog", ROBOTS_RW, null);
        http(HttpMethod.POST, "/v1/namespaces", ALL_RW, new JsonObject().put("namespace", "planes"));
        List<JsonObject> refused = audit.lines("refused");
        assertThat(refused).extracting(l -> l.getString("ingress") + " " + l.getInteger("outcome") + " " + l.getString("principal")
                + " " + l.getString("op")).containsExactly(
                "http 401 null GET /v1/kv/tables/robots/k", "bus 401 null get", "http 403 robots-ro cas", "bus 403 robots-rw get",
                "http 403 robots-rw scan", "http 404 robots-rw list-tables", "http 403 robots-rw snapshot", "http 403 all-rw create-namespace");
        assertThat(refused.get(3).getString("key")).isEqualTo("tables/cars/k");
        assertThat(refused.get(4).getString("prefix")).isEqualTo("tables/");
        assertThat(refused.get(5).getString("namespace")).isEqualTo("cars");
        assertThat(refused).allSatisfy(l -> assertThat(l.getString("time")).isNotBlank().endsWith("Z"))
                .allSatisfy(l -> assertThat(l.getString("reason")).isNotBlank());

        int before = audit.lines("admin").size();
        assertThat(http(HttpMethod.POST, "/v1/namespaces", ADMIN, new JsonObject().put("namespace", "planes")).statusCode()).isEqualTo(200);
        assertThat(bus(Ops.catalogAddress(Ops.DROP_NAMESPACE), new JsonObject().put("namespace", "planes"), ADMIN)).isEqualTo(200);
        assertThat(http(HttpMethod.DELETE, "/v1/namespaces/robots/tables/t", ALL_RW, null).statusCode()).isEqualTo(200);
        String incarnation = http(HttpMethod.GET, "/v1/catalog/tombstones", ADMIN, null).bodyAsJsonObject()
                .getJsonArray("tombstones").getJsonObject(0).getString("incarnation_id");
        assertThat(http(HttpMethod.DELETE, "/v1/catalog/tombstones/robots/t/" + incarnation, ADMIN, null).statusCode()).isEqualTo(200);
        assertThat(http(HttpMethod.POST, "/v1/leader/resign", ADMIN, null).statusCode()).isEqualTo(200);
        assertThat(audit.lines("admin").subList(before, audit.lines("admin").size()))
                .extracting(l -> l.getString("ingress") + " " + l.getString("principal") + " " + l.getString("op") + " "
                        + l.getString("namespace") + " " + l.getString("outcome"))
                .containsExactly("http admin create-namespace planes ok", "bus admin drop-namespace planes ok",
                        "http admin purge-tombstone robots ok", "http admin resign null ok");
    }
}
