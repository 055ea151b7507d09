package lake.forward;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.config.ClusterSettings;
import lake.config.Settings;
import lake.meta.GuardedMutation;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static lake.node.ApiFixture.b64;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A clustered node's write path while it does not lead: it forwards, or takes the write itself once it wins. */
class FollowerWriteTest {
    @TempDir Path dir;
    NodeHarness h;

    @AfterEach
    void stop() throws Exception {
        if (h != null) h.close();
    }

    /** Counts reads of the lease key: how often the node looked for a leader. */
    static final class LeaseReads implements MetaStore {
        final MetaStore real;
        final AtomicInteger reads = new AtomicInteger();
        LeaseReads(MetaStore real) { this.real = real; }
        @Override public Future<Optional<byte[]>> get(String key) {
            if (key.equals("election/leader")) reads.incrementAndGet();
            return real.get(key);
        }
        @Override public Future<Boolean> cas(String k, byte[] e, byte[] v) { return real.cas(k, e, v); }
        @Override public Future<Boolean> delete(String k, byte[] e) { return real.delete(k, e); }
        @Override public Future<Boolean> guardedMutate(GuardedMutation m) { return real.guardedMutate(m); }
        @Override public Future<lake.meta.TransactionOutcome> transact(lake.meta.Transaction t) { return real.transact(t); }
        @Override public Future<ScanPage> scanPrefix(String p, String c, int l) { return real.scanPrefix(p, c, l); }
        @Override public Future<java.util.Optional<String>> lastKey(String p) { return real.lastKey(p); }
        @Override public Future<Void> close() { return real.close(); }
    }

    @Test
    void writeWaitingForALeaderAppliesLocallyOnceThisNodeWins() throws Exception {
        h = new NodeHarness();
        // Cluster mode (a forwarder) on a local event bus; no renewal timer, so the node campaigns
        // only when the test says; a frozen clock, so the forwarding window never runs out by itself.
        Settings s = new Settings("a", "127.0.0.1", 0, dir, Settings.StoreType.ROCKS, true, null, "us-east-1",
                "unused", false, "election/leader", 10_000, 0, 1_000, 20_000, 10_000, List.of(), 4_000,
                new ClusterSettings(true, "test", "127.0.0.1", 0, List.of(), ClusterSettings.StoreRole.HOST));
        LeaseReads[] store = new LeaseReads[1];
        MetasrvNode node = h.deploy(s, new ManualClock(1_700_000_000_000L),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(r -> store[0] = new LeaseReads(r)));
        assertThat(h.status(node).isLeader()).isFalse();

        int before = store[0].reads.get();
        CompletableFuture<HttpResponse<Buffer>> write = CompletableFuture.supplyAsync(() -> {
            try {
                return h.post(node, "/v1/kv/cas", new JsonObject().put("key", "kv/waiting").putNull("expected").put("value", b64("v")));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        // The write is looking for a leader (no lease yet) ...
        await().atMost(Duration.ofSeconds(10)).until(() -> store[0].reads.get() >= before + 2);
        assertThat(write).isNotDone();
        // ... when this node wins: the lease now names the node itself, and the write is its to apply.
        assertThat(h.campaign(node).isLeader()).isTrue();

        HttpResponse<Buffer> answer = write.get(5, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).as(answer.bodyAsString()).isEqualTo(200);
        assertThat(answer.bodyAsJsonObject()).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1).put("revision", 1));
        assertThat(h.get(node, "/v1/kv/kv/waiting").bodyAsJsonObject().getString("value")).isEqualTo(b64("v"));
    }
}
