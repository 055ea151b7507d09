package lake.server;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import lake.meta.MetaException;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static lake.server.NodeHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls that queue up for one clustered address share a bus message, and each is answered exactly
 * as if it had gone alone: over a real store verticle (RocksDB) offered to the cluster, reached as
 * a remote node reaches it.
 */
class BusBatchTest {
    private static final String ADDRESS = "test.store";

    @TempDir Path dir;
    Vertx vertx;
    final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();

    @BeforeEach
    void deployStore() throws Exception {
        vertx = Vertx.vertx();
        await(vertx.deployVerticle(new StoreVerticle(v -> RocksMetaStore.open(v, RocksConfig.defaults(dir)), ADDRESS, false)));
        vertx.eventBus().addOutboundInterceptor(ctx -> {
            sent.computeIfAbsent(ctx.message().address(), a -> new AtomicInteger()).incrementAndGet();
            ctx.next();
        });
    }

    @AfterEach
    void close() throws Exception {
        await(vertx.close());
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private int messages(String address) {
        AtomicInteger n = sent.get(address);
        return n == null ? 0 : n.get();
    }

    @Test
    void queuedCallsShareMessagesAndAreAnsweredAlike() throws Exception {
        BusMetaStore remote = new BusMetaStore(vertx, ADDRESS, () -> 1L, 10_000, null, ElectionSettings.StoreReach.REMOTE);
        assertThat(await(remote.cas("kv/taken", null, b("x")))).isTrue();
        int before = messages(ADDRESS) + messages(BusBatch.address(ADDRESS));

        List<Future<Boolean>> writes = new ArrayList<>();
        for (int i = 0; i < 300; i++) writes.add(remote.cas("kv/" + i, null, b("v" + i)));
        Future<Boolean> taken = remote.cas("kv/taken", null, b("y"));
        await(Future.join(new ArrayList<>(writes)));

        for (Future<Boolean> w : writes) assertThat(w.result()).isTrue();
        assertThat(await(taken)).as("a failed condition is false, as alone").isFalse();
        int used = messages(ADDRESS) + messages(BusBatch.address(ADDRESS)) - before;
        assertThat(messages(BusBatch.address(ADDRESS))).as("batches were sent").isPositive();
        assertThat(used).as("301 calls in fewer messages").isLessThan(301);

        List<Future<Optional<byte[]>>> reads = new ArrayList<>();
        for (int i = 0; i < 300; i++) reads.add(remote.get("kv/" + i));
        await(Future.join(new ArrayList<>(reads)));
        for (int i = 0; i < 300; i++) assertThat(reads.get(i).result()).as("kv/%d", i).contains(b("v" + i));
        assertThat(await(remote.get("kv/taken"))).contains(b("x"));
    }

    @Test
    void anItemFailsAsItWouldAlone() throws Exception {
        BusBatch.Sender sender = new BusBatch.Sender(vertx, 1, 64, 1 << 20);
        // The first call holds the only slot; the next three queue and leave as one batch.
        List<Future<JsonObject>> calls = new ArrayList<>();
        for (String op : List.of(StoreProtocol.GET, StoreProtocol.GET, "no-such-op", StoreProtocol.GET)) {
            calls.add(sender.request(ADDRESS, new JsonObject().put("key", "kv/none"),
                    new DeliveryOptions().setSendTimeout(10_000).addHeader(Bus.OP_HEADER, op).addHeader(Bus.EPOCH_HEADER, "1")));
        }
        await(Future.join(new ArrayList<>(calls)).otherwiseEmpty());
        assertThat(messages(BusBatch.address(ADDRESS))).isEqualTo(1);
        assertThat(calls.get(0).result()).isEqualTo(new JsonObject().putNull("value"));
        assertThat(calls.get(1).result()).isEqualTo(new JsonObject().putNull("value"));
        assertThat(calls.get(3).result()).isEqualTo(new JsonObject().putNull("value"));
        assertThat(calls.get(2).cause()).isInstanceOfSatisfying(ReplyException.class, e -> {
            assertThat(e.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
            assertThat(e.failureCode()).isEqualTo(StoreProtocol.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("unknown store operation 'no-such-op'");
        });
    }

    @Test
    void anUnansweredBatchIsUnknownForEveryItemAndNeverResent() throws Exception {
        String silent = "test.silent";
        List<Message<Object>> received = new CopyOnWriteArrayList<>();
        await(vertx.eventBus().consumer(silent, received::add).completion());
        await(vertx.eventBus().consumer(BusBatch.address(silent), received::add).completion());
        BusMetaStore remote = new BusMetaStore(vertx, silent, () -> 1L, 300, null, ElectionSettings.StoreReach.REMOTE);

        List<Future<Boolean>> writes = new ArrayList<>();
        for (int i = 0; i < 5; i++) writes.add(remote.cas("kv/" + i, null, b("v")));
        await(Future.join(new ArrayList<>(writes)).otherwiseEmpty());

        for (Future<Boolean> w : writes) assertThat(w.cause()).as("a write without an answer").isInstanceOf(MetaException.OutcomeUnknown.class);
        // Two alone (the in-flight bound), then the three that queued as one batch; nothing resent.
        assertThat(received).hasSize(3);
        assertThat(messages(BusBatch.address(silent))).isEqualTo(1);
        JsonObject batch = (JsonObject) received.stream().filter(m -> m.address().equals(BusBatch.address(silent)))
                .findFirst().orElseThrow().body();
        assertThat(batch.getJsonArray("items")).hasSize(3);
    }
}
