package lake.meta;

import io.vertx.core.Future;
import lake.meta.Transaction.Action;
import lake.meta.Transaction.Condition;
import lake.meta.Transaction.Op;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.RecordingStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The transaction value type: its shape rules, enforced before any store sees it, and its immutability. */
class TransactionTest {
    private static final byte[] LEASE = b("lease");

    @TempDir
    Path dir;

    @Test
    void transactionRefusesInvalidShapesBeforeTheStore() throws Exception {
        RecordingStore store = new RecordingStore(RocksMetaStore.open(RocksConfig.defaults(dir)));
        try {
            List<Op> tooMany = new ArrayList<>();
            for (int i = 0; i <= Transaction.MAX_OPERATIONS; i++) tooMany.add(Op.put("k" + i, b("v")));
            byte[] big = new byte[Keys.MAX_VALUE_BYTES];
            List<Op> oversized = new ArrayList<>();
            for (int i = 0; i < 16; i++) oversized.add(Op.put("big" + i, big));
            List<Op> withNull = new ArrayList<>(List.of(Op.put("a", b("v"))));
            withNull.add(null);

            refused(store, () -> Transaction.of(null), MetaException.InvalidArgument.class, "1 to 99 operations, got 0");
            refused(store, () -> Transaction.of(List.of()), MetaException.InvalidArgument.class, "got 0");
            refused(store, () -> Transaction.of(tooMany), MetaException.InvalidArgument.class, "got 100");
            refused(store, () -> Transaction.of(withNull), MetaException.InvalidArgument.class, "operation 1 must not be null");
            refused(store, () -> Transaction.of(List.of(Op.put("a", b("1")), Op.checkExists("b"), Op.deleteAny("a"))),
                    MetaException.InvalidMutation.class, "operations 0 and 2 both touch key 'a'");
            refused(store, () -> Transaction.guarded("g", LEASE, List.of(Op.put("a", b("1")), Op.put("g", b("2")))),
                    MetaException.InvalidMutation.class, "operation 1: key 'g' is the guard key");
            refused(store, () -> Transaction.of(List.of(Op.put("a", b("1")))).withGuard("a", LEASE),
                    MetaException.InvalidMutation.class, "guard key");
            refused(store, () -> Transaction.of(oversized), MetaException.InvalidArgument.class,
                    "the maximum is " + Transaction.MAX_TOTAL_BYTES);
            // Exactly at the limit is accepted: 16 values of 256 KiB are 4 MiB, the keys push it over.
            assertThat(Transaction.of(oversized.subList(0, 15)).ops()).hasSize(15);
            refused(store, () -> Transaction.guarded("g", null, List.of(Op.put("a", b("1")))),
                    MetaException.InvalidArgument.class, "guard expected value must not be null");
            refused(store, () -> Transaction.guarded("", LEASE, List.of(Op.put("a", b("1")))),
                    MetaException.InvalidArgument.class, "guard key must not be empty");

            // Operation shapes.
            refused(store, () -> Op.of("k", Condition.VALUE, null, Action.PUT, b("v")), MetaException.InvalidMutation.class, "VALUE needs");
            refused(store, () -> Op.of("k", Condition.ABSENT, b("x"), Action.PUT, b("v")), MetaException.InvalidMutation.class, "only allowed with condition VALUE");
            refused(store, () -> Op.of("k", Condition.NONE, null, Action.PUT, null), MetaException.InvalidMutation.class, "PUT needs a value");
            refused(store, () -> Op.of("k", Condition.EXISTS, null, Action.DELETE, b("v")), MetaException.InvalidMutation.class, "only allowed with action PUT");
            refused(store, () -> Op.of("k", Condition.NONE, null, Action.CHECK, null), MetaException.InvalidMutation.class, "check-only operation needs a condition");
            refused(store, () -> Op.of("k", null, null, Action.CHECK, null), MetaException.InvalidArgument.class, "condition must not be null");
            refused(store, () -> Op.of("k", Condition.EXISTS, null, null, null), MetaException.InvalidArgument.class, "action must not be null");
            refused(store, () -> Op.put("k", new byte[Keys.MAX_VALUE_BYTES + 1]), MetaException.InvalidArgument.class, "value is");
            refused(store, () -> Op.checkValue("k", new byte[Keys.MAX_VALUE_BYTES + 1]), MetaException.InvalidArgument.class, "expected value is");
            for (String badKey : new String[] {null, "", "a\0b", "bad\uD800", "k".repeat(Keys.MAX_KEY_BYTES + 1)}) {
                refused(store, () -> Op.create(badKey, b("v")), MetaException.InvalidArgument.class, "key");
            }
            // Built at a known index, a refusal names the operation.
            refused(store, () -> Op.at(3, "", Condition.NONE, null, Action.PUT, b("v")),
                    MetaException.InvalidArgument.class, "operation 3: key must not be empty");
            refused(store, () -> Op.at(7, "k", Condition.NONE, null, Action.CHECK, null),
                    MetaException.InvalidMutation.class, "operation 7: a check-only operation needs a condition");

            assertThat(store.calls()).as("no refused transaction reached the store").isZero();
            assertThat(await(store.scanPrefix("", null, 10)).entries()).isEmpty();
            assertThat(failure(store.transact(null))).isInstanceOf(MetaException.InvalidArgument.class);
        } finally {
            await(store.close());
        }
    }

