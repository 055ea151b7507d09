package lake.api;

import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.bus.BusMetaStore;
import lake.bus.LocalCodec;
import lake.bus.StoreLink;
import lake.bus.StoreProtocol;
import lake.meta.GuardedMutation;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static lake.node.ApiFixture.b64;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The public event-bus API, as a user's own verticle calls it. */
class EventBusApiTest {
    @TempDir Path dir;
    NodeHarness h;
    RecordingStore recording;
    long epoch;

    @BeforeEach
    void leader() throws Exception {
        h = new NodeHarness();
        MetasrvNode node = NodeHarness.await(MetasrvNode.deploy(h.vertx, new MetasrvNode.Options(
                NodeHarness.settings("a", dir, 10_000, 0, 1_000), new ManualClock(1_700_000_000_000L),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(s -> recording = new RecordingStore(s)),
                Bus.STORE, true)));
        lake.metasrv.Leadership won = h.campaign(node);
        assertThat(won.isLeader()).isTrue();
        epoch = won.epoch();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private Message<JsonObject> call(String address, JsonObject body, String epochHeader) throws Exception {
        DeliveryOptions opts = new DeliveryOptions();
        if (epochHeader != null) opts.addHeader(Bus.EPOCH_HEADER, epochHeader);
        return NodeHarness.await(h.vertx.eventBus().request(address, body, opts));
    }

    @Test
    void busClientsCasReadAndSeeTheEpoch() throws Exception {
        JsonObject cas = new JsonObject().put("key", "kv/bus").putNull("expected").put("value", b64("v1"));
        Message<JsonObject> applied = call(Bus.KV_CAS, cas, "1");
        assertThat(applied.body()).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1).put("revision", 1));
        assertThat(applied.headers().get(Bus.EPOCH_HEADER)).isEqualTo("1");

        Message<JsonObject> read = call(Bus.KV_GET, new JsonObject().put("key", "kv/bus"), null);
        assertThat(read.body().getString("value")).isEqualTo(b64("v1"));
        assertThat(read.headers().get(Bus.EPOCH_HEADER)).isEqualTo("1");

        Message<JsonObject> page = call(Bus.KV_SCAN, new JsonObject().put("prefix", "kv/").put("limit", 10), null);
        assertThat(page.body().getJsonArray("entries")).hasSize(1);
        Message<JsonObject> leader = call(Bus.LEADER, new JsonObject(), null);
        assertThat(leader.body().getString("leader")).isEqualTo("a");

        JsonObject delete = new JsonObject().put("key", "kv/bus").put("expected", b64("v1"));
        assertThat(call(Bus.KV_DELETE, delete, null).body().getBoolean("applied")).isTrue();
    }

    @Test
    void staleEpochHeaderIsRefusedWithEpochMismatch() throws Exception {
        JsonObject cas = new JsonObject().put("key", "kv/bus").putNull("expected").put("value", b64("v1"));
        assertThatThrownBy(() -> call(Bus.KV_CAS, cas, "0"))
                .isInstanceOfSatisfying(ReplyException.class, e -> {
                    assertThat(e.failureCode()).isEqualTo(409);
                    JsonObject error = new JsonObject(e.getMessage()).getJsonObject("error");
                    assertThat(error.getString("code")).isEqualTo("epoch_mismatch");
                    assertThat(error.getString("message")).contains("epoch 0");
                });
        assertThatThrownBy(() -> call(Bus.KV_CAS, cas, "not-a-number"))
                .isInstanceOfSatisfying(ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(400));
        assertThatThrownBy(() -> call(Bus.KV_GET, new JsonObject().put("key", "kv/bus"), null))
                .isInstanceOfSatisfying(ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(404));
        assertThat(recording.guardedWrites()).isZero();
    }

    @Test
    void storeRefusesLowerEpochWithoutTouchingTheStore() throws Exception {
        JsonObject cas = new JsonObject().put("key", "kv/bus").putNull("expected").put("value", b64("v1"));
        assertThat(call(Bus.KV_CAS, cas, null).body().getBoolean("applied")).isTrue();
        assertThat(recording.guardedWrites()).isEqualTo(1);

        // A message straight to the store, guarded by the real lease but under a lower epoch.
        BusMetaStore direct = new BusMetaStore(h.vertx, Bus.STORE, () -> 0L, 5_000);
        byte[] lease = NodeHarness.await(direct.get("election/leader")).orElseThrow();
        boolean applied = NodeHarness.await(direct.guardedMutate(
                lake.meta.GuardedMutation.create("election/leader", lease, "kv/low", new byte[] {1})));
        assertThat(applied).isFalse();
        assertThat(recording.guardedWrites()).as("refused on the fast path, never reached the store").isEqualTo(1);
        assertThat(NodeHarness.await(direct.get("kv/low"))).isEmpty();

        // A store message without the epoch header is refused outright.
        assertThatThrownBy(() -> NodeHarness.await(h.vertx.eventBus().request(Bus.STORE,
                new JsonObject().put("key", "kv/bus"), new DeliveryOptions().addHeader(Bus.OP_HEADER, "get"))))
                .isInstanceOfSatisfying(ReplyException.class,
                        e -> assertThat(e.getMessage()).contains(Bus.EPOCH_HEADER));
    }

    @Test
    void guardedMutationsByReferenceAndAsJsonDecideAlike() throws Exception {
        BusMetaStore byReference = new BusMetaStore(h.vertx, Bus.STORE, () -> epoch, 5_000, null, StoreLink.Reach.PROCESS_ONLY);
        BusMetaStore asJson = new BusMetaStore(h.vertx, Bus.STORE, () -> epoch, 5_000);
        byte[] lease = NodeHarness.await(asJson.get("election/leader")).orElseThrow();
        byte[] staleLease = java.util.Arrays.copyOf(lease, lease.length + 1);

        for (BusMetaStore store : java.util.List.of(byReference, asJson)) {
            String key = store == byReference ? "kv/ref" : "kv/json";
            assertThat(NodeHarness.await(store.guardedMutate(GuardedMutation.create("election/leader", lease, key, new byte[] {1}))))
                    .as("exact lease, absent target").isTrue();
            assertThat(NodeHarness.await(store.guardedMutate(GuardedMutation.update("election/leader", staleLease, key,
                    new byte[] {1}, new byte[] {2})))).as("other lease bytes").isFalse();
            assertThat(NodeHarness.await(store.get(key))).contains(new byte[] {1});
            assertThat(NodeHarness.await(store.withEpoch(epoch - 1).guardedMutate(GuardedMutation.update("election/leader",
                    lease, key, new byte[] {1}, new byte[] {3})))).as("lower epoch, refused on the fast path").isFalse();
            assertThat(NodeHarness.await(store.get(key))).contains(new byte[] {1});
        }
        assertThat(recording.guarded).as("the lower-epoch mutations never reached the store").hasSize(4);

        // A mutation object under any other operation is malformed, not silently applied.
        assertThatThrownBy(() -> NodeHarness.await(h.vertx.eventBus().request(Bus.STORE,
                GuardedMutation.create("election/leader", lease, "kv/odd", new byte[] {1}),
                new DeliveryOptions().addHeader(Bus.OP_HEADER, StoreProtocol.CAS).addHeader(Bus.EPOCH_HEADER, String.valueOf(epoch))
                        .setCodecName(LocalCodec.register(h.vertx, GuardedMutation.class)))))
                .isInstanceOfSatisfying(ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(StoreProtocol.INVALID_ARGUMENT));
        assertThat(NodeHarness.await(asJson.get("kv/odd"))).isEmpty();
    }
}
