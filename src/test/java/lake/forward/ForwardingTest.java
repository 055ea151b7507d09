package lake.forward;

import io.vertx.core.json.JsonObject;
import lake.node.NodeHarness;
import lake.node.ThreeNodeFixture;
import org.junit.jupiter.api.Test;

import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.cas;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A follower addresses forwarded writes from its leadership snapshot: no store read when the
 * snapshot is fresh, and a stale one costs a retry, never a misapplied write ({@link ThreeNodeFixture}).
 */
class ForwardingTest extends ThreeNodeFixture {
    @Test
    void forwardedWriteUsesLeadershipSnapshot() throws Exception {
        int gets = recording.gets.size();
        int sent = recording.transactions.size();

        JsonObject reply = h.post(c, "/v1/kv/cas", cas("kv/f", null, "v1")).bodyAsJsonObject();

        assertThat(lake.node.ApiFixture.withoutRevision(reply)).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1));
        // The leader's first write of its epoch reads where the feed ends (its floor); nothing else is read.
        assertThat(recording.gets.subList(gets, recording.gets.size())).as("no store read for the forwarded write")
                .allMatch(lake.feed.Revisions.FLOOR_KEY::equals);
        assertThat(recording.transactions.size() - sent).as("only the leader's guarded write reached the store").isEqualTo(1);
        assertThat(h.get(c, "/v1/kv/kv/f").bodyAsJsonObject().getString("value")).isEqualTo(b64("v1"));
    }

    @Test
    void staleSnapshotNeverMisappliesForwardedWrite() throws Exception {
        // B takes over (epoch 2) while A, frozen, still believes it leads epoch 1, and C's snapshot
        // still names A under epoch 1.
        bTakesOver();
        assertThat(h.status(a).isLeader()).isTrue();
        assertThat(h.status(c).leader()).contains("a");
        byte[] leaseOfB = NodeHarness.await(recording.get("election/leader")).orElseThrow();
        int refusedBefore = recording.refused.get() + recording.refusedTransactions.get();

        JsonObject reply = h.post(c, "/v1/kv/cas", cas("kv/s", null, "v1")).bodyAsJsonObject();

        assertThat(lake.node.ApiFixture.withoutRevision(reply)).as("retried on the new leader once the old one was fenced")
                .isEqualTo(new JsonObject().put("applied", true).put("epoch", 2));
        assertThat(recording.refused.get() + recording.refusedTransactions.get())
                .as("the stale leader's attempt reached the store and was refused there").isEqualTo(refusedBefore + 1);
        assertThat(h.get(b, "/v1/kv/kv/s").bodyAsJsonObject().getString("value")).isEqualTo(b64("v1"));
        assertThat(NodeHarness.await(recording.get("election/leader"))).as("the lease is still B's").contains(leaseOfB);
        assertThat(h.status(a).isLeader()).as("the fenced leader stepped down").isFalse();
    }
}