    @Test
    void transactionIsImmutableAndEqualByContent() {
        byte[] value = b("value");
        byte[] expected = b("old");
        byte[] guard = b("lease");
        List<Op> ops = new ArrayList<>(List.of(Op.update("a", expected, value), Op.checkAbsent("b")));
        Transaction t = Transaction.guarded("g", guard, ops);
        value[0] = 'X';
        expected[0] = 'X';
        guard[0] = 'X';
        ops.add(Op.put("c", b("v")));
        t.ops().get(0).value()[0] = 'Y';
        t.guardExpected()[0] = 'Y';

        assertThat(t.ops()).hasSize(2);
        assertThat(t.ops().get(0).value()).containsExactly(b("value"));
        assertThat(t.ops().get(0).expected()).containsExactly(b("old"));
        assertThat(t.guardExpected()).containsExactly(b("lease"));
        assertThatThrownBy(() -> t.ops().add(Op.put("d", b("v")))).isInstanceOf(UnsupportedOperationException.class);

        Transaction same = Transaction.of(List.of(Op.update("a", b("old"), b("value")), Op.checkAbsent("b"))).withGuard("g", b("lease"));
        assertThat(same).isEqualTo(t).hasSameHashCodeAs(t);
        assertThat(same.withGuard("g", b("other"))).isNotEqualTo(t);
        assertThat(Transaction.of(t.ops()).guardKey()).isEmpty();
        assertThat(Transaction.of(t.ops()).guardExpected()).isNull();
        assertThat(t.guardKey()).contains("g");
    }

    @Test
    void conveniencesBuildTheirConditionAndAction() {
        assertThat(List.of(Op.create("k", b("v")), Op.put("k", b("v")), Op.update("k", b("e"), b("v")),
                Op.delete("k", b("e")), Op.deleteAny("k"), Op.checkAbsent("k"), Op.checkValue("k", b("e")), Op.checkExists("k")))
                .extracting(op -> op.condition() + "/" + op.action())
                .containsExactly("ABSENT/PUT", "NONE/PUT", "VALUE/PUT", "VALUE/DELETE", "NONE/DELETE",
                        "ABSENT/CHECK", "VALUE/CHECK", "EXISTS/CHECK");
    }

    @Test
    void guardedMutationIsAOneOperationGuardedTransaction() {
        assertThat(GuardedMutation.create("g", LEASE, "t", b("v")).asTransaction())
                .isEqualTo(Transaction.guarded("g", LEASE, List.of(Op.create("t", b("v")))));
        assertThat(GuardedMutation.update("g", LEASE, "t", b("o"), b("v")).asTransaction())
                .isEqualTo(Transaction.guarded("g", LEASE, List.of(Op.update("t", b("o"), b("v")))));
        assertThat(GuardedMutation.delete("g", LEASE, "t", b("o")).asTransaction())
                .isEqualTo(Transaction.guarded("g", LEASE, List.of(Op.delete("t", b("o")))));
    }

    @Test
    void outcomeKeepsItsInvariants() {
        assertThat(TransactionOutcome.APPLIED.applied()).isTrue();
        assertThat(TransactionOutcome.APPLIED.failed()).isEmpty();
        assertThat(TransactionOutcome.notApplied(List.of(1, 4), false).failed()).containsExactly(1, 4);
        assertThat(TransactionOutcome.notApplied(List.of(), true).guardFailed()).isTrue();
        assertThatThrownBy(() -> TransactionOutcome.notApplied(List.of(), false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TransactionOutcome.notApplied(List.of(4, 1), false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TransactionOutcome(true, List.of(1), false)).isInstanceOf(IllegalArgumentException.class);
        List<Integer> failed = new ArrayList<>(List.of(2));
        TransactionOutcome outcome = TransactionOutcome.notApplied(failed, false);
        failed.add(3);
        assertThat(outcome.failed()).containsExactly(2);
        assertThat(Collections.unmodifiableList(outcome.failed())).isEqualTo(List.of(2));
    }

    private static void refused(RecordingStore store, ThrowingSupplier<Object> build,
                                Class<? extends MetaException> type, String message) {
        assertThatThrownBy(() -> store.transact((Transaction) build.get()))
                .isInstanceOf(type).hasMessageContaining(message);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static Throwable failure(Future<?> f) throws Exception {
        try {
            await(f);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure");
    }
}
