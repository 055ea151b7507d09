package lake.forward;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.election.LeaseRecord;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.Leadership;
import lake.metasrv.NodeClock;
import lake.protocol.ApiError;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A follower retries a forwarded write only when it certainly did not apply, and answers
 * {@code outcome_unknown} when it cannot know. The "leader" here is a test consumer on the
 * leader's node address; the lease it is found by is a real record in a real store.
 */
class ForwarderTest {
    @TempDir Path dir;
    Vertx vertx;
    MetaStore store;
    final List<Message<JsonObject>> received = new CopyOnWriteArrayList<>();

    static <T> T join(Future<T> f) throws Exception {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    @BeforeEach
    void leaseHeldByL() throws Exception {
        vertx = Vertx.vertx();
        store = join(RocksMetaStore.open(vertx, RocksConfig.defaults(dir)));
        LeaseRecord lease = new LeaseRecord("L", System.currentTimeMillis() + 60_000, 7);
        assertThat(join(store.cas("election/leader", null, lease.encode()))).isTrue();
    }

    @AfterEach
    void close() throws Exception {
        join(store.close());
        join(vertx.close());
    }

    /** A snapshot that knows no leader: every attempt reads the lease record. */
    static final Leadership UNKNOWN = Leadership.follower("F", Optional.empty(), 0, "test");

    Forwarder forwarder(long windowMs, long timeoutMs) {
        return forwarder(UNKNOWN, windowMs, timeoutMs);
    }

    Forwarder forwarder(Leadership snapshot, long windowMs, long timeoutMs) {
        return new Forwarder(vertx, "F", "election/leader", store, () -> snapshot, NodeClock.SYSTEM, timeoutMs, windowMs);
    }

    @Test
    void staleSnapshotIsRetriedFromTheLeaseRecord() throws Exception {
        // The snapshot still names OLD under epoch 6; the lease record names L under epoch 7.
        Leadership stale = Leadership.follower("F", Optional.of(new LeaseRecord("OLD", System.currentTimeMillis() + 60_000, 6)), "test");
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("OLD"), m -> {
            received.add(m);
            m.fail(409, new ApiError(409, "fenced", "write under epoch 6 refused: the lease record changed", null).toJson().encode());
        });
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("L"), m -> {
            received.add(m);
            m.reply(new JsonObject().put("applied", true).put("epoch", 7));
        });
        JsonObject reply = join(forwarder(stale, 5_000, 2_000).forward("cas", new JsonObject().put("key", "k"), null, null));
        assertThat(reply.getLong("epoch")).isEqualTo(7L);
        assertThat(received).extracting(m -> m.headers().get(Bus.FORWARDED_EPOCH_HEADER)).containsExactly("6", "7");
    }

    @Test
    void expiredSnapshotIsNotUsed() throws Exception {
        Leadership expired = Leadership.follower("F", Optional.of(new LeaseRecord("OLD", 1, 6)), "test");
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("OLD"), received::add);
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("L"), m -> {
            received.add(m);
            m.reply(new JsonObject().put("applied", true).put("epoch", 7));
        });
        join(forwarder(expired, 5_000, 2_000).forward("cas", new JsonObject().put("key", "k"), null, null));
        assertThat(received).extracting(m -> m.headers().get(Bus.FORWARDED_EPOCH_HEADER)).as("straight to the lease's holder")
                .containsExactly("7");
    }

    @Test
    void notLeaderAnswerIsRetriedAndCarriesTheSeenEpoch() throws Exception {
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("L"), m -> {
            received.add(m);
            if (received.size() == 1) m.fail(503, new ApiError(503, "not_leader", "still starting", 1).toJson().encode());
            else m.reply(new JsonObject().put("applied", true).put("epoch", 7));
        });
        JsonObject reply = join(forwarder(5_000, 2_000).forward("cas", new JsonObject().put("key", "k"), "7", "secret-token"));
        assertThat(reply.getBoolean("applied")).isTrue();
        assertThat(received).hasSize(2);
        assertThat(received.get(0).headers().get(Bus.FORWARDED_EPOCH_HEADER)).isEqualTo("7");
        assertThat(received.get(0).headers().get(Bus.FORWARDED_BY_HEADER)).isEqualTo("F");
        assertThat(received.get(0).headers().get(Bus.EPOCH_HEADER)).isEqualTo("7");
        assertThat(received.get(0).headers().get(Bus.OP_HEADER)).isEqualTo("cas");
        assertThat(received.get(0).headers().get(Bus.TOKEN_HEADER)).isEqualTo("secret-token");
    }

    @Test
    void noAnswerIsOutcomeUnknownAndNeverRetried() throws Exception {
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("L"), received::add);
        assertThatThrownBy(() -> join(forwarder(5_000, 300).forward("cas", new JsonObject().put("key", "k"), null, null)))
                .isInstanceOfSatisfying(ApiError.class, e -> {
                    assertThat(e.status()).isEqualTo(504);
                    assertThat(e.code()).isEqualTo("outcome_unknown");
                });
        assertThat(received).as("sent once, not retried blindly").hasSize(1);
    }

    @Test
    void otherRefusalsPassThroughUnretried() throws Exception {
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("L"), m -> {
            received.add(m);
            m.fail(409, new ApiError(409, "epoch_mismatch", "request expects epoch 3", null).toJson().encode());
        });
        assertThatThrownBy(() -> join(forwarder(5_000, 2_000).forward("cas", new JsonObject().put("key", "k"), "3", null)))
                .satisfies(t -> assertThat(ApiError.from(t).code()).isEqualTo("epoch_mismatch"));
        assertThat(received).hasSize(1);
    }

    @Test
    void noLeaderWithinTheWindowIsNotLeader() throws Exception {
        byte[] lease = join(store.get("election/leader")).orElseThrow();
        LeaseRecord expired = new LeaseRecord("L", 1, 7);
        assertThat(join(store.cas("election/leader", lease, expired.encode()))).isTrue();
        assertThatThrownBy(() -> join(forwarder(300, 2_000).forward("cas", new JsonObject().put("key", "k"), null, null)))
                .satisfies(t -> assertThat(ApiError.from(t).code()).isEqualTo("not_leader"));
        assertThat(received).isEmpty();
    }

    @Test
    void noHandlerForTheLeaderIsRetriedUntilTheWindowEnds() throws Exception {
        long start = System.nanoTime();
        assertThatThrownBy(() -> join(forwarder(400, 2_000).forward("cas", new JsonObject().put("key", "k"), null, null)))
                .satisfies(t -> assertThat(ApiError.from(t).code()).isEqualTo("not_leader"))
                .hasMessageContaining("not reachable");
        assertThat((System.nanoTime() - start) / 1_000_000).as("kept trying for the window").isGreaterThanOrEqualTo(400);
    }

    @Test
    void leaseNamingThisNodeIsHandedBackAtOnce() throws Exception {
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("L"), received::add);
        Forwarder self = new Forwarder(vertx, "L", "election/leader", store, () -> UNKNOWN, NodeClock.SYSTEM, 2_000, 60_000);
        long start = System.nanoTime();
        assertThatThrownBy(() -> join(self.forward("cas", new JsonObject().put("key", "k"), null, null)))
                .isInstanceOf(Forwarder.LeaderIsThisNode.class);
        assertThat((System.nanoTime() - start) / 1_000_000).as("without waiting out the 60 s window").isLessThan(10_000);
        assertThat(received).as("nothing sent to itself").isEmpty();
    }
    /**
     * A node that leaves the cluster answers, at once, exactly the writes sent to it: outcome
     * unknown (they may have applied), never retried; a write in flight to another node waits on.
     */
    @Test
    void writesInFlightToANodeThatLeavesAreUnknownAtOnceAndOnlyThose() throws Exception {
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("L"), received::add);
        vertx.eventBus().<JsonObject>consumer(Bus.nodeForward("OLD"), received::add);
        java.util.concurrent.atomic.AtomicReference<Leadership> snapshot = new java.util.concurrent.atomic.AtomicReference<>(
                Leadership.follower("F", Optional.of(new LeaseRecord("OLD", System.currentTimeMillis() + 60_000, 6)), "test"));
        java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
        // Neither "leader" ever answers, and the request timeout is a minute: only the departure can answer.
        Forwarder f = new Forwarder(vertx, "F", "election/leader", store, snapshot::get, NodeClock.SYSTEM, 60_000, 60_000,
                lake.bus.BusBatch.Sender.standard(vertx), inFlight);
        Future<JsonObject> toOld = f.forward("cas", new JsonObject().put("key", "a"), null, null);
        snapshot.set(UNKNOWN);
        Future<JsonObject> toL = f.forward("cas", new JsonObject().put("key", "b"), null, null);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> received.size() == 2 && inFlight.get() == 2);

        long lostAt = System.nanoTime();
        f.lost("L");
        assertThatThrownBy(() -> join(toL)).isInstanceOfSatisfying(ApiError.class, e -> {
            assertThat(e.status()).isEqualTo(504);
            assertThat(e.code()).isEqualTo("outcome_unknown");
            assertThat(e.getMessage()).contains("forwarded to L, which left the cluster");
        });
        assertThat((System.nanoTime() - lostAt) / 1_000_000).as("answered by the departure, not the minute's timeout").isLessThan(10_000);
        assertThat(toOld.isComplete()).as("a write sent to another node waits on").isFalse();
        assertThat(inFlight.get()).isEqualTo(1);

        f.lost("OLD");
        assertThatThrownBy(() -> join(toOld)).satisfies(t -> assertThat(ApiError.from(t).code()).isEqualTo("outcome_unknown"));
        assertThat(inFlight.get()).isZero();
        assertThat(received).as("each sent once, never retried").hasSize(2);
        f.lost("L");  // a departure with nothing in flight changes nothing
        assertThat(inFlight.get()).isZero();
    }
}
