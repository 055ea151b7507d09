package lake.meta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Conditions and writes on 1 to {@value #MAX_OPERATIONS} distinct keys that apply together or not
 * at all, optionally only while an independent guard key holds exact expected bytes.
 *
 * <p>Immutable: every array is copied in and out. The factories enforce every shape rule before
 * any store sees the transaction: distinct operation keys, a guard key that is none of them, a
 * present guard expectation, and at most {@value #MAX_TOTAL_BYTES} bytes of keys (UTF-8),
 * expected values and written values, guard included (DynamoDB's transaction limit; 99 operations
 * plus the guard are DynamoDB's 100 items).
 */
public final class Transaction {
    public static final int MAX_OPERATIONS = 99;
    public static final long MAX_TOTAL_BYTES = 4L * 1024 * 1024;

    /** What an operation's key must hold for the transaction to apply. */
    public enum Condition { NONE, ABSENT, VALUE, EXISTS }

    /** What an operation does once every condition holds. */
    public enum Action { CHECK, PUT, DELETE }

    private final List<Op> ops;
    private final String guardKey;
    private final byte[] guardExpected;

    private Transaction(List<Op> ops, String guardKey, byte[] guardExpected) {
        this.ops = ops;
        this.guardKey = guardKey;
        this.guardExpected = guardExpected;
    }

    /** An unguarded transaction of {@code ops}, in order. */
    public static Transaction of(List<Op> ops) {
        List<Op> checked = checkedOps(ops);
        checkSize(checked, 0);
        return new Transaction(checked, null, null);
    }

    /** A transaction of {@code ops} that applies only while {@code guardKey} holds exactly {@code guardExpected}. */
    public static Transaction guarded(String guardKey, byte[] guardExpected, List<Op> ops) {
        return withGuard(checkedOps(ops), guardKey, guardExpected);
    }

    /** The same operations under a new guard. */
    public Transaction withGuard(String guardKey, byte[] guardExpected) {
        return withGuard(ops, guardKey, guardExpected);
    }

    private static Transaction withGuard(List<Op> ops, String guardKey, byte[] guardExpected) {
        byte[] guardKeyBytes = Keys.validateKey("guard key", guardKey);
        Keys.validateValue("guard expected value", guardExpected);
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).key.equals(guardKey)) {
                throw new MetaException.InvalidMutation("operation " + i + ": key '" + guardKey
                        + "' is the guard key; a guard must be independent of the operations it guards");
            }
        }
        checkSize(ops, (long) guardKeyBytes.length + guardExpected.length);
        return new Transaction(ops, guardKey, guardExpected.clone());
    }

    /** Trusted: {@link GuardedMutation} has already validated its parts and owns private copies. */
    static Transaction trustedGuarded(String guardKey, byte[] guardExpected, Op op) {
        return new Transaction(List.of(op), guardKey, guardExpected);
    }

    private static List<Op> checkedOps(List<Op> ops) {
        if (ops == null || ops.isEmpty() || ops.size() > MAX_OPERATIONS) {
            throw new MetaException.InvalidArgument("a transaction needs 1 to " + MAX_OPERATIONS
                    + " operations, got " + (ops == null ? 0 : ops.size()));
        }
        List<Op> copy = new ArrayList<>(ops.size());
        Map<String, Integer> indexOfKey = new HashMap<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (op == null) throw new MetaException.InvalidArgument("operation " + i + " must not be null");
            Integer earlier = indexOfKey.putIfAbsent(op.key, i);
            if (earlier != null) {
                throw new MetaException.InvalidMutation("operations " + earlier + " and " + i + " both touch key '"
                        + op.key + "'; a transaction's keys must be distinct");
            }
            copy.add(op);
        }
        return Collections.unmodifiableList(copy);
    }

    private static void checkSize(List<Op> ops, long guardBytes) {
        long total = guardBytes + operationBytes(ops);
        if (total > MAX_TOTAL_BYTES) {
            throw new MetaException.InvalidArgument("transaction holds " + total
                    + " bytes of keys and values; the maximum is " + MAX_TOTAL_BYTES);
        }
    }

    /** Bytes the operations' keys, expected values and values count towards {@link #MAX_TOTAL_BYTES}, the guard not included. */
    public long operationBytes() {
        return operationBytes(ops);
    }

    private static long operationBytes(List<Op> ops) {
        long total = 0;
        for (Op op : ops) total += op.bytes();
        return total;
    }

    /** The operations, in order; an operation's index in this list is how outcomes name it. */
    public List<Op> ops() { return ops; }
    public Optional<String> guardKey() { return Optional.ofNullable(guardKey); }
    /** The guard's exact expected value, or {@code null} when unguarded. */
    public byte[] guardExpected() { return guardExpected == null ? null : guardExpected.clone(); }

    @Override
    public boolean equals(Object o) {
        return o instanceof Transaction t && ops.equals(t.ops) && Objects.equals(guardKey, t.guardKey)
                && Arrays.equals(guardExpected, t.guardExpected);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ops, guardKey, Arrays.hashCode(guardExpected));
    }

    @Override
    public String toString() {
        return "Transaction[" + ops.size() + " ops" + (guardKey == null ? "" : " guarded by " + guardKey) + ", " + ops + "]";
    }

    /**
     * One operation: a key, a condition on it and an action. Shape rules ({@link MetaException.InvalidMutation}):
     * {@code expected} is given exactly for {@link Condition#VALUE}, {@code value} exactly for
     * {@link Action#PUT}, and a {@link Action#CHECK} has a condition. Keys and values follow {@link Keys}.
     */
    public static final class Op {
        private final String key;
        private final int keyLength;
        private final Condition condition;
        private final byte[] expected;
        private final Action action;
        private final byte[] value;

        private Op(String key, int keyLength, Condition condition, byte[] expected, Action action, byte[] value) {
            this.key = key;
            this.keyLength = keyLength;
            this.condition = condition;
            this.expected = expected;
            this.action = action;
            this.value = value;
        }

        public static Op of(String key, Condition condition, byte[] expected, Action action, byte[] value) {
            byte[] keyBytes = Keys.validateKey(key);
            if (condition == null) throw new MetaException.InvalidArgument("condition must not be null");
            if (action == null) throw new MetaException.InvalidArgument("action must not be null");
            if ((condition == Condition.VALUE) != (expected != null)) {
                throw new MetaException.InvalidMutation(condition == Condition.VALUE
                        ? "condition VALUE needs an expected value"
                        : "an expected value is only allowed with condition VALUE, not " + condition);
            }
            if ((action == Action.PUT) != (value != null)) {
                throw new MetaException.InvalidMutation(action == Action.PUT
                        ? "action PUT needs a value" : "a value is only allowed with action PUT, not " + action);
            }
            if (action == Action.CHECK && condition == Condition.NONE) {
                throw new MetaException.InvalidMutation("a check-only operation needs a condition");
            }
            Keys.validateExpected("expected value", expected);
            Keys.validateExpected("value", value);
            return new Op(key, keyBytes.length, condition, expected == null ? null : expected.clone(), action,
                    value == null ? null : value.clone());
        }

        /**
         * {@link #of}, for the operation at {@code index} of the transaction being built: a refusal
         * names the index ("operation 3: key must not be empty").
         */
        public static Op at(int index, String key, Condition condition, byte[] expected, Action action, byte[] value) {
            try {
                return of(key, condition, expected, action, value);
            } catch (MetaException.InvalidMutation e) {
                throw new MetaException.InvalidMutation("operation " + index + ": " + e.getMessage());
            } catch (MetaException.InvalidArgument e) {
                throw new MetaException.InvalidArgument("operation " + index + ": " + e.getMessage());
            }
        }

        /** Put {@code value}; the key must be absent. */
        public static Op create(String key, byte[] value) { return of(key, Condition.ABSENT, null, Action.PUT, value); }
        /** Put {@code value} whatever the key holds. */
        public static Op put(String key, byte[] value) { return of(key, Condition.NONE, null, Action.PUT, value); }
        /** Put {@code value}; the key must hold exactly {@code expected}. */
        public static Op update(String key, byte[] expected, byte[] value) { return of(key, Condition.VALUE, expected, Action.PUT, value); }
        /** Delete the key; it must hold exactly {@code expected}. */
        public static Op delete(String key, byte[] expected) { return of(key, Condition.VALUE, expected, Action.DELETE, null); }
        /** Delete the key if present; an absent key is not a failure. */
        public static Op deleteAny(String key) { return of(key, Condition.NONE, null, Action.DELETE, null); }
        public static Op checkAbsent(String key) { return of(key, Condition.ABSENT, null, Action.CHECK, null); }
        public static Op checkValue(String key, byte[] expected) { return of(key, Condition.VALUE, expected, Action.CHECK, null); }
        public static Op checkExists(String key) { return of(key, Condition.EXISTS, null, Action.CHECK, null); }

        /** Trusted: the caller validated {@code key} ({@code keyLength} UTF-8 bytes) and hands over private copies. */
        static Op trusted(String key, int keyLength, Condition condition, byte[] expected, Action action, byte[] value) {
            return new Op(key, keyLength, condition, expected, action, value);
        }

        public String key() { return key; }
        public Condition condition() { return condition; }
        /** The exact expected value for {@link Condition#VALUE}, otherwise {@code null}. */
        public byte[] expected() { return expected == null ? null : expected.clone(); }
        public Action action() { return action; }
        /** The value to put for {@link Action#PUT}, otherwise {@code null}. */
        public byte[] value() { return value == null ? null : value.clone(); }

        /** Bytes this operation counts towards {@link #MAX_TOTAL_BYTES}. */
        long bytes() {
            return (long) keyLength + (expected == null ? 0 : expected.length) + (value == null ? 0 : value.length);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Op op && key.equals(op.key) && condition == op.condition && action == op.action
                    && Arrays.equals(expected, op.expected) && Arrays.equals(value, op.value);
        }

        @Override
        public int hashCode() {
            return Objects.hash(key, condition, action, Arrays.hashCode(expected), Arrays.hashCode(value));
        }

        @Override
        public String toString() {
            return action + " " + key + (condition == Condition.NONE ? "" : " if " + condition)
                    + (value == null ? "" : " (" + value.length + " bytes)");
        }
    }
}
