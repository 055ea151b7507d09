package lake.catalogapi;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.api.RecordedLeaderTest;
import lake.node.NodeHarness;
import lake.protocol.Ops;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.expectError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalog through the service, over real HTTP and the bus, on every backend: each operation
 * answers as documented, every catalog write reaches the store as one guarded transaction, the
 * catalog's keys cannot be written through the KV API, bad input is refused before the store, and
 * long polls answer soon after a change.
 */
abstract class CatalogApiContract extends RecordedLeaderTest {
    HttpResponse<Buffer> post(String uri, JsonObject body) throws Exception {
        return h.post(node, uri, body);
    }

    JsonObject ok(HttpResponse<Buffer> r) {
        assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
        return r.bodyAsJsonObject();
    }

    void createTable(String ns, String name) throws Exception {
        ok(post("/v1/namespaces/" + ns + "/tables", new JsonObject().put("name", name).put("columns", new JsonArray().add("id:i64"))));
    }

    @Test
    void catalogAnswersAsDocumented() throws Exception {
        JsonObject ns = ok(post("/v1/namespaces", new JsonObject().put("namespace", "robots").put("properties", new JsonObject().put("owner", "lab"))));
        // A write's reply names the revision of its change record (docs/watch.md).
        assertThat(ns.getLong("revision")).isPositive();
        assertThat(ns.copy().put("revision", 0)).isEqualTo(new JsonObject().put("namespace", "robots")
                .put("properties", new JsonObject().put("owner", "lab")).put("revision", 0));
        expectError(post("/v1/namespaces", new JsonObject().put("namespace", "robots")), 409, "already_exists", "robots");
        assertThat(ok(h.get(node, "/v1/namespaces/robots")).getJsonObject("properties").getString("owner")).isEqualTo("lab");
        expectError(h.get(node, "/v1/namespaces/absent"), 404, "not_found", "absent");

        JsonObject created = ok(post("/v1/namespaces/robots/tables", new JsonObject().put("name", "episodes")
                .put("columns", new JsonArray().add("id:i64").add("video:file"))));
        JsonObject reg = created.getJsonObject("registration");
        assertThat(reg.fieldNames()).containsExactly("location", "engine", "current_version", "incarnation_id", "columns");
        String incarnation = reg.getString("incarnation_id");
        assertThat(reg.getString("location")).endsWith("/robots/episodes/" + incarnation);
        assertThat(reg.getString("engine")).isEqualTo("lance");
        assertThat(reg.getLong("current_version")).isZero();
        expectError(post("/v1/namespaces/robots/tables", new JsonObject().put("name", "episodes").put("columns", new JsonArray())),
                409, "already_exists", "episodes");
        expectError(post("/v1/namespaces/nowhere/tables", new JsonObject().put("name", "t").put("columns", new JsonArray())),
                404, "not_found", "nowhere");
        createTable("robots", "frames");

        assertThat(ok(h.get(node, "/v1/namespaces/robots/tables?limit=1")).getJsonArray("names")).containsExactly("episodes");
        assertThat(ok(h.get(node, "/v1/namespaces/robots/tables")).getJsonArray("names")).containsExactly("episodes", "frames");
        assertThat(ok(h.get(node, "/v1/namespaces")).getJsonArray("namespaces")).containsExactly("robots");
        assertThat(ok(h.get(node, "/v1/namespaces/robots/tables/episodes")).getJsonObject("registration")).isEqualTo(reg);

        JsonObject committed = ok(post("/v1/namespaces/robots/tables/episodes/versions",
                new JsonObject().put("expected_version", 0).put("version", 7).put("incarnation_id", incarnation)));
        assertThat(committed.getJsonObject("registration").getLong("current_version")).isEqualTo(7L);
        expectError(post("/v1/namespaces/robots/tables/episodes/versions", new JsonObject().put("expected_version", 0).put("version", 8)),
                409, "version_conflict", "7");
        expectError(post("/v1/namespaces/robots/tables/episodes/versions",
                new JsonObject().put("expected_version", 7).put("version", 8).put("incarnation_id", "0190b6f8-0000-7000-8000-000000000000")),
                409, "incarnation_mismatch", "episodes");

        JsonObject before = ok(h.get(node, "/v1/catalog"));
        assertThat(before.getString("status")).isEqualTo("snapshot");
        assertThat(before.getJsonArray("tables")).hasSize(2);
        String generation = before.getString("generation");
        assertThat(ok(h.get(node, "/v1/catalog?known_generation=" + generation)))
                .isEqualTo(new JsonObject().put("status", "not_modified").put("generation", generation));

        expectError(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots", null), 409, "namespace_not_empty", "robots");
        JsonObject tombstone = ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/episodes", null));
        assertThat(tombstone.getString("incarnation_id")).isEqualTo(incarnation);
        assertThat(tombstone.getJsonObject("registration").getLong("current_version")).isEqualTo(7L);
        expectError(h.get(node, "/v1/namespaces/robots/tables/episodes"), 404, "not_found", "episodes");
        assertThat(ok(h.get(node, "/v1/catalog?known_generation=" + generation)).getString("status")).as("a drop changes the generation")
                .isEqualTo("snapshot");
        JsonArray tombstones = ok(h.get(node, "/v1/catalog/tombstones")).getJsonArray("tombstones");
        assertThat(tombstones).hasSize(1);
        ok(h.send(node, HttpMethod.DELETE, "/v1/catalog/tombstones/robots/episodes/" + incarnation, null));
        assertThat(ok(h.get(node, "/v1/catalog/tombstones")).getJsonArray("tombstones")).isEmpty();
        ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/frames", null));
        ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots", null));
        assertThat(ok(h.get(node, "/v1/namespaces")).getJsonArray("namespaces")).isEmpty();

        // The same operations on the bus.
        Message<JsonObject> viaBus = NodeHarness.await(h.vertx.eventBus().request(Ops.catalogAddress(Ops.CREATE_NAMESPACE),
                new JsonObject().put("namespace", "bus")));
        assertThat(viaBus.body().getString("namespace")).isEqualTo("bus");
        Message<JsonObject> table = NodeHarness.await(h.vertx.eventBus().request(Ops.catalogAddress(Ops.CREATE_TABLE),
                new JsonObject().put("namespace", "bus").put("name", "t").put("columns", new JsonArray().add("x:utf8"))));
        assertThat(table.body().getJsonObject("registration").getJsonArray("columns").getJsonObject(0))
                .isEqualTo(new JsonObject().put("name", "x").put("type", "utf8"));
    }

    /** Undrop over HTTP and the bus: the same incarnation back, refused while the name is taken, to another name on request. */
    @Test
    void undropAnswersAsDocumented() throws Exception {
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "robots")));
        createTable("robots", "episodes");
        JsonObject dropped = ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/episodes", null));
        String incarnation = dropped.getString("incarnation_id");
        assertThat(dropped.getLong("dropped_ms")).isPositive();
        assertThat(ok(h.get(node, "/v1/catalog/tombstones")).getJsonArray("tombstones").getJsonObject(0).getLong("dropped_ms"))
                .isEqualTo(dropped.getLong("dropped_ms"));
        createTable("robots", "episodes");

        expectError(post("/v1/namespaces/robots/tables/episodes/undrop", new JsonObject()), 409, "already_exists", "robots.episodes' exists; undrop under another name");
        expectError(post("/v1/namespaces/robots/tables/episodes/undrop", new JsonObject().put("to_name", "x").put("extra", 1)), 400, "invalid_argument", "extra");
        expectError(post("/v1/namespaces/robots/tables/never/undrop", new JsonObject()), 404, "not_found", "robots.never");
        JsonObject back = ok(post("/v1/namespaces/robots/tables/episodes/undrop", new JsonObject().put("incarnation_id", incarnation)
                .put("to_name", "restored")));
        assertThat(back.getString("name")).isEqualTo("restored");
        assertThat(back.getJsonObject("registration").getString("incarnation_id")).isEqualTo(incarnation);
        assertThat(back.getLong("revision")).isPositive();
        assertThat(ok(h.get(node, "/v1/namespaces/robots/tables/restored")).getJsonObject("registration").getString("incarnation_id"))
                .isEqualTo(incarnation);
        assertThat(ok(h.get(node, "/v1/catalog/tombstones")).getJsonArray("tombstones")).isEmpty();

        // On the bus, the name's only dropped incarnation when none is named, back to its own name.
        ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/restored", null));
        Message<JsonObject> viaBus = NodeHarness.await(h.vertx.eventBus().request(Ops.catalogAddress(Ops.UNDROP_TABLE),
                new JsonObject().put("namespace", "robots").put("name", "restored")));
        assertThat(viaBus.body().getJsonObject("registration").getString("incarnation_id")).isEqualTo(incarnation);
        assertThat(ok(h.get(node, "/v1/namespaces/robots/tables")).getJsonArray("names")).containsExactly("episodes", "restored");
    }

    /**
     * The purge queue over HTTP and the bus: a drop with {@code purge=true} queues its purge in
     * the drop's transaction; {@code purge-table} queues another's now; the queue lists both as
     * {@code queued} (the tests' worker idles); tombstones say when their retention ends; an undrop
     * cancels a queued purge; bad input is refused before the store.
     */
    @Test
    void purgeQueueAnswersAsDocumented() throws Exception {
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "robots")));
        createTable("robots", "a");
        createTable("robots", "b");
        expectError(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/a?purge=maybe", null), 400, "invalid_argument", "purge");
        expectError(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/a?purge=true&x=1", null), 400, "invalid_argument", "x");
        JsonObject a = ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/a?purge=true", null));
        assertThat(a.getString("purge")).isEqualTo("queued");
        JsonObject b = ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/b", null));
        assertThat(b.containsKey("purge")).isFalse();

        JsonArray tombs = ok(h.get(node, "/v1/catalog/tombstones")).getJsonArray("tombstones");
        assertThat(tombs).hasSize(2);
        for (Object t : tombs) {
            JsonObject o = (JsonObject) t;
            assertThat(o.getLong("expires_ms")).as("a week after the drop, the node's retention")
                    .isEqualTo(o.getLong("dropped_ms") + lake.config.LifecycleSettings.DEFAULTS.tableRetentionMs());
        }
        String purgeB = "/v1/catalog/tombstones/robots/b/" + b.getString("incarnation_id") + "/purge";
        expectError(post(purgeB, new JsonObject()), 400, "invalid_argument", "takes no request body");
        expectError(h.send(node, HttpMethod.POST, "/v1/catalog/tombstones/robots/never/" + b.getString("incarnation_id") + "/purge", null), 404, "not_found", "robots.never");
        JsonObject queued = ok(h.send(node, HttpMethod.POST, purgeB, null));
        assertThat(queued.getString("state")).isEqualTo("queued");
        assertThat(queued.getString("reason")).isEqualTo("requested");
        JsonObject again = ok(h.send(node, HttpMethod.POST, purgeB, null));
        assertThat(again.getLong("queued_ms")).as("asked twice: the same job").isEqualTo(queued.getLong("queued_ms"));

        JsonArray purges = ok(h.get(node, "/v1/catalog/purges")).getJsonArray("purges");
        assertThat(purges).extracting(p -> ((JsonObject) p).getString("name") + ":" + ((JsonObject) p).getString("state"))
                .containsExactly("a:queued", "b:queued");
        Message<JsonObject> viaBus = NodeHarness.await(h.vertx.eventBus().request(Ops.catalogAddress(Ops.LIST_PURGES), new JsonObject().put("limit", 1)));
        assertThat(viaBus.body().getJsonArray("purges")).hasSize(1);
        assertThat(viaBus.body().getString("continuation")).isNotNull();

        ok(post("/v1/namespaces/robots/tables/a/undrop", new JsonObject()));
        assertThat(ok(h.get(node, "/v1/catalog/purges")).getJsonArray("purges")).as("the undrop cancelled a's purge")
                .extracting(p -> ((JsonObject) p).getString("name")).containsExactly("b");
    }

    @Test
    void catalogWritesAreAllFenced() throws Exception {
        int transactions = store.transactions.size();
        int plain = store.plainWrites.get();
        int guarded = store.guarded.size();
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "f")));
        createTable("f", "t");
        JsonObject reg = ok(h.get(node, "/v1/namespaces/f/tables/t")).getJsonObject("registration");
        ok(post("/v1/namespaces/f/tables/t/versions", new JsonObject().put("expected_version", 0).put("version", 1)));
        ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/f/tables/t", null));
        ok(h.send(node, HttpMethod.DELETE, "/v1/catalog/tombstones/f/t/" + reg.getString("incarnation_id"), null));
        ok(h.send(node, HttpMethod.DELETE, "/v1/namespaces/f", null));
        // Six catalog writes; a namespace drop is two transactions (mark, then delete).
        assertThat(store.transactions).as("catalog writes as transactions").hasSize(transactions + 7);
        for (lake.meta.Transaction t : store.transactions.subList(transactions, transactions + 7)) {
            assertThat(t.guardKey()).as("every catalog transaction is guarded by the lease").contains("election/leader");
        }
        assertThat(store.plainWrites.get()).as("no plain CAS or delete").isEqualTo(plain);
        assertThat(store.guarded).as("no single guarded mutation either").hasSize(guarded);
    }

    @Test
    void catalogKeysAreReadOnlyThroughKvApi() throws Exception {
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "ro")));
        createTable("ro", "t");
        int before = store.calls();
        for (String key : List.of("tbl/ro/t", "tbl/ro/new", "drop/ro/t/x", "__lake_internal/catalog-directory-generation",
                "__lake_internal/namespaces/ro")) {
            expectError(post("/v1/kv/cas", new JsonObject().put("key", key).putNull("expected").put("value", b64("x"))),
                    400, "invalid_argument", "belongs to the catalog");
            expectError(post("/v1/kv/delete", new JsonObject().put("key", key).put("expected", b64("x"))),
                    400, "invalid_argument", "belongs to the catalog");
            expectError(post("/v1/txn", new JsonObject().put("ops", new JsonArray()
                            .add(new JsonObject().put("key", "kv/ok").put("value", b64("x")))
                            .add(new JsonObject().put("key", key).put("exists", true).put("delete", true)))),
                    400, "invalid_argument", "ops[1]");
        }
        assertThat(store.calls()).as("no refused KV write reached the store").isEqualTo(before);
        // A KV transaction may still depend on a catalog key by a check.
        assertThat(ok(post("/v1/txn", new JsonObject().put("ops", new JsonArray()
                .add(new JsonObject().put("key", "tbl/ro/t").put("exists", true))
                .add(new JsonObject().put("key", "kv/depends-on-ro.t").putNull("expected").put("value", b64("x")))))).getBoolean("applied"))
                .isTrue();
        assertThat(ok(h.get(node, "/v1/kv/tbl/ro/t")).getString("key")).as("reads stay open").isEqualTo("tbl/ro/t");
    }

    @Test
    void invalidCatalogRequestsAreRefusedBeforeTheStore() throws Exception {
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "ok")));
        createTable("ok", "t");
        int before = store.calls();
        record Bad(HttpMethod method, String uri, JsonObject body, String part) {}
        JsonObject cols = new JsonObject().put("columns", new JsonArray().add("id:i64"));
        List<Bad> cases = List.of(
                new Bad(HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", "a/b"), "namespace"),
                new Bad(HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", ".."), "namespace"),
                new Bad(HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", "x".repeat(256)), "255"),
                new Bad(HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", "a\u0001"), "control"),
                new Bad(HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", "p").put("properties", new JsonObject().put("k", 1)), "property 'k'"),
                new Bad(HttpMethod.POST, "/v1/namespaces", new JsonObject().put("name", "p"), "unknown field 'name'"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", cols.copy().put("name", "t%"), "name"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", new JsonObject().put("name", "u").put("columns", new JsonArray().add("id")), "id"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", new JsonObject().put("name", "u").put("columns", new JsonArray().add("id:int")), "int"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", new JsonObject().put("name", "u").put("columns", new JsonArray().add("a:i64").add("a:f64")), "'a'"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", new JsonObject().put("name", "u").put("columns", new JsonArray().add(":i64")), "column"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", new JsonObject().put("name", "u").put("columns", new JsonArray().add(7)), "columns[0]"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", new JsonObject().put("name", "u"), "missing field 'columns'"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables", cols.copy().put("name", "u").put("namespace", "ok"), "given by the path"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables/t/versions", new JsonObject().put("expected_version", 3).put("version", 3), "version"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables/t/versions", new JsonObject().put("expected_version", -1).put("version", 3), "expected_version"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables/t/versions", new JsonObject().put("expected_version", 1.5).put("version", 3), "expected_version"),
                new Bad(HttpMethod.POST, "/v1/namespaces/ok/tables/t/versions", new JsonObject().put("version", 3), "missing field 'expected_version'"),
                new Bad(HttpMethod.GET, "/v1/namespaces/ok/tables?limit=257", null, "between 1 and 256"),
                new Bad(HttpMethod.GET, "/v1/namespaces/ok/tables/t?wait_ms=100", null, "known_version"),
                new Bad(HttpMethod.GET, "/v1/catalog?wait_ms=60001", null, "wait_ms"),
                new Bad(HttpMethod.GET, "/v1/namespaces/%FF", null, "UTF-8"),
                new Bad(HttpMethod.GET, "/v1/catalog?known=1", null, "unknown query parameter 'known'"));
        for (Bad b : cases) {
            HttpResponse<Buffer> r = b.body() == null ? h.send(node, b.method(), b.uri(), null) : post(b.uri(), b.body());
            try {
                expectError(r, 400, "invalid_argument", b.part());
            } catch (AssertionError e) {
                throw new AssertionError(b + ": " + e.getMessage(), e);
            }
        }
        assertThat(store.calls()).as("no invalid catalog request reached the store").isEqualTo(before);
    }

    @Test
    void waitingSnapshotAnswersSoonAfterChange() throws Exception {
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "w")));
        List<Long> latenciesMs = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            String generation = ok(h.get(node, "/v1/catalog")).getString("generation");
            CompletableFuture<HttpResponse<Buffer>> waiting = h.http.get(node.httpPort(), "127.0.0.1",
                    "/v1/catalog?known_generation=" + generation + "&wait_ms=20000").send().toCompletionStage().toCompletableFuture();
            // The waiter is registered once this node holds one more long poll.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).pollInterval(java.time.Duration.ofMillis(5))
                    .until(() -> waiters() == 1);
            createTable("w", "t" + round);
            long ackedAt = System.nanoTime();
            JsonObject answer = ok(waiting.get(20, TimeUnit.SECONDS));
            latenciesMs.add((System.nanoTime() - ackedAt) / 1_000_000);
            assertThat(answer.getString("status")).isEqualTo("snapshot");
            assertThat(answer.getString("generation")).isNotEqualTo(generation);
            assertThat(answer.getJsonArray("tables")).hasSize(round + 1);
        }
        // Within 250 ms of the acknowledgement, allowing one slow round on a loaded machine.
        assertThat(latenciesMs.stream().filter(ms -> ms <= 250).count()).as("rounds within 250 ms: %s", latenciesMs).isGreaterThanOrEqualTo(4);
        assertThat(latenciesMs).allMatch(ms -> ms < 5_000);

        // A version commit wakes a resolve waiting on that table, and leaves the catalog waiters alone.
        CompletableFuture<HttpResponse<Buffer>> resolve = h.http.get(node.httpPort(), "127.0.0.1",
                "/v1/namespaces/w/tables/t0?known_version=0&wait_ms=20000").send().toCompletionStage().toCompletableFuture();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiters() == 1);
        ok(post("/v1/namespaces/w/tables/t0/versions", new JsonObject().put("expected_version", 0).put("version", 5)));
        JsonObject resolved = ok(resolve.get(20, TimeUnit.SECONDS));
        assertThat(resolved.getString("status")).isEqualTo("modified");
        assertThat(resolved.getJsonObject("registration").getLong("current_version")).isEqualTo(5L);
        assertThat(waiters()).isZero();
    }

    @Test
    void notModifiedWhenGenerationUnchanged() throws Exception {
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "n")));
        createTable("n", "t");
        String generation = ok(h.get(node, "/v1/catalog")).getString("generation");
        long started = System.nanoTime();
        JsonObject answer = ok(h.get(node, "/v1/catalog?known_generation=" + generation + "&wait_ms=300"));
        assertThat((System.nanoTime() - started) / 1_000_000).as("answered at wait_ms, not before").isGreaterThanOrEqualTo(300);
        assertThat(answer).isEqualTo(new JsonObject().put("status", "not_modified").put("generation", generation));
        // A version commit is not a directory change.
        ok(post("/v1/namespaces/n/tables/t/versions", new JsonObject().put("expected_version", 0).put("version", 1)));
        assertThat(ok(h.get(node, "/v1/catalog?known_generation=" + generation)).getString("status")).isEqualTo("not_modified");
        JsonObject resolve = ok(h.get(node, "/v1/namespaces/n/tables/t?known_version=1&wait_ms=200"));
        assertThat(resolve).isEqualTo(new JsonObject().put("status", "not_modified").put("namespace", "n").put("name", "t")
                .put("current_version", 1));
        assertThat(waiters()).isZero();
    }

    @Test
    void hungUpLongPollFreesItsSlotAtOnce() throws Exception {
        ok(post("/v1/namespaces", new JsonObject().put("namespace", "h")));
        String generation = ok(h.get(node, "/v1/catalog")).getString("generation");
        try (java.net.Socket client = new java.net.Socket("127.0.0.1", node.httpPort())) {
            client.getOutputStream().write(("GET /v1/catalog?known_generation=" + generation + "&wait_ms=60000 HTTP/1.1\r\n"
                    + "Host: 127.0.0.1\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            client.getOutputStream().flush();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiters() == 1);
        }
        // Not at wait_ms (60 s): as soon as the node sees the connection close.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> waiters() == 0);
        assertThat(ok(h.get(node, "/v1/catalog?known_generation=" + generation)).getString("status")).isEqualTo("not_modified");
    }

    private long waiters() throws Exception {
        return node.waitingLongPolls();
    }
}
