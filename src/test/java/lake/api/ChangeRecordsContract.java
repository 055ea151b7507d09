package lake.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.feed.ChangeRecord;
import lake.feed.FeedReads;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.metasrv.NodeClock;
import lake.node.FaultyStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static lake.node.ApiFixture.T0;
import static lake.node.ApiFixture.TTL;
import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.cas;
import static lake.node.ApiFixture.expectError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The change feed's invariants at the write path (issue 36): a record exists exactly when its
 * write applied, written in the write's own fenced transaction; revisions rise across epochs; a
 * stale leader writes none. Two nodes share one store, clocks injected. Run against every backend.
 */
public abstract class ChangeRecordsContract {

    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;
    RecordingStore recording;
    FaultyStore faulty;

    @BeforeEach
    void harness() {
        h = new NodeHarness();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** Node {@code id} hosts the store (faults injectable, recorded); timers off: rounds run on request. */
    MetasrvNode hostNode(String id, NodeClock clock) throws Exception {
        return hostNode(id, clock, lake.config.FeedSettings.DEFAULTS, dir);
    }

    /** As {@link #hostNode(String, NodeClock)}, with the feed's retention {@code feed}, the store under {@code storeDir}. */
    MetasrvNode hostNode(String id, NodeClock clock, lake.config.FeedSettings feed, Path storeDir) throws Exception {
        return h.fencedPathNode(id, dir, clock, feed, backend(storeDir), s -> faulty = new FaultyStore(recording = new RecordingStore(s)));
    }

    /** Node {@code id} shares the host's store, its clock already past the host's first lease. */
    MetasrvNode sharingNode(String id, lake.config.FeedSettings feed) throws Exception {
        return h.fencedPathNode(id, dir, new ManualClock(T0 + TTL), feed, null, null);
    }

    /** Every record in the store, void ones included, in revision order. */
    List<ChangeRecord> records() throws Exception {
        return NodeHarness.await(FeedReads.read(recording, 0, -1L, 100_000));
    }

    List<ChangeRecord> applied() throws Exception {
        return records().stream().filter(r -> !r.isVoid()).toList();
    }

    static ChangeRecord.Change put(String key, String value) {
        return new ChangeRecord.Change(key, value.getBytes(StandardCharsets.UTF_8));
    }

    static ChangeRecord.Change deleted(String key) {
        return new ChangeRecord.Change(key, null);
    }

    static long revision(HttpResponse<Buffer> r) {
        assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
        return r.bodyAsJsonObject().getLong("revision");
    }

    /**
     * A CAS sent right after {@code node} won a campaign: each API instance learns its leadership
     * from the election's publication, so one may still refuse with {@code not_leader} (nothing
     * written) for a moment; sent again until another answer comes (at most 10 s).
     */
    HttpResponse<Buffer> afterCampaign(MetasrvNode node, JsonObject cas) throws Exception {
        java.util.concurrent.atomic.AtomicReference<HttpResponse<Buffer>> answer = new java.util.concurrent.atomic.AtomicReference<>();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).pollInterval(java.time.Duration.ofMillis(20)).until(() -> {
            HttpResponse<Buffer> r = h.post(node, "/v1/kv/cas", cas);
            answer.set(r);
            return r.statusCode() != 503 || !r.bodyAsString().contains("not_leader");
        });
        return answer.get();
    }

    /** As {@link #afterCampaign}, without blocking (for store hooks): sent again every 20 ms, at most {@code tries} times. */
    Future<HttpResponse<Buffer>> postWhenLeading(MetasrvNode node, JsonObject cas, int tries) {
        return h.http.post(node.httpPort(), "127.0.0.1", "/v1/kv/cas").sendJsonObject(cas).compose(r -> {
            if (tries <= 1 || r.statusCode() != 503 || !r.bodyAsString().contains("not_leader")) return Future.succeededFuture(r);
            io.vertx.core.Promise<Void> later = io.vertx.core.Promise.promise();
            h.vertx.setTimer(20, id -> later.complete());
            return later.future().compose(v -> postWhenLeading(node, cas, tries - 1));
        });
    }

    static JsonObject txn(JsonObject... ops) {
        JsonArray a = new JsonArray();
        for (JsonObject op : ops) a.add(op);
        return new JsonObject().put("ops", a);
    }

