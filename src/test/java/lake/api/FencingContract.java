package lake.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.bus.Bus;
import lake.election.LeaseGuard;
import lake.meta.MetaStore;
import lake.metasrv.Leadership;
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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static lake.node.ApiFixture.T0;
import static lake.node.ApiFixture.TTL;
import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.cas;
import static lake.node.ApiFixture.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fenced write path with two Metasrv nodes sharing one store, clocks injected. Run against
 * every backend.
 */
public abstract class FencingContract {

    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;
    RecordingStore recording;

    @BeforeEach
    void harness() {
        h = new NodeHarness();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** Node "a" hosts the store (recorded); more nodes share it. Timers off: rounds run on request. */
    MetasrvNode hostNode(String id, NodeClock clock) throws Exception {
        return h.fencedPathNode(id, dir, clock, lake.config.FeedSettings.DEFAULTS, backend(dir), s -> recording = new RecordingStore(s));
    }

    MetasrvNode sharingNode(String id, NodeClock clock) throws Exception {
        return h.fencedPathNode(id, dir, clock, lake.config.FeedSettings.DEFAULTS, null, null);
    }

    /** Node "a" (hosting the recorded store) and "b" sharing it, each on its own frozen clock. */
    record TwoNodes(MetasrvNode a, MetasrvNode b, ManualClock clockA, ManualClock clockB) {}

    /** Two nodes, "a" leading epoch 1. */
    TwoNodes aLeads() throws Exception {
        ManualClock clockA = new ManualClock(T0);
        ManualClock clockB = new ManualClock(T0);
        TwoNodes n = new TwoNodes(hostNode("a", clockA), sharingNode("b", clockB), clockA, clockB);
        assertThat(h.campaign(n.a()).epoch()).isEqualTo(1L);
        return n;
    }

    /**
     * A's election is frozen (no timer) and its clocks say its lease is still valid; B's clock
     * passes the expiry and B takes over with epoch 2.
     */
    Leadership bTakesOver(TwoNodes n) throws Exception {
        n.clockB().setWall(T0 + TTL);
        Leadership bLeads = h.campaign(n.b());
        assertThat(bLeads.epoch()).isEqualTo(2L);
        assertThat(h.status(n.a()).isLeader()).as("a still believes it leads").isTrue();
        return bLeads;
    }

    String value(MetasrvNode via, String key) throws Exception {
        HttpResponse<Buffer> r = h.get(via, "/v1/kv/" + key);
        return r.statusCode() == 404 ? null : r.bodyAsJsonObject().getString("value");
    }

    @Test
    void staleLeaderCannotPublishAfterTakeover() throws Exception {
        TwoNodes n = aLeads();
        MetasrvNode a = n.a();
        MetasrvNode b = n.b();
        assertThat(h.post(a, "/v1/kv/cas", cas("kv/x", null, "a1")).bodyAsJsonObject())
                .isEqualTo(new JsonObject().put("applied", true).put("epoch", 1).put("revision", 1));
        assertThat(h.campaign(b).isLeader()).as("b follows while a's lease is valid").isFalse();

        assertThat(bTakesOver(n).isLeader()).isTrue();
        assertThat(h.get(a, "/ready").statusCode()).isEqualTo(200);

        int sentBefore = recording.transactions.size();
        HttpResponse<Buffer> stale = h.post(a, "/v1/kv/cas", cas("kv/x", "a1", "stale"));
        expectError(stale, 409, "fenced", "epoch 1");
        assertThat(recording.transactions).as("the stale write reached the store").hasSize(sentBefore + 1);
        assertThat(recording.transactions.get(sentBefore).guardKey()).contains("election/leader");
        assertThat(value(b, "kv/x")).as("target unchanged byte for byte").isEqualTo(b64("a1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !h.status(a).isLeader());
        assertThat(h.get(a, "/v1/leader").bodyAsJsonObject().getString("role")).isEqualTo("follower");

        // b's revisions start above the feed's last record (1); a's refused attempt left no record.
        assertThat(h.post(b, "/v1/kv/cas", cas("kv/x", "a1", "b1")).bodyAsJsonObject())
                .isEqualTo(new JsonObject().put("applied", true).put("epoch", 2).put("revision", 2));
        assertThat(h.post(b, "/v1/kv/cas", cas("kv/y", null, "b2")).bodyAsJsonObject().getBoolean("applied")).isTrue();
        assertThat(value(a, "kv/x")).isEqualTo(b64("b1"));
    }

    /** A paused leader's transaction after a takeover reaches the store, is fenced, and changes none of its keys. */
    @Test
    void staleGuardTransactionWritesNothing() throws Exception {
        TwoNodes n = aLeads();
        MetasrvNode a = n.a();
        MetasrvNode b = n.b();
        assertThat(h.post(a, "/v1/kv/cas", cas("kv/x", null, "a1")).bodyAsJsonObject().getBoolean("applied")).isTrue();

        bTakesOver(n);

        int before = recording.transactions.size();
        JsonObject txn = new JsonObject().put("ops", new JsonArray()
                .add(new JsonObject().put("key", "kv/x").put("expected", b64("a1")).put("value", b64("stale")))
                .add(new JsonObject().put("key", "kv/y").putNull("expected").put("value", b64("stale")))
                .add(new JsonObject().put("key", "kv/z").put("value", b64("stale"))));
        HttpResponse<Buffer> stale = h.post(a, "/v1/txn", txn);
        expectError(stale, 409, "fenced", "epoch 1");
        assertThat(recording.transactions).as("the stale transaction reached the store").hasSize(before + 1);
        assertThat(recording.transactions.get(before).guardKey()).contains("election/leader");
        assertThat(value(b, "kv/x")).as("unchanged byte for byte").isEqualTo(b64("a1"));
        assertThat(value(b, "kv/y")).isNull();
        assertThat(value(b, "kv/z")).isNull();
        await().atMost(Duration.ofSeconds(10)).until(() -> !h.status(a).isLeader());

        HttpResponse<Buffer> fresh = h.post(b, "/v1/txn", txn.put("ops", new JsonArray()
                .add(new JsonObject().put("key", "kv/x").put("expected", b64("a1")).put("value", b64("b1")))
                .add(new JsonObject().put("key", "kv/y").putNull("expected").put("value", b64("b1")))));
        assertThat(fresh.bodyAsJsonObject()).isEqualTo(new JsonObject().put("applied", true).put("epoch", 2).put("revision", 2));
        assertThat(value(a, "kv/y")).isEqualTo(b64("b1"));
    }

    /** A paused leader's create-table after a takeover is fenced; neither the table nor the generation changes. */
    @Test
    void staleLeaderCannotCreateTable() throws Exception {
        TwoNodes n = aLeads();
        MetasrvNode a = n.a();
        MetasrvNode b = n.b();
        assertThat(h.post(a, "/v1/namespaces", new JsonObject().put("namespace", "robots")).statusCode()).isEqualTo(200);
        String generation = h.get(a, "/v1/catalog").bodyAsJsonObject().getString("generation");

        bTakesOver(n);

        int before = recording.transactions.size();
        HttpResponse<Buffer> stale = h.post(a, "/v1/namespaces/robots/tables",
                new JsonObject().put("name", "episodes").put("columns", new JsonArray().add("id:i64")));
        expectError(stale, 409, "fenced", "epoch 1");
        assertThat(recording.transactions).as("the stale create reached the store").hasSize(before + 1);
        assertThat(recording.transactions.get(before).guardKey()).contains("election/leader");
        assertThat(h.get(b, "/v1/namespaces/robots/tables/episodes").statusCode()).isEqualTo(404);
        assertThat(h.get(b, "/v1/catalog").bodyAsJsonObject().getString("generation")).as("generation unchanged").isEqualTo(generation);
        assertThat(h.get(b, "/v1/namespaces/robots/tables").bodyAsJsonObject().getJsonArray("names")).isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> !h.status(a).isLeader());

        HttpResponse<Buffer> fresh = h.post(b, "/v1/namespaces/robots/tables",
                new JsonObject().put("name", "episodes").put("columns", new JsonArray().add("id:i64")));
        assertThat(fresh.statusCode()).as(fresh.bodyAsString()).isEqualTo(200);
    }

    @Test
    void publicationWithoutLiveGuardFailsClosed() throws Exception {
        ManualClock clockA = new ManualClock(T0);
        ManualClock clockB = new ManualClock(T0);
        MetasrvNode a = hostNode("a", clockA);
        MetasrvNode b = sharingNode("b", clockB);

        // No campaign yet: nobody may publish.
        expectError(h.post(a, "/v1/kv/cas", cas("kv/x", null, "v")), 503, "not_leader", "not the leader");
        assertThat(h.campaign(a).isLeader()).isTrue();
        assertThat(h.campaign(b).isLeader()).isFalse();
        // A follower refuses.
        HttpResponse<Buffer> follower = h.post(b, "/v1/kv/cas", cas("kv/x", null, "v"));
        expectError(follower, 503, "not_leader", "the leader is a");
        assertThat(follower.getHeader("Retry-After")).isNotBlank();
        // The leader past its local deadline refuses, though nobody took its lease.
        clockA.advanceMono(TTL - 1_000);
        expectError(h.post(a, "/v1/kv/cas", cas("kv/x", null, "v")), 503, "not_leader", "deadline");
        expectError(h.post(a, "/v1/kv/delete", new JsonObject().put("key", "kv/x").put("expected", b64("v"))),
                503, "not_leader", "deadline");

        assertThat(recording.guarded).as("nothing was sent to the store").isEmpty();
        assertThat(recording.transactions).as("nothing was sent to the store").isEmpty();
        assertThat(h.get(a, "/v1/kv?prefix=kv/").bodyAsJsonObject().getJsonArray("entries")).isEmpty();
        assertThat(h.get(a, "/ready").statusCode()).isEqualTo(503);
    }

    @Test
    void publicationUsesFreshGuardAfterRenewal() throws Exception {
        ManualClock clock = new ManualClock(T0);
        MetasrvNode a = hostNode("a", clock);
        LeaseGuard first = h.campaign(a).guard().orElseThrow();
        assertThat(h.post(a, "/v1/kv/cas", cas("kv/x", null, "v1")).bodyAsJsonObject().getBoolean("applied")).isTrue();

        clock.advanceWall(3_000);
        clock.advanceMono(3_000);
        LeaseGuard renewed = h.campaign(a).guard().orElseThrow();
        assertThat(renewed.epoch()).isEqualTo(first.epoch());
        assertThat(renewed.leaseBytes()).isNotEqualTo(first.leaseBytes());

        assertThat(h.post(a, "/v1/kv/cas", cas("kv/x", "v1", "v2")).bodyAsJsonObject())
                .isEqualTo(new JsonObject().put("applied", true).put("epoch", 1).put("revision", 2));
        lake.meta.Transaction last = recording.transactions.get(recording.transactions.size() - 1);
        assertThat(last.guardExpected()).isEqualTo(renewed.leaseBytes());
        byte[] stored = java.util.Base64.getDecoder().decode(value(a, "election/leader"));
        assertThat(stored).isEqualTo(renewed.leaseBytes());
        // The renewal reaches each API instance as a publication; a write that the instance reads
        // in the same event-loop turn, before the publication's task, still holds the old guard.
        // The store refuses that attempt whole (the record changed) and the writer retries it under
        // the fresh guard: at most that one attempt, never an applied one (last and stored above).
        assertThat(recording.transactions.subList(1, recording.transactions.size()))
                .filteredOn(m -> java.util.Arrays.equals(m.guardExpected(), first.leaseBytes()))
                .as("attempts under the guard the renewal replaced").hasSizeLessThanOrEqualTo(1);
        assertThat(value(a, "kv/x")).isEqualTo(b64("v2"));
    }

    @Test
    void writesDuringRenewalNeverFail() throws Exception {
        Function<Vertx, Future<? extends MetaStore>> real = backend(dir);
        // Renewals every 250 ms; the authority (TTL - margin = 3.6 s) leaves room for a slow store
        // on a loaded machine, so the test is about renewals racing writes, not about speed.
        MetasrvNode a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), 4_000, 250, 400), NodeClock.SYSTEM,
                v -> real.apply(v).map(s -> recording = new RecordingStore(s)));
        await().atMost(Duration.ofSeconds(10)).until(() -> h.status(a).isLeader());

