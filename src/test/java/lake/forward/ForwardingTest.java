package lake.forward;

import io.vertx.core.json.JsonObject;
import lake.config.ClusterSettings;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.Leadership;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static lake.node.ApiFixture.T0;
import static lake.node.ApiFixture.TTL;
import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.cas;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A follower addresses forwarded writes from its leadership snapshot: no store read when the
 * snapshot is fresh, and a stale one costs a retry, never a misapplied write. Three nodes in one
 * Vert.x sharing one recorded RocksDB store, clocks injected, election rounds only on request.
 */
class ForwardingTest {
    @TempDir Path dir;
    NodeHarness h;
    RecordingStore recording;
    final ManualClock clockA = new ManualClock(T0);
    final ManualClock clockB = new ManualClock(T0);
    final ManualClock clockC = new ManualClock(T0);
    MetasrvNode a;
    MetasrvNode b;
    MetasrvNode c;

    @BeforeEach
    void aLeadsAndCFollows() throws Exception {
        h = new NodeHarness();
        a = h.deploy(clustered("a"), clockA,
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(s -> recording = new RecordingStore(s)));
        b = h.deploy(clustered("b"), clockB, null);
        c = h.deploy(clustered("c"), clockC, null);
        assertThat(h.campaign(a).epoch()).isEqualTo(1L);
        Leadership follows = h.campaign(c);
        assertThat(follows.leader()).contains("a");
        assertThat(follows.leaderEpoch()).isEqualTo(1L);
        assertThat(follows.expiresAtMs()).as("the follower's snapshot carries the lease's expiry").isEqualTo(T0 + TTL);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** Cluster mode (so a node forwards) on the harness's local event bus; no renewal timer. */
    private Settings clustered(String id) {
        return NodeHarness.settings(id, dir.resolve(id), TTL, 0, 1_000)
                .with(f -> f.cluster = new ClusterSettings(true, "test", "127.0.0.1", 0, List.of(), ClusterSettings.StoreRole.HOST));
    }

    @Test
    void forwardedWriteUsesLeadershipSnapshot() throws Exception {
        int gets = recording.gets.size();
        int calls = recording.calls();

        JsonObject reply = h.post(c, "/v1/kv/cas", cas("kv/f", null, "v1")).bodyAsJsonObject();

        assertThat(reply).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1));
        assertThat(recording.gets.subList(gets, recording.gets.size())).as("no store read for the forwarded write").isEmpty();
        assertThat(recording.calls() - calls).as("only the leader's guarded write reached the store").isEqualTo(1);
        assertThat(h.get(c, "/v1/kv/kv/f").bodyAsJsonObject().getString("value")).isEqualTo(b64("v1"));
    }

    @Test
    void staleSnapshotNeverMisappliesForwardedWrite() throws Exception {
        // B takes over (epoch 2) while A, frozen, still believes it leads epoch 1, and C's snapshot
        // still names A under epoch 1.
        clockB.setWall(T0 + TTL);
        assertThat(h.campaign(b).epoch()).isEqualTo(2L);
        assertThat(h.status(a).isLeader()).isTrue();
        assertThat(h.status(c).leader()).contains("a");
        byte[] leaseOfB = NodeHarness.await(recording.get("election/leader")).orElseThrow();
        int refusedBefore = recording.refused.get() + recording.refusedTransactions.get();

        JsonObject reply = h.post(c, "/v1/kv/cas", cas("kv/s", null, "v1")).bodyAsJsonObject();

        assertThat(reply).as("retried on the new leader once the old one was fenced")
                .isEqualTo(new JsonObject().put("applied", true).put("epoch", 2));
        assertThat(recording.refused.get() + recording.refusedTransactions.get())
                .as("the stale leader's attempt reached the store and was refused there").isEqualTo(refusedBefore + 1);
        assertThat(h.get(b, "/v1/kv/kv/s").bodyAsJsonObject().getString("value")).isEqualTo(b64("v1"));
        assertThat(NodeHarness.await(recording.get("election/leader"))).as("the lease is still B's").contains(leaseOfB);
        assertThat(h.status(a).isLeader()).as("the fenced leader stepped down").isFalse();
    }
}
