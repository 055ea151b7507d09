package lake.wire;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code POST /v1/txn}, {@code {"ops":[…],"epoch"?}}: operations applied in one atomic, fenced
 * step or not at all; {@code epoch} as in {@link CasRequest}. Which operations make a valid
 * transaction (1 to 98, distinct keys) is the server's rule, not this shape's.
 */
public record TxnRequest(List<Op> ops, Long epoch) {
    public TxnRequest {
        ops = List.copyOf(ops);
    }

    /** What an operation requires of its key's current value. */
    public enum Condition { NONE, ABSENT, VALUE, EXISTS }

    /** What an operation does to its key when every condition holds. */
    public enum Action { CHECK, PUT, DELETE }

    /**
     * One operation, {@code {"key", condition?, action?}}: the condition {@code "expected": base64}
     * (VALUE), {@code "expected": null} (ABSENT) or {@code "exists": true} (EXISTS), none left out;
     * the action {@code "value": base64} (PUT) or {@code "delete": true} (DELETE), a check left out.
     * {@code expected} is set exactly for VALUE, {@code value} exactly for PUT; bytes copied in and out.
     */
    public record Op(String key, Condition condition, byte[] expected, Action action, byte[] value) {
        public Op {
            if ((condition == Condition.VALUE) != (expected != null) || (action == Action.PUT) != (value != null)) {
                throw new IllegalArgumentException("key '" + key + "': expected goes with VALUE only, value with PUT only");
            }
            expected = expected == null ? null : expected.clone();
            value = value == null ? null : value.clone();
        }

        @Override public byte[] expected() { return expected == null ? null : expected.clone(); }
        @Override public byte[] value() { return value == null ? null : value.clone(); }

        public static Op from(Map<String, Object> o) {
            Condition c = Condition.NONE;
            byte[] expected = null;
            if (o.containsKey("expected")) {
                if (o.containsKey("exists")) throw new WireException("exists", o);
                expected = o.get("expected") == null ? null : Fields.bytes(o, "expected");
                c = expected == null ? Condition.ABSENT : Condition.VALUE;
            } else if (o.containsKey("exists")) {
                if (!Fields.bool(o, "exists")) throw new WireException("exists", o);
                c = Condition.EXISTS;
            }
            Action a = Action.CHECK;
            byte[] value = null;
            if (o.containsKey("value")) {
                if (o.containsKey("delete")) throw new WireException("delete", o);
                value = Fields.bytes(o, "value");
                a = Action.PUT;
            } else if (o.containsKey("delete")) {
                if (!Fields.bool(o, "delete")) throw new WireException("delete", o);
                a = Action.DELETE;
            }
            return new Op(Fields.string(o, "key"), c, expected, a, value);
        }

        public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of("key", key);
            switch (condition) {
                case ABSENT -> o.put("expected", null);
                case VALUE -> o.put("expected", Fields.base64(expected));
                case EXISTS -> o.put("exists", true);
                case NONE -> { }
            }
            switch (action) {
                case PUT -> o.put("value", Fields.base64(value));
                case DELETE -> o.put("delete", true);
                case CHECK -> { }
            }
            return o;
        }

        @Override public boolean equals(Object o) {
            return o instanceof Op op && key.equals(op.key) && condition == op.condition && action == op.action
                    && Arrays.equals(expected, op.expected) && Arrays.equals(value, op.value);
        }
        @Override public int hashCode() { return Objects.hash(key, condition, action, Arrays.hashCode(expected), Arrays.hashCode(value)); }
        @Override public String toString() { return "Op[" + key + " " + condition + " " + action + "]"; }
    }

    public static TxnRequest from(Map<String, Object> o) {
        return new TxnRequest(Fields.records(o, "ops", Op::from), Fields.u64OrNull(o, "epoch"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("ops", Fields.maps(ops, Op::toMap));
        if (epoch != null) o.put("epoch", Fields.u64Value(epoch));
        return o;
    }
}
