package lake.node;

import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.Leadership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A gracefully stopping leader resigns (rewrites its lease as expired, same holder and epoch) and
 * says so on {@link Bus#LEASE_RELEASED}; a standby then campaigns at once instead of at its next
 * round. This is what bounds a SIGTERM handover (issue 15: ≤ 1 s, with renewals every 1 s). The
 * clock is frozen and the renewal interval is a minute, so only the announcement can start the
 * standby's round: neither a timer nor time passing can. The handover is two store calls and no
 * read (the resign's CAS from the leader's own lease bytes, the standby's CAS from the released
 * record the announcement carries): on a slow store that is what bounds it.
 */
class LeaseHandoverTest {
    static final long T0 = 1_700_000_000_000L;
    @TempDir Path dir;
    final NodeHarness h = new NodeHarness();

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    @Test
    void aStandbyTakesOverAsSoonAsTheLeaderResignsNotAtItsNextRound() throws Exception {
        ManualClock clock = new ManualClock(T0);
        long ttl = 180_000;
        long renew = 60_000;
        RecordingStore[] store = new RecordingStore[1];
        MetasrvNode a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), ttl, renew, 1_000), clock,
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(s -> store[0] = new RecordingStore(s)));
        await().atMost(Duration.ofSeconds(10)).until(() -> h.status(a).isLeader());
        long epoch = h.status(a).epoch();
        // b shares a's store; its first round (at start) finds a's lease valid: it follows.
        MetasrvNode b = h.deploy(NodeHarness.settings("b", dir.resolve("b"), ttl, renew, 1_000), clock, null);
        await().atMost(Duration.ofSeconds(10)).until(() -> h.status(b).leader().filter("a"::equals).isPresent());
        assertThat(h.status(b).isLeader()).isFalse();

        // What a graceful stop does once its requests drained: resign.
        int writesBefore = store[0].plainWrites.get();
        long leaseReadsBefore = store[0].gets.stream().filter("election/leader"::equals).count();
        JsonObject resigned = NodeHarness.await(h.vertx.eventBus().<JsonObject>request(Bus.election("a"), null,
                new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign"))).body();
        assertThat(resigned.getBoolean("resigned")).isTrue();

        // b leads the next epoch with the clock unmoved and a minute before its next round.
        await().atMost(Duration.ofSeconds(5)).until(() -> h.status(b).isLeader());
        Leadership won = h.status(b);
        assertThat(won.epoch()).isEqualTo(epoch + 1);
        assertThat(h.status(a).isLeader()).as("the resigned leader stays out of the race").isFalse();
        // Two store calls for the whole handover: the resign's CAS from a's own lease bytes and b's
        // CAS from the released record the announcement carried; neither read the lease first.
        assertThat(store[0].plainWrites.get() - writesBefore).isEqualTo(2);
        assertThat(store[0].gets.stream().filter("election/leader"::equals).count() - leaseReadsBefore)
                .as("lease reads during the handover").isZero();
        // The store's lease, as a's /v1/leader reports it, names b as holder of epoch + 1.
        JsonObject view = new JsonObject(h.get(a, "/v1/leader").bodyAsString());
        assertThat(view.getString("leader")).isEqualTo("b");
        assertThat(view.getLong("epoch")).isEqualTo(epoch + 1);
    }

    /**
     * A standby's own round can win the resigned record before the announcement's round runs, and
     * any member can replay an announcement: a node that already leads treats it as an ordinary
     * round (it renews), never as a lost race that demotes it.
     */
    @Test
    void anAnnouncementReachingTheLeaderNeverUnseatsIt() throws Exception {
        ManualClock clock = new ManualClock(T0);
        MetasrvNode a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), 180_000, 60_000, 1_000), clock,
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
        await().atMost(Duration.ofSeconds(10)).until(() -> h.status(a).isLeader());
        MetasrvNode b = h.deploy(NodeHarness.settings("b", dir.resolve("b"), 180_000, 60_000, 1_000), clock, null);
        await().atMost(Duration.ofSeconds(10)).until(() -> h.status(b).leader().filter("a"::equals).isPresent());
        java.util.concurrent.atomic.AtomicReference<JsonObject> announced = new java.util.concurrent.atomic.AtomicReference<>();
        NodeHarness.await(h.vertx.eventBus().<JsonObject>consumer(Bus.LEASE_RELEASED, m -> announced.set(m.body())).completion());
        NodeHarness.await(h.vertx.eventBus().request(Bus.election("a"), null, new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign")));
        await().atMost(Duration.ofSeconds(5)).until(() -> h.status(b).isLeader() && announced.get() != null);
        long epoch = h.status(b).epoch();
        java.util.List<Leadership> published = new java.util.concurrent.CopyOnWriteArrayList<>();
        NodeHarness.await(h.vertx.eventBus().<Leadership>localConsumer(Bus.leadership("b"), m -> published.add(m.body())).completion());

        h.vertx.eventBus().publish(Bus.LEASE_RELEASED, announced.get());
        // The replay's round has run once b published its outcome (a renewal, were it still leading).
        await().atMost(Duration.ofSeconds(5)).until(() -> !published.isEmpty());
        // b resigns only while it still leads.
        JsonObject resigned = NodeHarness.await(h.vertx.eventBus().<JsonObject>request(Bus.election("b"), null,
                new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign"))).body();
        assertThat(resigned.getBoolean("resigned")).as("b still led epoch %d after the replay", epoch).isTrue();
        assertThat(published).as("publications between the replay and the resignation").isNotEmpty()
                .allSatisfy(l -> assertThat(l.isLeader() || Leadership.RESIGNED.equals(l.reason()))
                        .as("%s", l.reason()).isTrue());
    }
}
