package lake.meta;

import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;

import static lake.meta.StoreCalls.await;
import static lake.meta.StoreCalls.b;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transaction contract every {@link MetaStore} backend meets: a transaction applies all of
 * its operations or none; a refusal names every failed condition by index and a failed guard
 * apart from them; each condition kind holds on exact bytes; concurrent transfers keep their
 * total. {@link MetaStoreConformance} runs it, with {@link MetaStoreContract}, against each
 * backend.
 */
public interface TransactionContract extends StoreUnderTest {

    // ---- transactions -------------------------------------------------------------------------

    @Test
    default void transactionAppliesAllOrNothing() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store().cas(GUARD, null, lease))).isTrue();
        for (int i = 0; i < 50; i++) {
            if (i % 4 != 0) assertThat(await(store().cas(txnKey(i), null, b("old-" + i)))).isTrue();
        }
        TreeMap<String, byte[]> before = all();

        List<Transaction.Op> failing = fiftyOps();
        failing.set(25, Transaction.Op.update(txnKey(25), b("not-old-25"), b("new-25")));
        TransactionOutcome refused = await(store().transact(Transaction.guarded(GUARD, lease, failing)));
        assertThat(refused).isEqualTo(TransactionOutcome.notApplied(List.of(25), false));
        assertSameEntries(all(), before);

        assertThat(await(store().transact(Transaction.guarded(GUARD, lease, fiftyOps())))).isEqualTo(TransactionOutcome.APPLIED);
        for (int i = 0; i < 50; i++) {
            byte[] expected = switch (i % 4) {
                case 2 -> null;
                case 3 -> i % 8 == 3 ? b("old-" + i) : b("new-" + i);
                default -> b("new-" + i);
            };
            assertThat(value(txnKey(i))).as(txnKey(i)).isEqualTo(expected);
        }
        assertThat(value(GUARD)).containsExactly(lease);
    }

    /** Fifty operations that all hold on the state transactionAppliesAllOrNothing seeds. */
    private static List<Transaction.Op> fiftyOps() {
        List<Transaction.Op> ops = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String k = txnKey(i);
            ops.add(switch (i % 4) {
                case 0 -> Transaction.Op.create(k, b("new-" + i));
                case 1 -> Transaction.Op.update(k, b("old-" + i), b("new-" + i));
                case 2 -> Transaction.Op.delete(k, b("old-" + i));
                default -> i % 8 == 3 ? Transaction.Op.checkValue(k, b("old-" + i)) : Transaction.Op.put(k, b("new-" + i));
            });
        }
        return ops;
    }

    private static String txnKey(int i) {
        return "txn/" + String.format("%02d", i);
    }

    @Test
    default void transactionReportsEveryFailedCondition() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store().cas(GUARD, null, lease))).isTrue();
        assertThat(await(store().cas("a", null, b("1")))).isTrue();
        assertThat(await(store().cas("c", null, b("3")))).isTrue();
        assertThat(await(store().cas("e", null, new byte[0]))).isTrue();
        assertThat(await(store().cas("e2", null, new byte[0]))).isTrue();
        List<Transaction.Op> ops = List.of(
                Transaction.Op.checkValue("a", b("1")),        // 0 holds
                Transaction.Op.checkExists("b"),               // 1 fails: absent
                Transaction.Op.create("c", b("x")),            // 2 fails: present
                Transaction.Op.put("d", b("4")),               // 3 holds: no condition
                Transaction.Op.delete("c2", b("3")),           // 4 fails: absent
                Transaction.Op.checkAbsent("b2"),              // 5 holds
                Transaction.Op.update("e", b("e"), b("5")),    // 6 fails: empty is not "e"
                Transaction.Op.checkExists("e2"));             // 7 holds: empty exists
        TreeMap<String, byte[]> before = all();

        assertThat(await(store().transact(Transaction.guarded(GUARD, lease, ops))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(1, 2, 4, 6), false));
        assertThat(await(store().transact(Transaction.of(ops))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(1, 2, 4, 6), false));
        // A failed guard is reported as the guard, beside the operations that failed as well.
        assertThat(await(store().transact(Transaction.guarded(GUARD, b("stale"), ops))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(1, 2, 4, 6), true));
        assertThat(await(store().transact(Transaction.guarded(GUARD, b("stale"), List.of(ops.get(0), ops.get(3))))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(), true));
        assertThat(await(store().transact(Transaction.guarded("absent/guard", lease, List.of(ops.get(1))))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(0), true));
        assertSameEntries(all(), before);
    }

    @Test
    default void transactionConditionKindsHold() throws Exception {
        assertThat(await(store().cas("present", null, b("p")))).isTrue();
        assertThat(await(store().cas("empty", null, new byte[0]))).isTrue();
        assertThat(await(store().cas("empty2", null, new byte[0]))).isTrue();
        TreeMap<String, byte[]> before = all();
        record Case(Transaction.Op op, boolean holds) {}
        List<Case> checks = List.of(
                new Case(Transaction.Op.checkAbsent("absent"), true),
                new Case(Transaction.Op.checkAbsent("present"), false),
                new Case(Transaction.Op.checkAbsent("empty"), false),
                new Case(Transaction.Op.checkValue("present", b("p")), true),
                new Case(Transaction.Op.checkValue("present", b("p ")), false),
                new Case(Transaction.Op.checkValue("present", new byte[0]), false),
                new Case(Transaction.Op.checkValue("empty", new byte[0]), true),
                new Case(Transaction.Op.checkValue("absent", new byte[0]), false),
                new Case(Transaction.Op.checkExists("present"), true),
                new Case(Transaction.Op.checkExists("empty"), true),
                new Case(Transaction.Op.checkExists("absent"), false));
        for (Case c : checks) {
            TransactionOutcome outcome = await(store().transact(Transaction.of(List.of(c.op()))));
            assertThat(outcome).as(c.op().toString())
                    .isEqualTo(c.holds() ? TransactionOutcome.APPLIED : TransactionOutcome.notApplied(List.of(0), false));
        }
        assertSameEntries(all(), before);

        // Writes alone, each kind of condition.
        assertApplied(Transaction.Op.create("w/created", b("c")));
        assertApplied(Transaction.Op.put("w/created", b("c2")));
        assertApplied(Transaction.Op.put("w/fresh", b("f")));
        assertApplied(Transaction.Op.update("w/created", b("c2"), b("c3")));
        assertApplied(Transaction.Op.of("w/created", Transaction.Condition.EXISTS, null, Transaction.Action.PUT, b("c4")));
        assertThat(value("w/created")).containsExactly(b("c4"));
        assertApplied(Transaction.Op.delete("w/fresh", b("f")));
        assertApplied(Transaction.Op.deleteAny("w/never-there"));
        assertApplied(Transaction.Op.of("w/created", Transaction.Condition.EXISTS, null, Transaction.Action.DELETE, null));
        assertApplied(Transaction.Op.of("w/gone", Transaction.Condition.ABSENT, null, Transaction.Action.DELETE, null));
        assertThat(await(store().get("w/created"))).isEmpty();
        assertThat(await(store().get("w/fresh"))).isEmpty();
        assertThat(await(store().get("w/gone"))).isEmpty();

        // Mixed: checks, puts and deletes of every condition in one step.
        assertThat(await(store().transact(Transaction.of(List.of(
                Transaction.Op.checkExists("empty2"),
                Transaction.Op.checkAbsent("absent"),
                Transaction.Op.checkValue("empty", new byte[0]),
                Transaction.Op.create("m/new", b("n")),
                Transaction.Op.put("m/any", new byte[0]),
                Transaction.Op.update("present", b("p"), b("p2")),
                Transaction.Op.deleteAny("m/none")))))).isEqualTo(TransactionOutcome.APPLIED);
        assertThat(value("present")).containsExactly(b("p2"));
        assertThat(value("m/new")).containsExactly(b("n"));
        assertThat(value("m/any")).isEmpty();
        assertThat(await(store().transact(Transaction.of(List.of(
                Transaction.Op.delete("present", b("p2")),
                Transaction.Op.of("empty", Transaction.Condition.EXISTS, null, Transaction.Action.DELETE, null),
                Transaction.Op.checkAbsent("m/new")))))).isEqualTo(TransactionOutcome.notApplied(List.of(2), false));
        assertThat(value("present")).containsExactly(b("p2"));
        assertThat(value("empty")).isEmpty();
    }

    private void assertApplied(Transaction.Op op) throws Exception {
        assertThat(await(store().transact(Transaction.of(List.of(op))))).as(op.toString()).isEqualTo(TransactionOutcome.APPLIED);
    }

    @Test
    default void concurrentTransfersPreserveTotal() throws Exception {
        int accounts = 4;
        int workers = 4;
        int transfersPerWorker = 12;
        long seed = 0x5EED_11L;
        byte[] lease = b("lease");
        assertThat(await(store().cas(GUARD, null, lease))).isTrue();
        for (int a = 0; a < accounts; a++) assertThat(await(store().cas(account(a), null, b("100")))).isTrue();

        record Transfer(int from, int to, int amount) {}
        List<Transfer> acknowledged = Collections.synchronizedList(new ArrayList<>());
        List<Future<Integer>> tasks = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            java.util.Random random = new java.util.Random(seed + w);
            tasks.add(vertx().executeBlocking(() -> {
                int retries = 0;
                for (int i = 0; i < transfersPerWorker; i++) {
                    int from = random.nextInt(accounts);
                    int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
                    int amount = 1 + random.nextInt(20);
                    for (int attempt = 0; ; attempt++) {
                        if (attempt == 500) throw new AssertionError("transfer never applied after 500 attempts");
                        byte[] fromValue = value(account(from));
                        byte[] toValue = value(account(to));
                        TransactionOutcome outcome = await(store().transact(Transaction.guarded(GUARD, lease, List.of(
                                Transaction.Op.update(account(from), fromValue, b(String.valueOf(parse(fromValue) - amount))),
                                Transaction.Op.update(account(to), toValue, b(String.valueOf(parse(toValue) + amount)))))));
                        if (outcome.applied()) {
                            acknowledged.add(new Transfer(from, to, amount));
                            break;
                        }
                        assertThat(outcome.guardFailed()).isFalse();
                        assertThat(outcome.failed()).isNotEmpty();
                        retries++;
                    }
                }
                return retries;
            }, false));
        }
        int retries = 0;
        for (Future<Integer> t : tasks) retries += await(t);

        long[] expected = new long[accounts];
        java.util.Arrays.fill(expected, 100);
        for (Transfer t : acknowledged) {
            expected[t.from()] -= t.amount();
            expected[t.to()] += t.amount();
        }
        long total = 0;
        for (int a = 0; a < accounts; a++) {
            long balance = parse(value(account(a)));
            assertThat(balance).as("account %d reflects every acknowledged transfer (%d retries)", a, retries).isEqualTo(expected[a]);
            total += balance;
        }
        assertThat(acknowledged).hasSize(workers * transfersPerWorker);
        assertThat(total).isEqualTo(100L * accounts);
    }

    private static String account(int a) {
        return "acct/" + a;
    }

    private static long parse(byte[] value) {
        return Long.parseLong(new String(value, StandardCharsets.UTF_8));
    }

    @Test
    default void staleGuardTransactionWritesNothing() throws Exception {
        byte[] stale = b("lease-epoch-1");
        byte[] current = b("lease-epoch-2");
        assertThat(await(store().cas(GUARD, null, stale))).isTrue();
        assertThat(await(store().transact(Transaction.guarded(GUARD, stale, List.of(
                Transaction.Op.create("tbl/a", b("a1")), Transaction.Op.create("tbl/b", b("b1"))))))).isEqualTo(TransactionOutcome.APPLIED);
        assertThat(await(store().cas(GUARD, stale, current))).isTrue();
        TreeMap<String, byte[]> before = all();

        Transaction underStaleLease = Transaction.guarded(GUARD, stale, List.of(
                Transaction.Op.update("tbl/a", b("a1"), b("a2")),
                Transaction.Op.delete("tbl/b", b("b1")),
                Transaction.Op.create("tbl/c", b("c1"))));
        assertThat(await(store().transact(underStaleLease))).isEqualTo(TransactionOutcome.notApplied(List.of(), true));
        assertSameEntries(all(), before);
        // An absent guard fails the same way; the current guard applies the very same operations.
        assertThat(await(store().transact(underStaleLease.withGuard("election/other", current))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(), true));
        assertSameEntries(all(), before);
        assertThat(await(store().transact(underStaleLease.withGuard(GUARD, current)))).isEqualTo(TransactionOutcome.APPLIED);
        assertThat(value("tbl/a")).containsExactly(b("a2"));
        assertThat(await(store().get("tbl/b"))).isEmpty();
        assertThat(value("tbl/c")).containsExactly(b("c1"));
    }

    private static void assertSameEntries(TreeMap<String, byte[]> actual, TreeMap<String, byte[]> expected) {
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        expected.forEach((k, v) -> assertThat(actual.get(k)).as(k).containsExactly(v));
    }
}
