package lake.bus;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.meta.MetaException;
import lake.meta.Transaction.Op;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.RecordingStore;
import lake.node.StoreVerticle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static lake.node.NodeHarness.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The store address's {@code txn} operation: by reference and as JSON alike, with the stale-epoch fast path. */
class StoreTransactionBusTest {
    private static final String ADDRESS = "test.store";
    private static final String GUARD = "election/leader";
    private static final long EPOCH = 5;

    @TempDir Path dir;
    Vertx vertx;
    RecordingStore recording;

    @BeforeEach
    void deployStore() throws Exception {
        vertx = Vertx.vertx();
        await(vertx.deployVerticle(new StoreVerticle(
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir)).map(s -> recording = new RecordingStore(s)), ADDRESS, true)));
    }

    @AfterEach
    void close() throws Exception {
        await(vertx.close());
    }

    @Test
    void transactionsByReferenceAndAsJsonDecideAlike() throws Exception {
        BusMetaStore byReference = new BusMetaStore(vertx, ADDRESS, () -> EPOCH, 5_000, null, StoreLink.Reach.PROCESS_ONLY);
        BusMetaStore asJson = new BusMetaStore(vertx, ADDRESS, () -> EPOCH, 5_000);
        byte[] lease = b("lease");
        assertThat(await(asJson.cas(GUARD, null, lease))).isTrue();

        for (BusMetaStore store : List.of(byReference, asJson)) {
            String key = store == byReference ? "kv/ref" : "kv/json";
            Transaction create = Transaction.guarded(GUARD, lease, List.of(Op.create(key, b("1")), Op.checkAbsent(key + "/x")));
            assertThat(await(store.transact(create))).isEqualTo(TransactionOutcome.APPLIED);
            assertThat(await(store.transact(create))).isEqualTo(TransactionOutcome.notApplied(List.of(0), false));
            assertThat(await(store.transact(create.withGuard(GUARD, b("stale")))))
                    .isEqualTo(TransactionOutcome.notApplied(List.of(0), true));
            int reached = recording.transactions.size();
            Transaction update = Transaction.guarded(GUARD, lease, List.of(Op.update(key, b("1"), b("2"))));
            assertThat(await(store.withEpoch(EPOCH - 1).transact(update)))
                    .as("lower epoch, refused on the fast path").isEqualTo(TransactionOutcome.notApplied(List.of(), true));
            assertThat(recording.transactions).as("the lower-epoch transaction never reached the store").hasSize(reached);
            // Unguarded, a transaction has no lease to be stale: it reaches the store whatever its epoch.
            assertThat(await(store.withEpoch(EPOCH - 1).transact(Transaction.of(update.ops())))).isEqualTo(TransactionOutcome.APPLIED);
            assertThat(await(store.get(key))).contains(b("2"));
        }
        assertThat(recording.transactions).hasSize(8);
    }

    /** A node whose store another node hosts finds the change feed's end through the store address too. */
    @Test
    void lastKeyCrossesTheStoreAddress() throws Exception {
        BusMetaStore store = new BusMetaStore(vertx, ADDRESS, () -> EPOCH, 5_000);
        assertThat(await(store.lastKey("feed/"))).isEmpty();
        for (String k : List.of("feed/01", "feed/02", "feee")) assertThat(await(store.cas(k, null, b(k)))).isTrue();
        assertThat(await(store.lastKey("feed/"))).contains("feed/02");
        assertThatThrownBy(() -> await(store.lastKey(null))).isInstanceOf(lake.meta.MetaException.InvalidArgument.class);
        BusMetaStore nowhere = new BusMetaStore(vertx, "no.such.store", () -> EPOCH, 5_000);
        assertThatThrownBy(() -> await(nowhere.lastKey("feed/"))).as("a read: retryable, never an unknown outcome")
                .isInstanceOf(lake.meta.MetaException.RetryableBackend.class);
    }

    @Test
    void transactionJsonRoundTripsAndMalformedOnesAreInvalidArguments() throws Exception {
        Transaction t = Transaction.guarded(GUARD, b("lease"), List.of(Op.create("a", b("1")), Op.update("b", new byte[0], b("2")),
                Op.delete("c", b("3")), Op.deleteAny("d"), Op.checkExists("e"), Op.checkValue("f", b("6")), Op.put("g", new byte[0])));
        assertThat(StoreProtocol.transaction(StoreProtocol.transaction(t))).isEqualTo(t);
        Transaction unguarded = Transaction.of(t.ops());
        assertThat(StoreProtocol.transaction(StoreProtocol.transaction(unguarded))).isEqualTo(unguarded);
        for (TransactionOutcome o : List.of(TransactionOutcome.APPLIED, TransactionOutcome.notApplied(List.of(1, 3), false),
                TransactionOutcome.notApplied(List.of(), true))) {
            assertThat(StoreProtocol.outcome(StoreProtocol.outcome(o))).isEqualTo(o);
        }

        JsonObject unknownCondition = new JsonObject().put("ops", new JsonArray().add(new JsonObject()
                .put("key", "a").put("condition", "maybe").put("action", "check")));
        assertThatThrownBy(() -> StoreProtocol.transaction(unknownCondition))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("operation 0: unknown condition 'maybe'");
        JsonObject checkOnly = new JsonObject().put("ops", new JsonArray().add(new JsonObject().put("key", "a"))
                .add(new JsonObject().put("key", "b").put("condition", "none").put("action", "check")));
        assertThatThrownBy(() -> StoreProtocol.transaction(checkOnly))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("operation 0: condition must not be null");

        DeliveryOptions txn = new DeliveryOptions().addHeader(Bus.OP_HEADER, StoreProtocol.TXN).addHeader(Bus.EPOCH_HEADER, "1");
        assertThatThrownBy(() -> await(vertx.eventBus().request(ADDRESS, unknownCondition, txn)))
                .isInstanceOfSatisfying(ReplyException.class, e -> {
                    assertThat(e.failureCode()).isEqualTo(StoreProtocol.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("operation 0");
                });
        // A transaction object under any other operation is malformed, not silently applied.
        assertThatThrownBy(() -> await(vertx.eventBus().request(ADDRESS, unguarded,
                new DeliveryOptions().addHeader(Bus.OP_HEADER, StoreProtocol.CAS).addHeader(Bus.EPOCH_HEADER, "1")
                        .setCodecName(LocalCodec.register(vertx, Transaction.class)))))
                .isInstanceOfSatisfying(ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(StoreProtocol.INVALID_ARGUMENT));
        assertThat(recording.calls()).as("nothing malformed reached the store").isZero();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