    @Test
    void everyAppliedMutationHasExactlyOneRecord() throws Exception {
        MetasrvNode a = hostNode("a", new ManualClock(T0));
        assertThat(h.campaign(a).epoch()).isEqualTo(1L);
        record Write(long revision, List<ChangeRecord.Change> changes) {}
        List<Write> writes = new ArrayList<>();

        writes.add(new Write(revision(h.post(a, "/v1/kv/cas", cas("kv/a", null, "v1"))), List.of(put("kv/a", "v1"))));
        writes.add(new Write(revision(h.post(a, "/v1/kv/cas", cas("kv/a", "v1", "v2"))), List.of(put("kv/a", "v2"))));
        writes.add(new Write(revision(h.post(a, "/v1/kv/delete", new JsonObject().put("key", "kv/a").put("expected", b64("v2")))),
                List.of(deleted("kv/a"))));
        writes.add(new Write(revision(h.post(a, "/v1/txn", txn(
                        new JsonObject().put("key", "kv/b").put("value", b64("b1")),
                        new JsonObject().put("key", "kv/gen").putNull("expected"),
                        new JsonObject().put("key", "kv/c").putNull("expected").put("value", b64("c1")),
                        new JsonObject().put("key", "kv/d").put("delete", true)))),
                List.of(put("kv/b", "b1"), put("kv/c", "c1"), deleted("kv/d"))));
        // Every write's record: exactly one each, its revision the reply's, its changes the write's.
        List<ChangeRecord> kv = applied();
        assertThat(kv).hasSize(writes.size());
        for (int i = 0; i < writes.size(); i++) {
            assertThat(kv.get(i).revision()).isEqualTo(writes.get(i).revision());
            assertThat(kv.get(i).changes()).isEqualTo(writes.get(i).changes());
            assertThat(kv.get(i).epoch()).isEqualTo(1L);
            assertThat(kv.get(i).atMs()).as("the leader's commit time").isEqualTo(T0);
        }
        assertThat(writes.stream().mapToLong(Write::revision)).as("strictly increasing").isSorted().doesNotHaveDuplicates();

        // A transaction of checks only changes nothing: no revision, no record.
        HttpResponse<Buffer> checks = h.post(a, "/v1/txn", txn(new JsonObject().put("key", "kv/b").put("expected", b64("b1"))));
        assertThat(checks.bodyAsJsonObject()).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1));
        assertThat(applied()).hasSize(writes.size());

        // Catalog writes: each applied one leaves records, and replaying the whole feed gives every
        // key it names its value in the store now, byte for byte.
        assertThat(h.post(a, "/v1/namespaces", new JsonObject().put("namespace", "robots")).statusCode()).isEqualTo(200);
        assertThat(applied()).hasSize(writes.size() + 1);
        HttpResponse<Buffer> table = h.post(a, "/v1/namespaces/robots/tables",
                new JsonObject().put("name", "episodes").put("columns", new JsonArray().add("id:i64")));
        assertThat(table.statusCode()).as(table.bodyAsString()).isEqualTo(200);
        assertThat(h.send(a, io.vertx.core.http.HttpMethod.DELETE, "/v1/namespaces/robots/tables/episodes", null).statusCode()).isEqualTo(200);
        List<ChangeRecord> all = applied();
        assertThat(all.size()).isGreaterThanOrEqualTo(writes.size() + 3);
        Map<String, byte[]> replay = new HashMap<>();
        for (ChangeRecord r : all) for (ChangeRecord.Change c : r.changes()) replay.put(c.key(), c.value());
        for (Map.Entry<String, byte[]> e : replay.entrySet()) {
            assertThat(NodeHarness.await(recording.get(e.getKey())).orElse(null)).as(e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(all.stream().mapToLong(ChangeRecord::revision)).isSorted().doesNotHaveDuplicates();
        // The directory generation is bookkeeping: every create and drop rewrote it, no record names it.
        assertThat(NodeHarness.await(recording.get(lake.catalog.Catalog.GENERATION_KEY))).isPresent();
        assertThat(all).flatExtracting(ChangeRecord::changes).extracting(ChangeRecord.Change::key)
                .doesNotContain(lake.catalog.Catalog.GENERATION_KEY).contains("tbl/robots/episodes");
    }

    @Test
    void refusedMutationLeavesNoRecord() throws Exception {
        ManualClock clockA = new ManualClock(T0);
        MetasrvNode a = hostNode("a", clockA);
        MetasrvNode b = sharingNode("b", lake.config.FeedSettings.DEFAULTS);
        h.campaign(a);
        long first = revision(h.post(a, "/v1/kv/cas", cas("kv/x", null, "x1")));

        HttpResponse<Buffer> wrongValue = h.post(a, "/v1/kv/cas", cas("kv/x", "nope", "x2"));
        assertThat(wrongValue.bodyAsJsonObject()).as("refused: no revision").isEqualTo(new JsonObject().put("applied", false).put("epoch", 1));
        assertThat(h.post(a, "/v1/kv/delete", new JsonObject().put("key", "kv/x").put("expected", b64("nope")))
                .bodyAsJsonObject().containsKey("revision")).isFalse();
        assertThat(h.post(a, "/v1/txn", txn(new JsonObject().put("key", "kv/y").put("value", b64("y")),
                new JsonObject().put("key", "kv/x").putNull("expected").put("value", b64("x3")))).bodyAsJsonObject())
                .isEqualTo(new JsonObject().put("applied", false).put("failed", new JsonArray().add(1)).put("epoch", 1));
        expectError(h.post(a, "/v1/kv/cas", cas("__lake_internal/feed/00000000000000000009", null, "forged")), 400, "invalid_argument", "catalog");
        expectError(h.post(b, "/v1/kv/cas", cas("kv/z", null, "z")), 503, "not_leader", "not the leader");
        assertThat(applied()).extracting(ChangeRecord::revision).containsExactly(first);

        // Refused by the fence: the stale leader's writes reach the store and leave nothing.
        assertThat(h.campaign(b).epoch()).isEqualTo(2L);
        expectError(h.post(a, "/v1/kv/cas", cas("kv/x", "x1", "stale")), 409, "fenced", "epoch 1");
        assertThat(records()).extracting(ChangeRecord::revision).containsExactly(first);
        // The refused writes' revisions are gaps: the next applied one is simply higher.
        assertThat(revision(afterCampaign(b, cas("kv/x", "x1", "b1")))).isGreaterThan(first);
    }

    @Test
    void unknownOutcomeHasARecordExactlyWhenApplied() throws Exception {
        MetasrvNode a = hostNode("a", new ManualClock(T0));
        h.campaign(a);
        long before = revision(h.post(a, "/v1/kv/cas", cas("kv/seen", null, "s")));

        // The write applied and its answer was lost: the void record is refused (the revision is
        // taken), so the leader knows it applied, and says so with its revision.
        faulty.loseAnswers.set(1);
        HttpResponse<Buffer> lostAfter = h.post(a, "/v1/kv/cas", cas("kv/a", null, "a1"));
        long applied = revision(lostAfter);
        assertThat(applied).isGreaterThan(before);
        assertThat(applied()).filteredOn(r -> r.revision() == applied).singleElement()
                .satisfies(r -> assertThat(r.changes()).containsExactly(put("kv/a", "a1")));

        // The write never reached the store: the void record applies first, so the write never
        // can; the client is told it did not apply, and the feed holds no record of it.
        faulty.failNext(new MetaException.OutcomeUnknown("the connection broke (test)", null), 1);
        HttpResponse<Buffer> lostBefore = h.post(a, "/v1/txn", txn(new JsonObject().put("key", "kv/b").put("value", b64("b1"))));
        expectError(lostBefore, 503, "backend_unavailable", "did not apply");
        assertThat(h.get(a, "/v1/kv/kv/b").statusCode()).isEqualTo(404);
        List<ChangeRecord> all = records();
        ChangeRecord settled = all.get(all.size() - 1);
        assertThat(settled.isVoid()).as("the revision was settled void").isTrue();
        assertThat(settled.revision()).isGreaterThan(applied);
        assertThat(all).filteredOn(r -> !r.isVoid()).extracting(ChangeRecord::revision).containsExactly(before, applied);

        // Neither the write's answer nor its three settling attempts come back: the client hears
        // "unknown" at once; settling goes on in the background and succeeds once answers come
        // back, so the node leads on, and whatever happened, the feed agrees with the data.
        faulty.loseAnswers.set(4);
        HttpResponse<Buffer> unknown = h.post(a, "/v1/kv/cas", cas("kv/c", null, "c1"));
        expectError(unknown, 504, "outcome_unknown", "its change record would be revision");
        boolean written = NodeHarness.await(recording.get("kv/c")).isPresent();
        assertThat(applied().stream().anyMatch(r -> r.changes().contains(put("kv/c", "c1")))).isEqualTo(written).isTrue();
        long after = revision(h.post(a, "/v1/kv/cas", cas("kv/e", null, "e1")));
        assertThat(h.status(a).isLeader()).as("settled in the background: no step-down").isTrue();
        assertThat(applied()).extracting(ChangeRecord::revision).endsWith(after);
    }

    /** A write held on its way to the store until {@code gate} completes; {@code reached}: the expected values of kv/k's transactions that reached it. */
    record HeldWrite(MetasrvNode node, io.vertx.core.Promise<Void> gate, List<String> reached, Future<HttpResponse<Buffer>> reply) {}

    /**
     * A leader writing in {@code order} with kv/k = v0, and a CAS v1 -> v2 on it held on its way
     * to the store (every transaction on kv/k expecting v1 is held until the gate completes).
     */
    HeldWrite holdAWriteOnK(lake.config.FeedSettings.WriteOrder order) throws Exception {
        MetasrvNode a = hostNode("a", new ManualClock(T0), lake.config.FeedSettings.DEFAULTS.withWriteOrder(order), dir);
        h.campaign(a);
        revision(h.post(a, "/v1/kv/cas", cas("kv/k", null, "v0")));
        List<String> reached = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.vertx.core.Promise<Void> gate = io.vertx.core.Promise.promise();
        faulty.beforeTransact = t -> {
            var op = t.ops().stream().filter(o -> o.key().equals("kv/k")).findFirst();
            if (op.isEmpty()) return Future.succeededFuture();
            String expected = op.get().expected() == null ? "none" : new String(op.get().expected(), StandardCharsets.UTF_8);
            reached.add(expected);
            return expected.equals("v1") ? gate.future() : Future.succeededFuture();
        };
        Future<HttpResponse<Buffer>> reply = h.http.post(a.httpPort(), "127.0.0.1", "/v1/kv/cas").sendJsonObject(cas("kv/k", "v1", "v2"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> reached.contains("v1"));
        return new HeldWrite(a, gate, reached, reply);
    }

    /** The newest applied record that names {@code key}. */
    ChangeRecord lastRecordOn(String key) throws Exception {
        List<ChangeRecord> onKey = applied().stream().filter(r -> r.changes().stream().anyMatch(c -> c.key().equals(key))).toList();
        return onKey.get(onKey.size() - 1);
    }

    /**
     * CI, chaos seed 172: a CAS held its revision but reached the store late, and applied after a
     * later write on the same key that made its condition true; the feed replayed a history that
     * never was. A write is sent only once every earlier write on one of its keys has settled.
     */
    @Test
    void conflictingWritesCommitInRevisionOrder() throws Exception {
        // The earlier write (v1 -> v2) is held on its way to the store.
        HeldWrite held = holdAWriteOnK(lake.config.FeedSettings.WriteOrder.WAIT);
        MetasrvNode a = held.node();
        List<String> reached = held.reached();
        io.vertx.core.Promise<Void> gate = held.gate();
        Future<HttpResponse<Buffer>> earlier = held.reply();
        // The later one (v0 -> v1) would, committed first, make the earlier one's condition true.
        Future<HttpResponse<Buffer>> later = h.http.post(a.httpPort(), "127.0.0.1", "/v1/kv/cas").sendJsonObject(cas("kv/k", "v0", "v1"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> a.writesWaitingForKey() == 1 || reached.contains("v0"));
        assertThat(reached).as("the later write waits: it has not reached the store").containsExactly("v1");
        assertThat(h.get(a, "/metrics").bodyAsString()).contains("lake_writes_waiting_for_key{node=\"a\"} 1.0");
        h.vertx.runOnContext(v -> gate.complete());

        assertThat(NodeHarness.await(earlier).bodyAsJsonObject()).as("refused: the key still held v0")
                .isEqualTo(new JsonObject().put("applied", false).put("epoch", 1));
        long applied = revision(NodeHarness.await(later));
        assertThat(reached).containsExactly("v1", "v0");
        feedEndsAtTheStoresValue(a, applied);
    }

    /**
     * After the held write was refused and the later CAS v0 -> v1 applied at {@code applied}:
     * nothing waits, and replaying the feed gives kv/k its value in the store, from that record.
     */
    void feedEndsAtTheStoresValue(MetasrvNode a, long applied) throws Exception {
        assertThat(a.writesWaitingForKey()).isZero();
        ChangeRecord last = lastRecordOn("kv/k");
        assertThat(last.revision()).isEqualTo(applied);
        assertThat(last.changes()).containsExactly(put("kv/k", "v1"));
        assertThat(new String(NodeHarness.await(recording.get("kv/k")).orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("v1");
    }

    /**
     * The same race with the write order {@code check}: the later write is sent at once, with a
     * check that the earlier revision's record exists. It reaches the store first and is refused
     * there, writing nothing; it then waits for the earlier one to settle and is sent again, so the
     * feed still follows commit order.
     */
    @Test
    void aWriteThatOvertakesAnEarlierOneIsRefusedAndSentAgain() throws Exception {
        HeldWrite held = holdAWriteOnK(lake.config.FeedSettings.WriteOrder.CHECK);
        MetasrvNode a = held.node();
        List<String> reached = held.reached();
        Future<HttpResponse<Buffer>> later = h.http.post(a.httpPort(), "127.0.0.1", "/v1/kv/cas").sendJsonObject(cas("kv/k", "v0", "v1"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> a.writesWaitingForKey() == 1);
        assertThat(reached).as("sent at once, refused by the store, now waiting").containsExactly("v1", "v0");
        assertThat(NodeHarness.await(recording.get("kv/k")).map(v -> new String(v, StandardCharsets.UTF_8))).as("nothing written").contains("v0");
        h.vertx.runOnContext(v -> held.gate().complete());

        assertThat(NodeHarness.await(held.reply()).bodyAsJsonObject()).as("refused: the key still held v0")
                .isEqualTo(new JsonObject().put("applied", false).put("epoch", 1));
        long applied = revision(NodeHarness.await(later));
        assertThat(reached).as("sent again once the earlier one settled").containsExactly("v1", "v0", "v0");
        feedEndsAtTheStoresValue(a, applied);
    }

    /**
     * Review of the fourth part: a write sent with a check for an earlier revision's record loses
     * its answer while that earlier write is still on its way. Its void record must wait for the
     * earlier one to settle: a later write checking for this revision's record would otherwise
     * pass while the earlier one could still commit after it.
     */
    @Test
    void aLostAnswersVoidRecordWaitsForTheEarlierWrite() throws Exception {
        HeldWrite held = holdAWriteOnK(lake.config.FeedSettings.WriteOrder.CHECK);
        MetasrvNode a = held.node();
        List<String> arrivals = new java.util.concurrent.CopyOnWriteArrayList<>();
        var holding = faulty.beforeTransact;
        faulty.beforeTransact = t -> {
            boolean isVoid = t.ops().size() == 1 && t.ops().get(0).key().startsWith("__lake_internal/feed/");
            boolean isX = t.ops().stream().anyMatch(o -> o.key().equals("kv/k") && o.value() != null
                    && new String(o.value(), StandardCharsets.UTF_8).equals("vx"));
            if (isVoid) arrivals.add("void");
            if (isX) arrivals.add("x");
            return holding.apply(t);
        };
        // X reaches the store (refused there: the held write's record is missing) and its answer is lost.
        faulty.loseOnly = t -> t.ops().stream().anyMatch(o -> o.key().equals("kv/k") && o.value() != null
                && new String(o.value(), StandardCharsets.UTF_8).equals("vx"));
        faulty.loseAnswers.set(1);
        Future<HttpResponse<Buffer>> x = h.http.post(a.httpPort(), "127.0.0.1", "/v1/txn")
                .sendJsonObject(txn(new JsonObject().put("key", "kv/k").put("value", b64("vx"))));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> a.writesWaitingForKey() == 1 || arrivals.contains("void"));
        assertThat(arrivals).as("X's void record waits while the earlier write is on its way").containsExactly("x");
        assertThat(x.isComplete()).isFalse();
        h.vertx.runOnContext(v -> held.gate().complete());

        assertThat(NodeHarness.await(held.reply()).bodyAsJsonObject()).isEqualTo(new JsonObject().put("applied", false).put("epoch", 1));
        expectError(NodeHarness.await(x), 503, "backend_unavailable", "did not apply");
        assertThat(arrivals).as("written once the earlier write settled").containsExactly("x", "void");
        assertThat(new String(NodeHarness.await(recording.get("kv/k")).orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("v0");
        assertThat(a.writesWaitingForKey()).isZero();
    }

    /**
     * Concurrent blind writes to one hot key, in either write order: every one applies, and
     * replaying the feed's records of the key in revision order ends at the value the store holds.
     */
    @Test
    void concurrentWritesToOneKeyReplayToItsValue() throws Exception {
        for (lake.config.FeedSettings.WriteOrder order : lake.config.FeedSettings.WriteOrder.values()) {
            h.close();
            h = new NodeHarness();
            Path storeDir = dir.resolve("store-" + order);
            MetasrvNode a = hostNode("a", new ManualClock(T0), lake.config.FeedSettings.DEFAULTS.withWriteOrder(order), storeDir);
            h.campaign(a);
            revision(afterCampaign(a, cas("kv/warm", null, "w")));
            List<Future<HttpResponse<Buffer>>> replies = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                JsonObject put = new JsonObject().put("key", "kv/hot").put("value", b64(order + "-" + i));
                replies.add(h.http.post(a.httpPort(), "127.0.0.1", "/v1/txn").sendJsonObject(txn(put)));
            }
            List<Long> revisions = new ArrayList<>();
            for (Future<HttpResponse<Buffer>> r : replies) revisions.add(revision(NodeHarness.await(r)));
            assertThat(revisions).as(order + ": every write applied, each with its own revision").doesNotHaveDuplicates().hasSize(40);
            ChangeRecord last = lastRecordOn("kv/hot");
            assertThat(last.revision()).isEqualTo(revisions.stream().mapToLong(Long::longValue).max().orElseThrow());
            byte[] held = NodeHarness.await(recording.get("kv/hot")).orElseThrow();
            assertThat(last.changes()).as(order + ": the last record names the value the store holds")
                    .containsExactly(new ChangeRecord.Change("kv/hot", held));
        }
    }

    /**
     * Review of the third part: a write held behind an earlier one gives up unsent at its deadline
     * (half the request timeout) with a definite "did not apply", and keeps its place: a later
     * write on the key still waits for the earlier one, never overtakes it.
     */
    @Test
    void aHeldWriteGivesUpUnsentAndKeepsItsPlace() throws Exception {
        HeldWrite first = holdAWriteOnK(lake.config.FeedSettings.WriteOrder.WAIT);
        MetasrvNode a = first.node();
        List<String> reached = first.reached();
        io.vertx.core.Promise<Void> gate = first.gate();
        Future<HttpResponse<Buffer>> held = first.reply();
        // Behind it, past its deadline: refused unsent, and the client hears so.
        expectError(h.post(a, "/v1/kv/cas", cas("kv/k", "v0", "v1")), 503, "backend_unavailable", "was not sent and did not apply");
        assertThat(reached).containsExactly("v1");
        // A later write still waits for the held one, not only for the one that gave up.
        Future<HttpResponse<Buffer>> later = h.http.post(a.httpPort(), "127.0.0.1", "/v1/kv/cas").sendJsonObject(cas("kv/k", "v0", "v3"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> a.writesWaitingForKey() == 1 || reached.size() > 1);
        assertThat(reached).as("the later write has not overtaken the held one").containsExactly("v1");
        h.vertx.runOnContext(v -> gate.complete());
        assertThat(NodeHarness.await(held).bodyAsJsonObject()).isEqualTo(new JsonObject().put("applied", false).put("epoch", 1));
        long applied = revision(NodeHarness.await(later));
        assertThat(reached).containsExactly("v1", "v0");
        assertThat(lastRecordOn("kv/k").revision()).isEqualTo(applied);
        assertThat(new String(NodeHarness.await(recording.get("kv/k")).orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("v3");
        assertThat(a.writesWaitingForKey()).isZero();
    }

    /** Review of the first part: the void record's own answer lost, and a renewal between the write and its void record. */
    @Test
    void aLostAnswerIsSettledWhateverHappensToTheVoidRecord() throws Exception {
        ManualClock clock = new ManualClock(T0);
        MetasrvNode a = hostNode("a", clock);
        h.campaign(a);
        long before = revision(h.post(a, "/v1/kv/cas", cas("kv/seen", null, "s")));

        // The write never reached the store; the void record applied but its answer was lost too.
        // Its retry finds the key taken by the void record: that is no proof the write applied.
        faulty.transactFaults.add(FaultyStore.TransactFault.NOT_SENT);
        faulty.transactFaults.add(FaultyStore.TransactFault.ANSWER_LOST);
        expectError(h.post(a, "/v1/kv/cas", cas("kv/a", null, "a1")), 503, "backend_unavailable", "did not apply");
        assertThat(h.get(a, "/v1/kv/kv/a").statusCode()).isEqualTo(404);
        assertThat(applied()).extracting(ChangeRecord::revision).containsExactly(before);
        assertThat(records().get(records().size() - 1).isVoid()).isTrue();

        // The write never reached the store, and this node renewed its lease before the void
        // record was sent: the void is refused on its guard with the key absent. The old guard
        // can never commit, so the write did not apply; a renewal is no reason to step down.
        faulty.transactFaults.add(FaultyStore.TransactFault.NOT_SENT);
        java.util.concurrent.atomic.AtomicBoolean renewed = new java.util.concurrent.atomic.AtomicBoolean();
        byte[] leaseBefore = NodeHarness.await(recording.get("election/leader")).orElseThrow();
        int recordsBefore = records().size();
        faulty.beforeTransact = t -> {
            if (t.ops().size() != 1 || !t.ops().get(0).key().startsWith(lake.feed.Revisions.PREFIX)) return Future.succeededFuture();
            faulty.beforeTransact = x -> Future.succeededFuture();
            renewed.set(true);
            clock.advanceWall(3_000);
            clock.advanceMono(3_000);
            return h.vertx.eventBus().request(lake.bus.Bus.election("a"), null,
                    new io.vertx.core.eventbus.DeliveryOptions().addHeader(lake.bus.Bus.OP_HEADER, "campaign")).mapEmpty();
        };
        expectError(h.post(a, "/v1/kv/cas", cas("kv/b", null, "b1")), 503, "backend_unavailable", "did not apply");
        assertThat(renewed).as("the renewal came between the write and its void record").isTrue();
        assertThat(NodeHarness.await(recording.get("election/leader")).orElseThrow()).as("the lease was renewed").isNotEqualTo(leaseBefore);
        assertThat(records()).as("the void record was refused: no record at all").hasSize(recordsBefore);
        assertThat(h.get(a, "/v1/kv/kv/b").statusCode()).isEqualTo(404);
        assertThat(h.status(a).isLeader()).as("still leads epoch 1").isTrue();
        assertThat(h.status(a).epoch()).isEqualTo(1L);
        assertThat(applied()).extracting(ChangeRecord::revision).containsExactly(before);
        assertThat(revision(h.post(a, "/v1/kv/cas", cas("kv/c", null, "c1")))).as("writes go on").isGreaterThan(before);
    }

    /** Second review: a later epoch may hand out the revision again; only the write's own record proves it applied. */
    @Test
    void anotherEpochsRecordAtTheRevisionIsNotTheWrite() throws Exception {
        MetasrvNode a = hostNode("a", new ManualClock(T0));
        MetasrvNode b = sharingNode("b", lake.config.FeedSettings.DEFAULTS);
        h.campaign(a);
        long before = revision(h.post(a, "/v1/kv/cas", cas("kv/seen", null, "s")));

        // a's write never reaches the store; before its void record is sent, b takes over and
        // writes, starting above the last record: at the very revision a's write held.
        faulty.transactFaults.add(FaultyStore.TransactFault.NOT_SENT);
        java.util.concurrent.atomic.AtomicReference<io.vertx.core.json.JsonObject> bWrote = new java.util.concurrent.atomic.AtomicReference<>();
        faulty.beforeTransact = t -> {
            if (t.ops().size() != 1 || !t.ops().get(0).key().startsWith(lake.feed.Revisions.PREFIX)) return Future.succeededFuture();
            faulty.beforeTransact = x -> Future.succeededFuture();
            return h.vertx.eventBus().request(lake.bus.Bus.election("b"), null,
                            new io.vertx.core.eventbus.DeliveryOptions().addHeader(lake.bus.Bus.OP_HEADER, "campaign"))
                    .compose(x -> postWhenLeading(b, cas("kv/b", null, "b1"), 500))
                    .map(r -> {
                        bWrote.set(r.bodyAsJsonObject());
                        return null;
                    });
        };
        expectError(h.post(a, "/v1/kv/cas", cas("kv/a", null, "a1")), 409, "fenced", "did not apply");
        assertThat(bWrote.get().getLong("revision")).as("b's write took the revision a's write held").isEqualTo(before + 1);
        assertThat(h.get(b, "/v1/kv/kv/a").statusCode()).isEqualTo(404);
        assertThat(applied()).filteredOn(r -> r.revision() == before + 1).singleElement()
                .satisfies(r -> assertThat(r.epoch()).isEqualTo(2L));
    }

    /** Second and third reviews: an unsettled revision ends its epoch; the node leads again from the next one. */
    @Test
    void anUnsettledRevisionEndsItsEpoch() throws Exception {
        ManualClock clock = new ManualClock(T0);
        MetasrvNode a = hostNode("a", clock, new lake.config.FeedSettings(3_600_000, 1, 50), dir);
        h.campaign(a);
        revision(h.post(a, "/v1/kv/cas", cas("kv/seen", null, "s")));
        // The write and every void record sent for it lose their answers (retention's own batches
        // are spared): the background settling goes on until this node's authority ends, then
        // gives up and steps down.
        faulty.loseOnly = t -> t.ops().stream().noneMatch(op -> op.key().equals(lake.feed.Revisions.FLOOR_KEY));
        faulty.loseAnswers.set(Integer.MAX_VALUE);
        expectError(h.post(a, "/v1/kv/cas", cas("kv/c", null, "c1")), 504, "outcome_unknown", "would be revision");
        assertThat(h.status(a).isLeader()).as("still settling").isTrue();
        clock.advanceMono(TTL);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> !h.status(a).isLeader());
        faulty.loseAnswers.set(0);
        long unsettled = applied().stream().filter(r -> r.changes().contains(put("kv/c", "c1"))).findFirst().orElseThrow().revision();

        // The same node wins again, and its own lease record is renewed into the next epoch, so
        // nothing guarded by epoch 1 can commit any more.
        clock.advanceWall(3_000);
        clock.advanceMono(3_000);
        assertThat(h.campaign(a).epoch()).as("not epoch 1 again").isEqualTo(2L);
        long next = revision(afterCampaign(a, cas("kv/d", null, "d1")));
        assertThat(next).as("above the unsettled revision").isGreaterThan(unsettled);
        // Retention (one record kept) passes the unsettled revision: the new epoch's watermark moves on.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> floor() >= unsettled);
        assertThat(records()).extracting(ChangeRecord::revision).containsExactly(next);
        // A late step-down about epoch 1 (a write of it refused after the renewal) leaves epoch 2 alone.
        NodeHarness.await(h.vertx.eventBus().request(lake.bus.Bus.election("a"), new JsonObject().put("reason", "late").put("epoch", 1),
                new io.vertx.core.eventbus.DeliveryOptions().addHeader(lake.bus.Bus.OP_HEADER, "step-down")));
        assertThat(h.status(a).isLeader()).isTrue();
        assertThat(h.status(a).epoch()).isEqualTo(2L);
    }

    @Test
    void revisionsIncreaseAcrossEpochs() throws Exception {
        ManualClock clockA = new ManualClock(T0);
        MetasrvNode a = hostNode("a", clockA);
        MetasrvNode b = sharingNode("b", lake.config.FeedSettings.DEFAULTS);
        h.campaign(a);
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 5; i++) seen.add(revision(h.post(a, "/v1/kv/cas", cas("kv/a" + i, null, "v"))));
        // A revision a allocated and never used (refused) must not let b start below a's last.
        h.post(a, "/v1/kv/cas", cas("kv/a0", "wrong", "v"));

        assertThat(h.campaign(b).epoch()).isEqualTo(2L);
        for (int i = 0; i < 5; i++) seen.add(revision(afterCampaign(b, cas("kv/b" + i, null, "v"))));
        // And back to a, at epoch 3, after b's records.
        clockA.setWall(T0 + 3 * TTL);
        clockA.advanceMono(3 * TTL);
        assertThat(h.campaign(a).epoch()).isEqualTo(3L);
        for (int i = 0; i < 5; i++) seen.add(revision(afterCampaign(a, cas("kv/c" + i, null, "v"))));

        assertThat(seen).isSorted().doesNotHaveDuplicates();
        assertThat(applied()).extracting(ChangeRecord::revision).containsExactlyElementsOf(seen);
        assertThat(applied()).extracting(ChangeRecord::epoch).containsExactly(1L, 1L, 1L, 1L, 1L, 2L, 2L, 2L, 2L, 2L, 3L, 3L, 3L, 3L, 3L);
    }

    @Test
    void staleLeaderPublishesNoRecord() throws Exception {
        // Each kind of write by a leader that paused through its lease's end, a takeover
        // meanwhile, in its own run (the first fenced write makes the paused node step down).
        Map<String, Function<MetasrvNode, HttpResponse<Buffer>>> writes = new java.util.LinkedHashMap<>();
        writes.put("cas", a -> call(() -> h.post(a, "/v1/kv/cas", cas("kv/x", "a1", "stale"))));
        writes.put("txn", a -> call(() -> h.post(a, "/v1/txn", txn(new JsonObject().put("key", "kv/y").put("value", b64("stale"))))));
        writes.put("create-table", a -> call(() -> h.post(a, "/v1/namespaces/robots/tables",
                new JsonObject().put("name", "t").put("columns", new JsonArray().add("id:i64")))));
        int run = 0;
        for (Map.Entry<String, Function<MetasrvNode, HttpResponse<Buffer>>> w : writes.entrySet()) {
            if (run++ > 0) {
                // Nodes of one harness share its event bus and its store address: a fresh one per run.
                h.close();
                h = new NodeHarness();
            }
            MetasrvNode a = hostNode("a" + run, new ManualClock(T0), lake.config.FeedSettings.DEFAULTS, dir.resolve("run" + run));
            MetasrvNode b = sharingNode("b" + run, lake.config.FeedSettings.DEFAULTS);
            h.campaign(a);
            assertThat(h.post(a, "/v1/namespaces", new JsonObject().put("namespace", "robots")).statusCode()).isEqualTo(200);
            revision(h.post(a, "/v1/kv/cas", cas("kv/x", null, "a1")));
            List<ChangeRecord> before = records();

            assertThat(h.campaign(b).epoch()).isEqualTo(2L);
            assertThat(h.status(a).isLeader()).as("a resumes believing it leads").isTrue();
            int sent = recording.transactions.size();
            expectError(w.getValue().apply(a), 409, "fenced", "epoch 1");
            assertThat(recording.transactions.size()).as("%s: the stale write reached the store with its record", w.getKey())
                    .isEqualTo(sent + 1);
            assertThat(recording.transactions.get(sent).ops()).as(w.getKey())
                    .anyMatch(op -> op.key().startsWith(lake.feed.Revisions.PREFIX));
            assertThat(records()).as("%s: nothing it tried after the takeover is in the feed", w.getKey()).isEqualTo(before);

            long next = revision(afterCampaign(b, cas("kv/x", "a1", "b1")));
            assertThat(before).allMatch(r -> r.revision() < next);
            assertThat(applied()).flatExtracting(ChangeRecord::changes).as(w.getKey())
                    .doesNotContain(put("kv/x", "stale"), put("kv/y", "stale"));
        }
    }

    interface Call { HttpResponse<Buffer> run() throws Exception; }

    static HttpResponse<Buffer> call(Call c) {
        try {
            return c.run();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void retentionCompactsTheOldestAndRevisionsStayAboveTheFloor() throws Exception {
        lake.config.FeedSettings keepThree = new lake.config.FeedSettings(3_600_000, 3, 50);
        ManualClock clockA = new ManualClock(T0);
        MetasrvNode a = hostNode("a", clockA, keepThree, dir);
        MetasrvNode b = sharingNode("b", keepThree);
        h.campaign(a);
        List<Long> written = new ArrayList<>();
        for (int i = 0; i < 10; i++) written.add(revision(h.post(a, "/v1/kv/cas", cas("kv/" + i, null, "v"))));

        // By count: only the newest three revisions stay, and the floor names the last one compacted.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> records().stream().map(ChangeRecord::revision).toList().equals(written.subList(7, 10)));
        assertThat(floor()).isEqualTo(written.get(6));
        assertThat(NodeHarness.await(recording.get("kv/0"))).as("compaction removes records, never data").isPresent();

        // By age: once the retention has passed, even the newest record goes.
        clockA.advanceWall(3_600_001);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> records().isEmpty());
        assertThat(floor()).isEqualTo(written.get(9));

        // A new epoch's revisions start above the floor, though no record is left to read.
        assertThat(h.campaign(b).epoch()).isEqualTo(2L);
        assertThat(revision(afterCampaign(b, cas("kv/after", null, "v")))).isEqualTo(written.get(9) + 1);
    }

    long floor() throws Exception {
        return lake.feed.Revisions.floor(NodeHarness.await(recording.get(lake.feed.Revisions.FLOOR_KEY)));
    }
}
