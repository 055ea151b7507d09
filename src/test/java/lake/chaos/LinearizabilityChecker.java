package lake.chaos;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Checks a recorded history for linearizability against a register model, object by object
 * (linearizability is compositional: a history is linearizable iff each object's sub-history is).
 * An object is a key, or a group of keys that transactions join (the connected components of
 * "touched by one transaction"); its state maps each of its keys to a value (every key starts
 * absent).
 *
 * <p>A read returns the key's current value; a CAS or delete succeeds iff the current value equals
 * the expected one ({@code null} = absent for a CAS) and a not-applied answer means it did not. A
 * transaction applies iff every one of its conditions holds; not applied, exactly the operations
 * it names as failed must fail. An operation with an unknown
 * outcome never returned: it may take effect at any moment after its call, or never.
 *
 * <p>The search is Wing and Gong's, as improved by Lowe: walk the time-ordered list of call and
 * return events; at a call, try to linearize that operation now (the model accepts it in the
 * current state) and restart from the head; at a return whose operation is not yet linearized,
 * backtrack. A cache of (set of linearized operations, state) pairs already explored prunes
 * every configuration reached twice. The history is linearizable once every operation that
 * returned is linearized (unknown ones may stay out). The search is bounded by a number of
 * steps; a search that runs out reports {@link Verdict#INCONCLUSIVE}, never linearizable.
 */
public final class LinearizabilityChecker {
    public enum Verdict { LINEARIZABLE, VIOLATION, INCONCLUSIVE }

    /** The verdict for one key; for a violation, {@code witness} is a minimal sub-history that is not linearizable. */
    public record KeyResult(String key, Verdict verdict, int ops, long steps, List<Op> witness, String witnessStart, int witnessSkipped) {}

    /** An object's state: each key present with its value; absent keys are missing. Immutable. */
    private static final Map<String, String> EMPTY = Map.of();

    public static final long DEFAULT_STEP_BUDGET = 5_000_000;

    private final long stepBudget;

    public LinearizabilityChecker(long stepBudget) {
        this.stepBudget = stepBudget;
    }

    public LinearizabilityChecker() {
        this(DEFAULT_STEP_BUDGET);
    }

    /**
     * One result per object (a key, or keys joined by transactions, named "a+b"), in order of
     * first appearance. Definite failures are left out (they changed nothing).
     */
    public List<KeyResult> check(List<Op> history) {
        Map<String, String> parent = new java.util.HashMap<>();
        for (Op op : history) {
            if (!op.checked()) continue;
            List<String> keys = op.keys();
            for (String k : keys) parent.putIfAbsent(k, k);
            for (int i = 1; i < keys.size(); i++) parent.put(root(parent, keys.get(i)), root(parent, keys.get(0)));
        }
        Map<String, List<Op>> byObject = new LinkedHashMap<>();
        Map<String, java.util.TreeSet<String>> names = new java.util.HashMap<>();
        for (Op op : history) {
            if (!op.checked()) continue;
            String r = root(parent, op.keys().get(0));
            byObject.computeIfAbsent(r, k -> new ArrayList<>()).add(op);
            names.computeIfAbsent(r, k -> new java.util.TreeSet<>()).addAll(op.keys());
        }
        List<KeyResult> results = new ArrayList<>();
        for (Map.Entry<String, List<Op>> e : byObject.entrySet()) {
            results.add(checkKey(String.join("+", names.get(e.getKey())), e.getValue()));
        }
        return results;
    }

    private static String root(Map<String, String> parent, String k) {
        String r = k;
        for (int i = 0; i < 1_000_000 && !parent.get(r).equals(r); i++) r = parent.get(r);
        parent.put(k, r);
        return r;
    }

    /** The verdict for one key's operations. */
    public KeyResult checkKey(String key, List<Op> ops) {
        long[] steps = new long[1];
        Verdict v = search(ops, null, stepBudget, steps, null);
        Witness witness = v == Verdict.VIOLATION ? minimise(ops) : new Witness(EMPTY, 0, List.of());
        return new KeyResult(key, v, ops.size(), steps[0], witness.ops(), new java.util.TreeMap<>(witness.startState()).toString(),
                witness.skipped());
    }

    /** A sub-history that is not linearizable when the register starts in {@code startState}, after {@code skipped} earlier operations. */
    record Witness(Map<String, String> startState, int skipped, List<Op> ops) {}

    /**
     * A small sub-history that is still not linearizable, in three cuts, none of which can
     * manufacture a violation the history did not have:
     * <ol>
     * <li>the shortest prefix ending at a quiescent point (every operation before it returned
     * before any later call, no unknown outcome pending) that is not linearizable: the operations
     * after such a point all follow it in real time, so dropping them never hides the cause;</li>
     * <li>the operations before the latest quiescent point of that prefix are replaced by the
     * register state one linearization of them leaves, if the rest still fails from there (the
     * report names that state and how many operations it stands for);</li>
     * <li>operations are removed one at a time while the rest stays non-linearizable, but only
     * those nothing else depends on: reads and refusals (they change nothing) and writes whose
     * resulting value no remaining operation reads or expects, on a key no remaining refusal
     * touches.</li>
     * </ol>
     */
    Witness minimise(List<Op> ops) {
        List<Op> byCall = new ArrayList<>(ops);
        byCall.sort(Comparator.comparingLong(Op::call));
        // Quiescent cuts: c such that every operation called before index c returned before the
        // call at c. Only such cuts split a history into parts ordered in real time; a cut
        // anywhere else could separate a read from the concurrent write it observed.
        List<Integer> cuts = new ArrayList<>();
        long maxRet = Long.MIN_VALUE;
        for (int c = 1; c < byCall.size(); c++) {
            maxRet = Math.max(maxRet, byCall.get(c - 1).ret());
            if (maxRet == Op.NEVER) break;
            if (maxRet < byCall.get(c).call()) cuts.add(c);
        }
        cuts.add(byCall.size());
        // The shortest failing prefix among the cuts (failing is monotone over them: a longer one
        // only adds operations after every operation of the shorter).
        int lo = 0, hi = cuts.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (search(byCall.subList(0, cuts.get(mid)), null, stepBudget, new long[1], null) == Verdict.VIOLATION) hi = mid;
            else lo = mid + 1;
        }
        int end = cuts.get(hi);
        List<Op> prefix = new ArrayList<>(byCall.subList(0, end));

        // The latest earlier cut whose linearizable part leaves a state from which the rest fails.
        Map<String, String> start = EMPTY;
        int skipped = 0;
        for (int k = hi - 1; k >= 0; k--) {
            int c = cuts.get(k);
            @SuppressWarnings("unchecked")
            Map<String, String>[] state = new Map[1];
            if (search(prefix.subList(0, c), null, stepBudget, new long[1], state) == Verdict.LINEARIZABLE
                    && search(prefix.subList(c, end), state[0], stepBudget, new long[1], null) == Verdict.VIOLATION) {
                start = state[0];
                skipped = c;
                break;
            }
        }
        List<Op> witness = new ArrayList<>(prefix.subList(skipped, prefix.size()));
        long trialBudget = Math.max(10_000, stepBudget / 100);
        for (int i = witness.size() - 1; i >= 0; i--) {
            List<Op> without = new ArrayList<>(witness);
            Op removed = without.remove(i);
            if (without.isEmpty() || dependedOn(removed, without)) continue;
            if (search(without, start, trialBudget, new long[1], null) == Verdict.VIOLATION) witness = without;
        }
        return new Witness(start, skipped, witness);
    }

    /**
     * Whether some operation in {@code rest} may rely on {@code op}'s write: it reads or expects
     * the value {@code op} may have produced, or it is a refusal on the same key (a refusal is
     * justified by whatever value the key held, so dropping any write to that key can turn a
     * correct refusal into a false witness).
     */
    private static boolean dependedOn(Op op, List<Op> rest) {
        if (op.kind() == Op.Kind.GET || op.outcome() == Op.Outcome.NOT_APPLIED) return false;
        if (op.kind() == Op.Kind.TXN) return true;
        String produced = op.kind() == Op.Kind.CAS ? op.value() : null;
        for (Op o : rest) {
            if (o.isWrite() && o.outcome() == Op.Outcome.NOT_APPLIED && o.keys().contains(op.key())) return true;
            if (o.kind() == Op.Kind.TXN) {
                for (Op.Sub sub : o.txn()) if (sub.key().equals(op.key()) && Objects.equals(sub.expected(), produced)) return true;
            } else if (o.key().equals(op.key())
                    && (o.kind() == Op.Kind.GET ? Objects.equals(o.read(), produced) : Objects.equals(o.expected(), produced))) {
                return true;
            }
        }
        return false;
    }

    // ---- the search ----

    private static final class Entry {
        final Op op;
        final int index;
        final boolean call;
        Entry match;
        Entry prev;
        Entry next;

        Entry(Op op, int index, boolean call) {
            this.op = op;
            this.index = index;
            this.call = call;
        }
    }

    private record Config(BitSet linearized, Map<String, String> state) {}

    private record Frame(Entry entry, Map<String, String> stateBefore) {}

    /**
     * Searches for a linearization of {@code ops} from {@code initial}; when one is found and
     * {@code finalState} is given, its first element is set to the state it ends in.
     */
    static Verdict search(List<Op> ops, Map<String, String> initial, long budget, long[] steps, Map<String, String>[] finalState) {
        List<Entry> events = new ArrayList<>();
        int returns = 0;
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            Entry call = new Entry(op, i, true);
            events.add(call);
            if (op.ret() != Op.NEVER) {
                Entry ret = new Entry(op, i, false);
                call.match = ret;
                ret.match = call;
                events.add(ret);
                returns++;
            }
        }
        // Time order; at equal times calls first, so operations that touch count as concurrent.
        events.sort(Comparator.comparingLong((Entry e) -> e.call ? e.op.call() : e.op.ret())
                .thenComparing(e -> e.call ? 0 : 1));
        Entry head = new Entry(null, -1, true);
        Entry last = head;
        for (Entry e : events) {
            last.next = e;
            e.prev = last;
            last = e;
        }

        BitSet linearized = new BitSet(ops.size());
        Map<String, String> state = initial == null ? EMPTY : initial;
        Set<Config> seen = new HashSet<>();
        Deque<Frame> stack = new ArrayDeque<>();
        int pendingReturns = returns;
        Entry entry = head.next;
        while (pendingReturns > 0) {
            if (++steps[0] > budget) return Verdict.INCONCLUSIVE;
            if (entry == null) {
                // Only unknown calls were left after the last return: impossible while returns remain,
                // since a return ends every scan; kept as a guard.
                return Verdict.INCONCLUSIVE;
            }
            if (entry.call) {
                Op op = entry.op;
                boolean accepted = accepts(state, op);
                if (accepted) {
                    Map<String, String> next = apply(state, op);
                    BitSet with = (BitSet) linearized.clone();
                    with.set(entry.index);
                    if (seen.add(new Config(with, next))) {
                        stack.push(new Frame(entry, state));
                        linearized = with;
                        state = next;
                        lift(entry);
                        if (entry.match != null) pendingReturns--;
                        entry = head.next;
                        continue;
                    }
                }
                entry = entry.next;
            } else {
                // The earliest remaining return: its operation must be linearized before anything
                // later, and no choice so far allowed it. Undo the last choice and try the next one.
                if (stack.isEmpty()) return Verdict.VIOLATION;
                Frame top = stack.pop();
                state = top.stateBefore();
                linearized = (BitSet) linearized.clone();
                linearized.clear(top.entry().index);
                unlift(top.entry());
                if (top.entry().match != null) pendingReturns++;
                entry = top.entry().next;
            }
        }
        if (finalState != null) finalState[0] = state;
        return Verdict.LINEARIZABLE;
    }

    private static void lift(Entry e) {
        e.prev.next = e.next;
        if (e.next != null) e.next.prev = e.prev;
        Entry m = e.match;
        if (m != null) {
            m.prev.next = m.next;
            if (m.next != null) m.next.prev = m.prev;
        }
    }

    private static void unlift(Entry e) {
        Entry m = e.match;
        if (m != null) {
            m.prev.next = m;
            if (m.next != null) m.next.prev = m;
        }
        e.prev.next = e;
        if (e.next != null) e.next.prev = e;
    }

    /** Whether the object in {@code state} allows {@code op} to take effect with the answer it gave. */
    static boolean accepts(Map<String, String> state, Op op) {
        if (op.kind() == Op.Kind.TXN) {
            List<Op.Sub> subs = op.txn();
            return switch (op.outcome()) {
                case APPLIED, UNKNOWN -> subs.stream().allMatch(sub -> Objects.equals(state.get(sub.key()), sub.expected()));
                case NOT_APPLIED -> {
                    boolean anyFails = false;
                    for (int i = 0; i < subs.size(); i++) {
                        boolean holds = Objects.equals(state.get(subs.get(i).key()), subs.get(i).expected());
                        anyFails |= !holds;
                        if (op.failed() != null && holds == op.failed().contains(i)) yield false;
                    }
                    yield anyFails;
                }
                default -> false;
            };
        }
        String current = state.get(op.key());
        boolean matches = Objects.equals(current, op.expected());
        return switch (op.kind()) {
            case GET -> Objects.equals(current, op.read());
            case CAS -> switch (op.outcome()) {
                case APPLIED, UNKNOWN -> matches;
                case NOT_APPLIED -> !matches;
                default -> false;
            };
            case DELETE -> switch (op.outcome()) {
                case APPLIED, UNKNOWN -> op.expected() != null && matches;
                case NOT_APPLIED -> op.expected() == null || !matches;
                default -> false;
            };
            case TXN -> throw new AssertionError("handled above");
        };
    }

    /** The object's state after {@code op} took effect (only called when {@link #accepts} holds). */
    static Map<String, String> apply(Map<String, String> state, Op op) {
        if (op.kind() == Op.Kind.GET || op.outcome() == Op.Outcome.NOT_APPLIED) return state;
        Map<String, String> next = new java.util.HashMap<>(state);
        switch (op.kind()) {
            case CAS -> next.put(op.key(), op.value());
            case DELETE -> next.remove(op.key());
            case TXN -> {
                for (Op.Sub sub : op.txn()) {
                    if (sub.value() == null) next.remove(sub.key());
                    else next.put(sub.key(), sub.value());
                }
            }
            default -> throw new AssertionError(op.kind());
        }
        return Map.copyOf(next);
    }
}
