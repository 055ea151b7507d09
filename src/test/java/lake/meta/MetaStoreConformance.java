package lake.meta;

import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every {@link MetaStore} backend meets, run unchanged against each of them. A backend
 * test extends this class and opens a fresh, empty store for every test ({@link StoreFixture}).
 */
public abstract class MetaStoreConformance extends StoreFixture {

    protected static final String GUARD = "election/leader";

    // ---- guarded mutation ----------------------------------------------------------------------

    @Test
    void guardedMutationAppliesAllTargetTransitions() throws Exception {
        byte[] lease = b("lease-epoch-1");
        assertThat(await(store.cas(GUARD, null, lease))).isTrue();

        assertThat(await(store.guardedMutate(GuardedMutation.create(GUARD, lease, "tbl/a", b("v1"))))).isTrue();
        assertThat(value("tbl/a")).containsExactly(b("v1"));

        assertThat(await(store.guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/a", b("v1"), b("v2"))))).isTrue();
        assertThat(value("tbl/a")).containsExactly(b("v2"));

        assertThat(await(store.guardedMutate(GuardedMutation.delete(GUARD, lease, "tbl/a", b("v2"))))).isTrue();
        assertThat(await(store.get("tbl/a"))).isEmpty();
        assertThat(value(GUARD)).as("the guard is only checked, never written").containsExactly(lease);
    }

    @Test
    void guardedMutationRejectsStaleGuardWithoutTargetChange() throws Exception {
        byte[] stale = b("lease-epoch-1");
        byte[] current = b("lease-epoch-2");
        byte[] target = b("published-under-epoch-1");
        assertThat(await(store.cas(GUARD, null, stale))).isTrue();
        assertThat(await(store.guardedMutate(GuardedMutation.create(GUARD, stale, "tbl/t", target)))).isTrue();
        assertThat(await(store.cas(GUARD, stale, current))).isTrue();

        assertThat(await(store.guardedMutate(GuardedMutation.create(GUARD, stale, "tbl/new", b("x"))))).isFalse();
        assertThat(await(store.guardedMutate(GuardedMutation.update(GUARD, stale, "tbl/t", target, b("y"))))).isFalse();
        assertThat(await(store.guardedMutate(GuardedMutation.delete(GUARD, stale, "tbl/t", target)))).isFalse();

        assertThat(await(store.get("tbl/new"))).isEmpty();
        assertThat(value("tbl/t")).containsExactly(target);
        assertThat(value(GUARD)).containsExactly(current);
        // An absent guard is a mismatch too.
        assertThat(await(store.delete(GUARD, current))).isTrue();
        assertThat(await(store.guardedMutate(GuardedMutation.update(GUARD, current, "tbl/t", target, b("z"))))).isFalse();
        assertThat(value("tbl/t")).containsExactly(target);
    }

    @Test
    void guardedMutationRejectsSameKey() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store.cas(GUARD, null, lease))).isTrue();

        assertThatThrownBy(() -> GuardedMutation.create(GUARD, lease, GUARD, b("x")))
                .isInstanceOf(MetaException.InvalidMutation.class).hasMessageContaining(GUARD);
        assertThatThrownBy(() -> GuardedMutation.update(GUARD, lease, GUARD, lease, b("x")))
                .isInstanceOf(MetaException.InvalidMutation.class);
        assertThatThrownBy(() -> GuardedMutation.delete(GUARD, lease, GUARD, lease))
                .isInstanceOf(MetaException.InvalidMutation.class);