        AtomicInteger renewals = new AtomicInteger();
        MessageConsumer<Leadership> watcher = h.vertx.eventBus().<Leadership>localConsumer(Bus.leadership("a"), m -> {
            if (m.body().isLeader()) renewals.incrementAndGet();
        });
        NodeHarness.await(watcher.completion());

        int writers = 6;
        int maxWritesEach = 4_000;
        List<Future<Integer>> loops = new ArrayList<>();
        // Half the writers send CAS creates, half transactions of two creates: both paths meet renewals.
        for (int w = 0; w < writers; w++) loops.add(writeLoop(a, "w" + w, w % 2 == 1, 0, maxWritesEach, renewals));
        int total = 0;
        for (Future<Integer> loop : loops) total += NodeHarness.await(loop);
        watcher.unregister();

        assertThat(renewals.get()).as("renewals observed during the load").isGreaterThanOrEqualTo(10);
        // Every write is a create of a fresh key, so a refusal can only be a guard that a renewal
        // replaced while the write was in flight: the race this test is about happened, and the
        // writer retried it with the fresh guard (no client saw a failure).
        assertThat(casRefused()).as("CAS writes that met a renewal in flight").isPositive();
        assertThat(txnRefused()).as("transactions that met a renewal in flight").isPositive();
        assertThat(total).as("writes acknowledged").isGreaterThanOrEqualTo(writers * 25);
        assertThat(h.status(a).epoch()).isEqualTo(1L);
    }

    @Test
    void renewalRetriesRetryableFailuresUntilDeadline() throws Exception {
        Function<Vertx, Future<? extends MetaStore>> real = backend(dir);
        FaultyStore[] faulty = new FaultyStore[1];
        MetasrvNode a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), 2_000, 200, 400), NodeClock.SYSTEM,
                v -> real.apply(v).map(s -> faulty[0] = new FaultyStore(s)));
        await().atMost(Duration.ofSeconds(10)).until(() -> h.status(a).isLeader());
        List<Leadership> changes = new java.util.concurrent.CopyOnWriteArrayList<>();
        MessageConsumer<Leadership> watcher = h.vertx.eventBus().<Leadership>localConsumer(Bus.leadership("a"),
                m -> changes.add(m.body()));
        NodeHarness.await(watcher.completion());

        // A burst of retryable failures shorter than the authority: leadership survives it.
        faulty[0].fault.set(new lake.meta.MetaException.RetryableBackend("TransactionConflict (test)", null));
        await().atMost(Duration.ofSeconds(5)).until(() -> faulty[0].injected.get() >= 3);
        faulty[0].fault.set(null);
        await().atMost(Duration.ofSeconds(5)).until(() -> changes.stream().anyMatch(l -> l.isLeader() && "renewed".equals(l.reason())));
        assertThat(changes).as("no step-down during a short burst").allMatch(Leadership::isLeader);
        assertThat(h.status(a).epoch()).isEqualTo(1L);

        // Failures that outlast the local deadline: the node retries, then steps down, not sooner.
        int before = faulty[0].injected.get();
        long lastRenewalSeen = changes.stream().filter(l -> l.isLeader()).mapToLong(Leadership::deadlineNanos).max().orElseThrow();
        faulty[0].fault.set(new lake.meta.MetaException.RetryableBackend("TransactionConflict (test)", null));
        await().atMost(Duration.ofSeconds(10)).until(() -> !h.status(a).isLeader());
        Leadership lastLeader = changes.stream().filter(Leadership::isLeader).reduce((x, y) -> y).orElseThrow();
        assertThat(System.nanoTime()).as("stepped down only once the last renewal's authority had ended")
                .isGreaterThanOrEqualTo(lastLeader.deadlineNanos());
        assertThat(lastLeader.deadlineNanos()).isGreaterThanOrEqualTo(lastRenewalSeen);
        assertThat(faulty[0].injected.get() - before).as("renewal attempts before stepping down").isGreaterThan(2);
        expectError(h.post(a, "/v1/kv/cas", cas("kv/x", null, "v")), 503, "not_leader", "not the leader");
        watcher.unregister();
    }

    /** CAS writes the store refused on their guard: a CAS is sent as its one operation and its change record. */
    private long casRefused() {
        return recording.refusedGuarded.stream().filter(t -> t.ops().stream().noneMatch(op -> op.key().endsWith("/index"))).count();
    }

    /** Client transactions (of two creates, the second an index) the store refused on their guard. */
    private long txnRefused() {
        return recording.refusedGuarded.stream().filter(t -> t.ops().stream().anyMatch(op -> op.key().endsWith("/index"))).count();
    }

    /**
     * Writes sequential creates until 12 renewals were seen and this writer made at least 25 writes
     * (or the bound); fails on the first error. Keyed to renewals, not to time, so a slow store only
     * makes it take longer.
     */
    private Future<Integer> writeLoop(MetasrvNode node, String writer, boolean txn, int i, int max, AtomicInteger renewals) {
        boolean raced = casRefused() > 0 && txnRefused() > 0;
        if (i >= max || (renewals.get() >= 12 && i >= 25 && raced)) return Future.succeededFuture(i);
        String key = "load/" + writer + "/" + i;
        JsonObject body = txn
                ? new JsonObject().put("ops", new JsonArray().add(cas(key, null, "v" + i)).add(cas(key + "/index", null, "i" + i)))
                : cas(key, null, "v" + i);
        return h.http.post(node.httpPort(), "127.0.0.1", txn ? "/v1/txn" : "/v1/kv/cas")
                .sendJsonObject(body)
                .compose(r -> {
                    if (r.statusCode() != 200 || !r.bodyAsJsonObject().getBoolean("applied")) {
                        return Future.failedFuture(new AssertionError("write " + writer + "/" + i + " failed: "
                                + r.statusCode() + " " + r.bodyAsString()));
                    }
                    return writeLoop(node, writer, txn, i + 1, max, renewals);
                });
    }
}
