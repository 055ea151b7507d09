package lake.chaos;

import lake.chaos.LinearizabilityChecker.KeyResult;
import lake.chaos.LinearizabilityChecker.Verdict;
import lake.chaos.Op.Outcome;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static lake.chaos.Op.cas;
import static lake.chaos.Op.delete;
import static lake.chaos.Op.get;
import static org.assertj.core.api.Assertions.assertThat;

/** The checker itself: hand-written histories with a known answer, and generated linearizable ones. */
class LinearizabilityCheckerTest {
    private final LinearizabilityChecker checker = new LinearizabilityChecker();

    private KeyResult only(List<Op> history) {
        List<KeyResult> results = checker.check(history);
        assertThat(results).hasSize(1);
        return results.get(0);
    }

    @Test
    void checkerRejectsNonLinearizableHistories() {
        // A stale read: b replaced a before the read began, yet the read returns a.
        KeyResult stale = only(List.of(
                cas(1, "k", null, "a", 0, 10, Outcome.APPLIED),
                cas(2, "k", "a", "b", 20, 30, Outcome.APPLIED),
                get(3, "k", 40, 50, "a")));
        assertThat(stale.verdict()).isEqualTo(Verdict.VIOLATION);
        // The witness: from the state b that the two completed writes left, the read of a.
        assertThat(stale.witnessStart()).isEqualTo("{k=b}");
        assertThat(stale.witnessSkipped()).isEqualTo(2);
        assertThat(stale.witness()).extracting(Op::id).containsExactly(3);

        // A lost write: acknowledged, then a later read finds nothing.
        KeyResult lost = only(List.of(
                cas(1, "k", null, "a", 0, 10, Outcome.APPLIED),
                get(2, "k", 20, 30, null)));
        assertThat(lost.verdict()).isEqualTo(Verdict.VIOLATION);

        // A write applied twice: a was created once, deleted, and then read again.
        KeyResult twice = only(List.of(
                cas(1, "k", null, "a", 0, 10, Outcome.APPLIED),
                delete(2, "k", "a", 20, 30, Outcome.APPLIED),
                get(3, "k", 40, 50, "a")));
        assertThat(twice.verdict()).isEqualTo(Verdict.VIOLATION);

        // A read of a value nobody wrote.
        KeyResult phantom = only(List.of(
                cas(1, "k", null, "a", 0, 10, Outcome.UNKNOWN),
                get(2, "k", 20, 30, "z")));
        assertThat(phantom.verdict()).isEqualTo(Verdict.VIOLATION);
        assertThat(phantom.witness()).extracting(Op::id).containsExactly(2);

        // A phantom read next to a correct refusal: the refusal of a => c is justified by the
        // concurrent a => b. Minimising must not drop that write and blame the refusal.
        KeyResult phantomBesideRefusal = only(List.of(
                cas(1, "k", null, "a", 1, 2, Outcome.APPLIED),
                cas(2, "k", "a", "c", 3, 30, Outcome.NOT_APPLIED),
                get(3, "k", 4, 5, "x"),
                cas(4, "k", "a", "b", 6, 7, Outcome.APPLIED)));
        assertThat(phantomBesideRefusal.verdict()).isEqualTo(Verdict.VIOLATION);
        assertThat(phantomBesideRefusal.witness()).extracting(Op::id).contains(3);

        // Two overlapping creates both acknowledged: only one of them can have found the key absent.
        KeyResult doubleCreate = only(List.of(
                cas(1, "k", null, "a", 0, 10, Outcome.APPLIED),
                cas(2, "k", null, "b", 5, 15, Outcome.APPLIED)));
        assertThat(doubleCreate.verdict()).isEqualTo(Verdict.VIOLATION);

        // A refusal that cannot be true: the key held exactly the expected value throughout.
        KeyResult wrongRefusal = only(List.of(
                cas(1, "k", null, "a", 0, 10, Outcome.APPLIED),
                delete(2, "k", "a", 20, 30, Outcome.NOT_APPLIED),
                get(3, "k", 40, 50, "a")));
        assertThat(wrongRefusal.verdict()).isEqualTo(Verdict.VIOLATION);

        // The witness of a long history is small: a stale read buried among many correct operations.
        List<Op> buried = new ArrayList<>(sequentialHistory(new Random(7), 200, 0.0));
        long t = buried.stream().mapToLong(Op::ret).max().orElseThrow() + 100;
        String current = finalValue(buried);
        buried.add(cas(1_000, "k", current, "fresh", t, t + 10, Outcome.APPLIED));
        buried.add(get(1_001, "k", t + 20, t + 30, current));
        KeyResult buriedResult = only(buried);
        assertThat(buriedResult.verdict()).isEqualTo(Verdict.VIOLATION);
        assertThat(buriedResult.witness().size()).as("witness %s", buriedResult.witness()).isLessThanOrEqualTo(4);
        assertThat(buriedResult.witness()).extracting(Op::id).contains(1_001);
        assertThat(buriedResult.witnessStart()).isEqualTo("{k=fresh}");

        // A torn transaction: it put x and y together, yet a later read sees y without x.
        List<Op.Sub> xy = List.of(new Op.Sub("a", null, "x"), new Op.Sub("b", null, "y"));
        KeyResult torn = only(List.of(
                Op.txn(1, xy, 0, 10, Outcome.APPLIED, List.of()),
                get(2, "b", 20, 30, "y"),
                get(3, "a", 40, 50, null)));
        assertThat(torn.key()).isEqualTo("a+b");
        assertThat(torn.verdict()).isEqualTo(Verdict.VIOLATION);
        // A refusal naming the wrong operation: a held its expected value (absent), b did not.
        KeyResult wrongFailed = only(List.of(
                cas(1, "b", null, "q", 0, 10, Outcome.APPLIED),
                Op.txn(2, xy, 20, 30, Outcome.NOT_APPLIED, List.of(0))));
        assertThat(wrongFailed.verdict()).isEqualTo(Verdict.VIOLATION);

        // Keys are independent: a violation on one key is reported on that key only.
        List<KeyResult> two = checker.check(List.of(
                cas(1, "good", null, "a", 0, 10, Outcome.APPLIED),
                get(2, "good", 20, 30, "a"),
                cas(3, "bad", null, "b", 0, 10, Outcome.APPLIED),
                get(4, "bad", 20, 30, null)));
        assertThat(two).extracting(KeyResult::key, KeyResult::verdict)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("good", Verdict.LINEARIZABLE),
                        org.assertj.core.groups.Tuple.tuple("bad", Verdict.VIOLATION));
    }

    @Test
    void checkerAcceptsConcurrentLinearizableHistories() {
        // A read that overlaps a write may see either side of it; two reads inside one write may
        // see old then new.
        assertThat(only(List.of(
                cas(1, "k", null, "a", 0, 100, Outcome.APPLIED),
                get(2, "k", 5, 30, null),
                get(3, "k", 10, 20, "a"),
                get(4, "k", 40, 60, "a"))).verdict()).isEqualTo(Verdict.LINEARIZABLE);

        // An unknown write that took effect long after its call (it never returned).
        assertThat(only(List.of(
                cas(1, "k", null, "a", 0, 0, Outcome.UNKNOWN),
                get(2, "k", 10, 20, null),
                get(3, "k", 30, 40, "a"))).verdict()).isEqualTo(Verdict.LINEARIZABLE);

        // An unknown write that never took effect, and another client's write that did.
        assertThat(only(List.of(
                cas(1, "k", null, "b", 0, 0, Outcome.UNKNOWN),
                cas(2, "k", null, "c", 10, 20, Outcome.APPLIED),
                get(3, "k", 30, 40, "c"),
                delete(4, "k", "c", 50, 60, Outcome.UNKNOWN),
                get(5, "k", 70, 80, "c"))).verdict()).isEqualTo(Verdict.LINEARIZABLE);

        // Refusals are consistent with the state at some point inside them: the delete overlaps
        // the create and is ordered before it.
        assertThat(only(List.of(
                cas(1, "k", null, "a", 0, 20, Outcome.APPLIED),
                delete(2, "k", "a", 10, 30, Outcome.NOT_APPLIED),
                cas(3, "k", "zz", "q", 40, 50, Outcome.NOT_APPLIED),
                delete(4, "k", "a", 60, 70, Outcome.APPLIED),
                get(5, "k", 80, 90, null))).verdict()).isEqualTo(Verdict.LINEARIZABLE);

        // A transaction overlapping reads of both its keys: each read may see either side, but
        // the two keys move together; its refusal names exactly the condition that failed.
        List<Op.Sub> xy = List.of(new Op.Sub("a", null, "x"), new Op.Sub("b", null, "y"));
        assertThat(only(List.of(
                get(1, "a", 5, 15, null),
                Op.txn(2, xy, 0, 100, Outcome.APPLIED, List.of()),
                get(3, "b", 20, 30, "y"),
                get(4, "a", 40, 50, "x"),
                Op.txn(5, xy, 60, 70, Outcome.NOT_APPLIED, List.of(0, 1)),
                Op.txn(6, List.of(new Op.Sub("a", "x", "x2"), new Op.Sub("b", "zz", "y2")), 80, 90, Outcome.NOT_APPLIED, List.of(1)),
                Op.txn(7, List.of(new Op.Sub("a", "x", "x3"), new Op.Sub("b", "y", "y3")), 95, 0, Outcome.UNKNOWN, null),
                get(8, "b", 200, 210, "y3"))).verdict()).isEqualTo(Verdict.LINEARIZABLE);

        // Generated histories: a register driven in one order, each operation's call and return
        // spread around its linearization point, some writes made unknown.
        Random random = new Random(42);
        for (int round = 0; round < 20; round++) {
            List<Op> history = sequentialHistory(random, 300, 0.05);
            KeyResult r = only(history);
            assertThat(r.verdict()).as("round %d: %s", round, r).isEqualTo(Verdict.LINEARIZABLE);
        }
    }

    @Test
    void aSearchThatRunsOutOfStepsIsInconclusiveNeverLinearizable() {
        List<Op> history = sequentialHistory(new Random(3), 300, 0.05);
        KeyResult r = new LinearizabilityChecker(10).check(history).get(0);
        assertThat(r.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
    }

    /**
     * {@code n} operations on key "k", linearized at 10, 20, 30, …: each is answered from the
     * register's true state at that point, its call up to 25 before and its return up to 25
     * after, so neighbours overlap. A write becomes unknown with probability {@code unknown}.
     */
    static List<Op> sequentialHistory(Random random, int n, double unknown) {
        List<Op> ops = new ArrayList<>();
        String state = null;
        int written = 0;
        for (int i = 0; i < n; i++) {
            long at = 10L * (i + 1) + 1_000;
            long call = at - random.nextInt(26);
            long ret = at + random.nextInt(26);
            int kind = random.nextInt(3);
            if (kind == 0) {
                ops.add(get(i, "k", call, ret, state));
                continue;
            }
            // Mostly the right expected value, sometimes a wrong one so refusals occur.
            String expected = random.nextInt(4) == 0 ? "v" + random.nextInt(Math.max(1, written)) : state;
            boolean applies = kind == 1 ? java.util.Objects.equals(state, expected) : expected != null && expected.equals(state);
            boolean isUnknown = random.nextDouble() < unknown;
            Outcome outcome = isUnknown ? Outcome.UNKNOWN : applies ? Outcome.APPLIED : Outcome.NOT_APPLIED;
            if (kind == 1) {
                String value = "v" + written++;
                ops.add(cas(i, "k", expected, value, call, ret, outcome));
                if (applies) state = value;
            } else {
                if (expected == null) expected = "v-none";
                ops.add(delete(i, "k", expected, call, ret, outcome));
                if (applies) state = null;
            }
        }
        return ops;
    }

    private static String finalValue(List<Op> ops) {
        java.util.Map<String, String> state = java.util.Map.of();
        List<Op> inOrder = new ArrayList<>(ops);
        inOrder.sort(java.util.Comparator.comparingLong(o -> o.id()));
        for (Op op : inOrder) {
            if (op.outcome() == Outcome.APPLIED || op.outcome() == Outcome.UNKNOWN) {
                if (LinearizabilityChecker.accepts(state, op)) state = LinearizabilityChecker.apply(state, op);
            }
        }
        return state.get("k");
    }
}