        assertThat(value(GUARD)).containsExactly(lease);
        assertThat(all()).containsOnlyKeys(GUARD);
    }

    @Test
    void guardedMutationTargetMismatchIsFalse() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store.cas(GUARD, null, lease))).isTrue();
        assertThat(await(store.cas("tbl/t", null, b("v1")))).isTrue();

        assertThat(await(store.guardedMutate(GuardedMutation.create(GUARD, lease, "tbl/t", b("other"))))).isFalse();
        assertThat(await(store.guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/t", b("v0"), b("v2"))))).isFalse();
        assertThat(await(store.guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/absent", b("v1"), b("v2"))))).isFalse();
        assertThat(await(store.guardedMutate(GuardedMutation.delete(GUARD, lease, "tbl/t", b("v1-but-longer"))))).isFalse();
        assertThat(await(store.guardedMutate(GuardedMutation.delete(GUARD, lease, "tbl/absent", b("v1"))))).isFalse();
        // An empty expected value is not the same as an absent or a non-empty one.
        assertThat(await(store.guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/t", new byte[0], b("v2"))))).isFalse();

        assertThat(value("tbl/t")).containsExactly(b("v1"));
        assertThat(all()).containsOnlyKeys(GUARD, "tbl/t");
    }

    // ---- cas and delete -----------------------------------------------------------------------

    @Test
    void casAndDeleteFollowExactValueSemantics() throws Exception {
        assertThat(await(store.get("k"))).isEmpty();
        assertThat(await(store.cas("k", b("x"), b("v")))).as("expected value on an absent key").isFalse();
        assertThat(await(store.cas("k", null, b("v1")))).isTrue();
        assertThat(await(store.cas("k", null, b("v2")))).as("must-be-absent on a present key").isFalse();
        assertThat(await(store.cas("k", b("v"), b("v2")))).as("prefix of the current value").isFalse();
        assertThat(await(store.cas("k", b("v1 "), b("v2")))).as("longer than the current value").isFalse();
        assertThat(value("k")).containsExactly(b("v1"));
        assertThat(await(store.cas("k", b("v1"), b("v2")))).isTrue();
        assertThat(value("k")).containsExactly(b("v2"));

        // Empty is a value, distinct from absent.
        assertThat(await(store.cas("k", b("v2"), new byte[0]))).isTrue();
        assertThat(await(store.get("k"))).hasValueSatisfying(v -> assertThat(v).isEmpty());
        assertThat(await(store.cas("k", null, b("x")))).isFalse();

        assertThat(await(store.delete("k", b("v2")))).as("delete with a stale value").isFalse();
        assertThat(await(store.delete("absent", b("v2")))).as("delete of an absent key").isFalse();
        assertThat(await(store.delete("k", new byte[0]))).isTrue();
        assertThat(await(store.get("k"))).isEmpty();
        assertThat(await(store.delete("k", new byte[0]))).as("second delete").isFalse();

        // Binary values round-trip byte for byte.
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) binary[i] = (byte) i;
        assertThat(await(store.cas("bin", null, binary))).isTrue();
        assertThat(value("bin")).containsExactly(binary);
        byte[] largest = new byte[Keys.MAX_VALUE_BYTES];
        largest[largest.length - 1] = 7;
        assertThat(await(store.cas("big", null, largest))).isTrue();
        assertThat(value("big")).containsExactly(largest);
    }

    // ---- scans --------------------------------------------------------------------------------

    @Test
    void scanPrefixPagesThroughEveryEntryOnce() throws Exception {
        TreeMap<String, byte[]> expected = new TreeMap<>(Keys.UTF8_ORDER);
        List<Future<Boolean>> writes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String key = "tbl/a/" + String.format("%04d", i) + (i % 7 == 0 ? "/é" : i % 11 == 0 ? "/\u4e2d" : "");
            expected.put(key, b("v" + i));
            writes.add(store.cas(key, null, b("v" + i)));
        }
        // Neighbours that share bytes with the prefix but lie outside it.
        for (String outside : List.of("tbl/a", "tbl/a0", "tbl/a.", "tbl/`", "tbl/b/0001", "tbl/", "tbl/a\u00ff", "u")) {
            writes.add(store.cas(outside, null, b("outside")));
        }
        for (Future<Boolean> w : writes) assertThat(await(w)).isTrue();

        for (int pageSize : new int[] {1, 2, 1000}) {
            List<String> seen = new ArrayList<>();
            String continuation = null;
            int pages = 0;
            do {
                ScanPage page = await(store.scanPrefix("tbl/a/", continuation, pageSize));
                assertThat(page.entries().size()).isLessThanOrEqualTo(pageSize);
                for (KeyValue kv : page.entries()) {
                    seen.add(kv.key());
                    assertThat(kv.value()).as(kv.key()).containsExactly(expected.get(kv.key()));
                }
                continuation = page.continuation();
                assertThat(++pages).as("pages at size " + pageSize).isLessThanOrEqualTo(expected.size() + 1);
            } while (continuation != null);
            assertThat(seen).as("page size " + pageSize).containsExactlyElementsOf(expected.keySet());
        }

        ScanPage none = await(store.scanPrefix("tbl/zz", null, 10));
        assertThat(none.entries()).isEmpty();
        assertThat(none.continuation()).isNull();

        ScanPage everything = await(store.scanPrefix("", null, 1000));
        assertThat(everything.entries()).hasSize(308);
        assertThat(everything.continuation()).isNull();
    }

    @Test
    void scanContinuationIsScopedToItsPrefix() throws Exception {
        assertThat(await(store.cas("a/1", null, b("1")))).isTrue();
        assertThat(await(store.cas("a/2", null, b("2")))).isTrue();
        ScanPage first = await(store.scanPrefix("a/", null, 1));
        assertThat(first.continuation()).isNotNull();
        assertThat(failure(store.scanPrefix("b/", first.continuation(), 1)))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("continuation");
        assertThat(failure(store.scanPrefix("a/", "%%not-base64%%", 1)))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("continuation");
    }

    // ---- concurrency --------------------------------------------------------------------------

    @Test
    void concurrentCasHasExactlyOneWinner() throws Exception {
        assertThat(await(store.cas("contended", null, b("start")))).isTrue();
        for (int round = 0; round < 5; round++) {
            byte[] from = round == 0 ? b("start") : value("contended");
            List<Future<Boolean>> racers = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                int racer = i;
                int r = round;
                // Submitted from many threads at once, not one after another.
                racers.add(vertx.executeBlocking(
                        () -> await(store.cas("contended", from, b("r" + r + "-" + racer))), false));
            }
            List<Boolean> results = new ArrayList<>();
            for (Future<Boolean> f : racers) results.add(await(f));
            assertThat(results).as("round " + round).containsOnlyOnce(true);
            int winner = results.indexOf(true);
            assertThat(value("contended")).containsExactly(b("r" + round + "-" + winner));
        }
        // The same for racing creates of an absent key.
        List<Future<Boolean>> creators = new ArrayList<>();
        for (int i = 0; i < 64; i++) creators.add(store.cas("fresh", null, b("c" + i)));
        List<Boolean> created = new ArrayList<>();
        for (Future<Boolean> f : creators) created.add(await(f));
        assertThat(created).containsOnlyOnce(true);
    }

    @Test
    void concurrentGuardFlipNeverAdmitsStaleGuard() throws Exception {
        int flips = 40;
        int writers = 8;
        int writesPerWriter = 60;
        assertThat(await(store.cas(GUARD, null, guardValue(0)))).isTrue();

        // flipDone[i] = System.nanoTime() once the guard provably holds generation i (cas completed).
        long[] flipDone = new long[flips + 1];
        flipDone[0] = System.nanoTime();
        // visibleAfterFlip[g]: every target visible once generation g was installed. A write carrying
        // generation g-1 that is not among them committed after its guard had been replaced.
        List<java.util.Set<String>> visibleAfterFlip = new ArrayList<>(Collections.nCopies(flips + 1, null));
        AtomicInteger currentGeneration = new AtomicInteger();
        Future<Void> flipper = vertx.executeBlocking(() -> {
            for (int g = 1; g <= flips; g++) {
                boolean ok = await(store.cas(GUARD, guardValue(g - 1), guardValue(g)));
                if (!ok) throw new AssertionError("guard flip " + g + " lost");
                flipDone[g] = System.nanoTime();
                currentGeneration.set(g);
                visibleAfterFlip.set(g, targetsVisible());
            }
            return null;
        }, false);

        record Attempt(String target, int generation, long submittedAt, boolean applied) {}
        List<Attempt> attempts = Collections.synchronizedList(new ArrayList<>());
        List<Future<Void>> writerTasks = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            writerTasks.add(vertx.executeBlocking(() -> {
                int cached = currentGeneration.get();
                for (int i = 0; i < writesPerWriter; i++) {
                    // Refresh the guard only now and then, so many writes carry a stale one.
                    if (i % 5 == 0) cached = currentGeneration.get();
                    String target = "t/" + writer + "/" + i;
                    long submitted = System.nanoTime();
                    boolean applied = await(store.guardedMutate(
                            GuardedMutation.create(GUARD, guardValue(cached), target, guardValue(cached))));
                    attempts.add(new Attempt(target, cached, submitted, applied));
                }
                return null;
            }, false));
        }
        await(flipper);
        for (Future<Void> t : writerTasks) await(t);

        int staleRefused = 0;
        int applied = 0;
        for (Attempt a : attempts) {
            boolean supersededBeforeSubmit = a.generation() < flips && flipDone[a.generation() + 1] != 0
                    && flipDone[a.generation() + 1] < a.submittedAt();
            if (supersededBeforeSubmit) {
                assertThat(a.applied()).as("write with generation %d submitted after generation %d was installed",
                        a.generation(), a.generation() + 1).isFalse();
                staleRefused++;
            }
            if (a.applied()) {
                applied++;
                if (a.generation() < flips) {
                    assertThat(visibleAfterFlip.get(a.generation() + 1))
                            .as("write %s with generation %d committed after generation %d was installed",
                                    a.target(), a.generation(), a.generation() + 1)
                            .contains(a.target());
                }
            }
            Optional<byte[]> stored = await(store.get(a.target()));
            if (a.applied()) {
                assertThat(stored).as(a.target()).hasValueSatisfying(v -> assertThat(v).containsExactly(guardValue(a.generation())));
            } else {
                assertThat(stored).as("refused write %s is not visible", a.target()).isEmpty();
            }
        }
        assertThat(applied).as("some writes carried the current guard").isPositive();
        assertThat(staleRefused).as("some writes carried a provably stale guard").isPositive();
        assertThat(value(GUARD)).containsExactly(guardValue(flips));
    }

    // ---- transactions -------------------------------------------------------------------------

    @Test
    void transactionAppliesAllOrNothing() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store.cas(GUARD, null, lease))).isTrue();
        for (int i = 0; i < 50; i++) {
            if (i % 4 != 0) assertThat(await(store.cas(txnKey(i), null, b("old-" + i)))).isTrue();
        }
        TreeMap<String, byte[]> before = all();

        List<Transaction.Op> failing = fiftyOps();
        failing.set(25, Transaction.Op.update(txnKey(25), b("not-old-25"), b("new-25")));
        TransactionOutcome refused = await(store.transact(Transaction.guarded(GUARD, lease, failing)));
        assertThat(refused).isEqualTo(TransactionOutcome.notApplied(List.of(25), false));
        assertSameEntries(all(), before);

        assertThat(await(store.transact(Transaction.guarded(GUARD, lease, fiftyOps())))).isEqualTo(TransactionOutcome.APPLIED);
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
    void transactionReportsEveryFailedCondition() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store.cas(GUARD, null, lease))).isTrue();
        assertThat(await(store.cas("a", null, b("1")))).isTrue();
        assertThat(await(store.cas("c", null, b("3")))).isTrue();
        assertThat(await(store.cas("e", null, new byte[0]))).isTrue();
        assertThat(await(store.cas("e2", null, new byte[0]))).isTrue();
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

        assertThat(await(store.transact(Transaction.guarded(GUARD, lease, ops))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(1, 2, 4, 6), false));
        assertThat(await(store.transact(Transaction.of(ops))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(1, 2, 4, 6), false));
        // A failed guard is reported as the guard, beside the operations that failed as well.
        assertThat(await(store.transact(Transaction.guarded(GUARD, b("stale"), ops))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(1, 2, 4, 6), true));
        assertThat(await(store.transact(Transaction.guarded(GUARD, b("stale"), List.of(ops.get(0), ops.get(3))))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(), true));
        assertThat(await(store.transact(Transaction.guarded("absent/guard", lease, List.of(ops.get(1))))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(0), true));
        assertSameEntries(all(), before);
    }

    @Test
    void transactionConditionKindsHold() throws Exception {
        assertThat(await(store.cas("present", null, b("p")))).isTrue();
        assertThat(await(store.cas("empty", null, new byte[0]))).isTrue();
        assertThat(await(store.cas("empty2", null, new byte[0]))).isTrue();
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
            TransactionOutcome outcome = await(store.transact(Transaction.of(List.of(c.op()))));
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
        assertThat(await(store.get("w/created"))).isEmpty();
        assertThat(await(store.get("w/fresh"))).isEmpty();
        assertThat(await(store.get("w/gone"))).isEmpty();

        // Mixed: checks, puts and deletes of every condition in one step.
        assertThat(await(store.transact(Transaction.of(List.of(
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
        assertThat(await(store.transact(Transaction.of(List.of(
                Transaction.Op.delete("present", b("p2")),
                Transaction.Op.of("empty", Transaction.Condition.EXISTS, null, Transaction.Action.DELETE, null),
                Transaction.Op.checkAbsent("m/new")))))).isEqualTo(TransactionOutcome.notApplied(List.of(2), false));
        assertThat(value("present")).containsExactly(b("p2"));
        assertThat(value("empty")).isEmpty();
    }

    private void assertApplied(Transaction.Op op) throws Exception {
        assertThat(await(store.transact(Transaction.of(List.of(op))))).as(op.toString()).isEqualTo(TransactionOutcome.APPLIED);
    }

    @Test
    void concurrentTransfersPreserveTotal() throws Exception {
        int accounts = 4;
        int workers = 4;
        int transfersPerWorker = 12;
        long seed = 0x5EED_11L;
        byte[] lease = b("lease");
        assertThat(await(store.cas(GUARD, null, lease))).isTrue();
        for (int a = 0; a < accounts; a++) assertThat(await(store.cas(account(a), null, b("100")))).isTrue();

        record Transfer(int from, int to, int amount) {}
        List<Transfer> acknowledged = Collections.synchronizedList(new ArrayList<>());
        List<Future<Integer>> tasks = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            java.util.Random random = new java.util.Random(seed + w);
            tasks.add(vertx.executeBlocking(() -> {
                int retries = 0;
                for (int i = 0; i < transfersPerWorker; i++) {
                    int from = random.nextInt(accounts);
                    int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
                    int amount = 1 + random.nextInt(20);
                    for (int attempt = 0; ; attempt++) {
                        if (attempt == 500) throw new AssertionError("transfer never applied after 500 attempts");
                        byte[] fromValue = value(account(from));
                        byte[] toValue = value(account(to));
                        TransactionOutcome outcome = await(store.transact(Transaction.guarded(GUARD, lease, List.of(
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
    void staleGuardTransactionWritesNothing() throws Exception {
        byte[] stale = b("lease-epoch-1");
        byte[] current = b("lease-epoch-2");
        assertThat(await(store.cas(GUARD, null, stale))).isTrue();
        assertThat(await(store.transact(Transaction.guarded(GUARD, stale, List.of(
                Transaction.Op.create("tbl/a", b("a1")), Transaction.Op.create("tbl/b", b("b1"))))))).isEqualTo(TransactionOutcome.APPLIED);
        assertThat(await(store.cas(GUARD, stale, current))).isTrue();
        TreeMap<String, byte[]> before = all();

        Transaction underStaleLease = Transaction.guarded(GUARD, stale, List.of(
                Transaction.Op.update("tbl/a", b("a1"), b("a2")),
                Transaction.Op.delete("tbl/b", b("b1")),
                Transaction.Op.create("tbl/c", b("c1"))));
        assertThat(await(store.transact(underStaleLease))).isEqualTo(TransactionOutcome.notApplied(List.of(), true));
        assertSameEntries(all(), before);
        // An absent guard fails the same way; the current guard applies the very same operations.
        assertThat(await(store.transact(underStaleLease.withGuard("election/other", current))))
                .isEqualTo(TransactionOutcome.notApplied(List.of(), true));
        assertSameEntries(all(), before);
        assertThat(await(store.transact(underStaleLease.withGuard(GUARD, current)))).isEqualTo(TransactionOutcome.APPLIED);
        assertThat(value("tbl/a")).containsExactly(b("a2"));
        assertThat(await(store.get("tbl/b"))).isEmpty();
        assertThat(value("tbl/c")).containsExactly(b("c1"));
    }

    private static void assertSameEntries(TreeMap<String, byte[]> actual, TreeMap<String, byte[]> expected) {
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        expected.forEach((k, v) -> assertThat(actual.get(k)).as(k).containsExactly(v));
    }

    // ---- input validation ---------------------------------------------------------------------

    @Test
    void invalidInputIsRejectedBeforeTheStore() throws Exception {
        String oversizedKey = "k".repeat(Keys.MAX_KEY_BYTES + 1);
        String multibyteOversized = "é".repeat(Keys.MAX_KEY_BYTES / 2 + 1); // 1,026 UTF-8 bytes, 513 chars
        byte[] oversizedValue = new byte[Keys.MAX_VALUE_BYTES + 1];

        for (String badKey : new String[] {"", oversizedKey, multibyteOversized, "a\0b", "bad\uD800"}) {
            assertInvalid(store.get(badKey));
            assertInvalid(store.cas(badKey, null, b("v")));
            assertInvalid(store.delete(badKey, b("v")));
        }
        assertInvalid(store.get(null));
        assertInvalid(store.cas("k", null, oversizedValue));
        assertInvalid(store.cas("k", oversizedValue, b("v")));
        assertInvalid(store.cas("k", null, null));
        assertInvalid(store.delete("k", null));
        assertInvalid(store.scanPrefix("", null, 0));
        assertInvalid(store.scanPrefix("", null, -1));
        assertInvalid(store.scanPrefix("a\0", null, 1));
        assertInvalid(store.scanPrefix(oversizedKey, null, 1));
        assertInvalid(store.guardedMutate(null));
        assertInvalid(store.transact(null));
        assertThatThrownBy(() -> GuardedMutation.create(GUARD, b("g"), "t", oversizedValue))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("value");
        assertThatThrownBy(() -> GuardedMutation.create("", b("g"), "t", b("v")))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("guard key");
        assertThatThrownBy(() -> GuardedMutation.update(GUARD, null, "t", b("v"), b("w")))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("guard expected");
        assertThatThrownBy(() -> GuardedMutation.delete(GUARD, b("g"), "t\0", b("v")))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("target key");

        // The largest valid key is accepted, and nothing of the refused calls was written.
        String largestKey = "k".repeat(Keys.MAX_KEY_BYTES);
        assertThat(await(store.cas(largestKey, null, b("v")))).isTrue();
        assertThat(all()).containsOnlyKeys(largestKey);
    }

    // ---- helpers ------------------------------------------------------------------------------

    protected static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    protected static byte[] guardValue(int generation) {
        return b("{\"holder\":\"n\",\"epoch\":" + generation + "}");
    }

    /** The value at {@code key}, or {@code null} when absent. */
    protected byte[] value(String key) throws Exception {
        return await(store.get(key)).orElse(null);
    }

    /** The keys under {@code t/}, as a scan sees them now. */
    private java.util.Set<String> targetsVisible() throws Exception {
        java.util.Set<String> keys = new java.util.HashSet<>();
        String continuation = null;
        do {
            ScanPage page = await(store.scanPrefix("t/", continuation, 1000));
            for (KeyValue kv : page.entries()) keys.add(kv.key());
            continuation = page.continuation();
        } while (continuation != null);
        return keys;
    }

    /** Every entry in the store, by key. */
    protected TreeMap<String, byte[]> all() throws Exception {
        TreeMap<String, byte[]> out = new TreeMap<>(Keys.UTF8_ORDER);
        String continuation = null;
        do {
            ScanPage page = await(store.scanPrefix("", continuation, 1000));
            for (KeyValue kv : page.entries()) out.put(kv.key(), kv.value());
            continuation = page.continuation();
        } while (continuation != null);
        return out;
    }

    protected static <T> T await(Future<T> future) throws Exception {
        return StoreCalls.await(future);
    }

    protected static Throwable failure(Future<?> future) throws Exception {
        return StoreCalls.failure(future);
    }

    private static void assertInvalid(Future<?> future) throws Exception {
        assertThat(failure(future)).isInstanceOf(MetaException.InvalidArgument.class);
    }
}
