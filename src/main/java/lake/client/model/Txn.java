package lake.client.model;

import lake.wire.Fields;
import lake.wire.TxnRequest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A multi-key transaction ({@code POST /v1/txn}, {@code lake.v1.kv.txn}): 1 to 98 operations on
 * distinct keys, applied in one atomic, fenced step or not at all. Immutable; build with
 * {@link #builder()}. Each operation is a key, at most one condition (absent, exact bytes, exists)
 * and at most one action (put, delete, or none: a check). Byte arrays are copied in and out.
 *
 * <pre>{@code
 * Txn t = Txn.builder().create("tables/a", "v1").put("gen", "2").build();
 * client.txn(t).onSuccess(r -> r.applied());
 * }</pre>
 */
public final class Txn {
    /** What an operation requires of its key's current value. */
    public enum Condition { NONE, ABSENT, VALUE, EXISTS }

    /** What an operation does to its key when every condition holds. */
    public enum Action { CHECK, PUT, DELETE }

    /** One operation. {@code expected} is set exactly for {@link Condition#VALUE}, {@code value} exactly for {@link Action#PUT}. */
    public record Op(String key, Condition condition, byte[] expected, Action action, byte[] value) {
        public Op {
            if (key == null || key.isEmpty()) throw new MetasrvException.InvalidArgument("an operation needs a non-empty key");
            if ((condition == Condition.VALUE) != (expected != null)) {
                throw new MetasrvException.InvalidArgument("key '" + key + "': an expected value goes with condition VALUE only");
            }
            if ((action == Action.PUT) != (value != null)) {
                throw new MetasrvException.InvalidArgument("key '" + key + "': a value goes with action PUT only");
            }
            if (action == Action.CHECK && condition == Condition.NONE) {
                throw new MetasrvException.InvalidArgument("key '" + key + "': a check needs a condition");
            }
            expected = expected == null ? null : expected.clone();
            value = value == null ? null : value.clone();
        }

        @Override public byte[] expected() { return expected == null ? null : expected.clone(); }
        @Override public byte[] value() { return value == null ? null : value.clone(); }

        /** This operation as the wire carries it. */
        TxnRequest.Op toWire() {
            return new TxnRequest.Op(key, TxnRequest.Condition.valueOf(condition.name()), expected,
                    TxnRequest.Action.valueOf(action.name()), value);
        }

        @Override public boolean equals(Object o) {
            return o instanceof Op op && key.equals(op.key) && condition == op.condition && action == op.action
                    && Arrays.equals(expected, op.expected) && Arrays.equals(value, op.value);
        }

        @Override public int hashCode() { return key.hashCode() * 31 + condition.hashCode() * 7 + action.hashCode(); }

        @Override public String toString() { return "Op[" + key + " " + condition + " " + action + "]"; }
    }

    /** Operations a transaction may hold: the store's 99 less one for the change record, which the leader adds. */
    public static final int MAX_OPERATIONS = 98;

    private final List<Op> ops;

    private Txn(List<Op> ops) {
        if (ops.isEmpty() || ops.size() > MAX_OPERATIONS) {
            throw new MetasrvException.InvalidArgument("a transaction has 1 to " + MAX_OPERATIONS + " operations, got " + ops.size());
        }
        Set<String> keys = new HashSet<>();
        for (Op op : ops) {
            if (!keys.add(op.key())) throw new MetasrvException.InvalidArgument("key '" + op.key() + "' appears twice in the transaction");
        }
        this.ops = List.copyOf(ops);
    }

    /** A transaction of exactly these operations. */
    public static Txn of(List<Op> ops) { return new Txn(ops); }

    /** A new, empty builder. */
    public static Builder builder() { return new Builder(); }

    /** The operations, in order (indexes in {@link lake.wire.WriteResult#failed()} point into this list). */
    public List<Op> ops() { return ops; }

    /** The JSON of {@code POST /v1/txn} without an epoch: {@code {"ops":[…]}}, values base64. */
    public String toJson() { return Json.write(toMap()); }

    public Map<String, Object> toMap() { return toRequest(null).toMap(); }

    /** The body of {@code POST /v1/txn}: these operations, and {@code epoch} ({@code null}: none). */
    TxnRequest toRequest(Long epoch) {
        List<TxnRequest.Op> wire = new ArrayList<>(ops.size());
        for (Op op : ops) wire.add(op.toWire());
        return new TxnRequest(wire, epoch);
    }

    /**
     * Reads the JSON of {@code POST /v1/txn}, {@code {"ops":[…]}} with base64 values, by the
     * server's own rules: one condition ({@code expected}, or {@code exists: true}) and one action
     * ({@code value}, or {@code delete: true}) per operation, no unknown field. An {@code "epoch"}
     * member is refused here: pin an epoch with {@code MetasrvClient.withEpoch}. Throws
     * {@link MetasrvException.InvalidArgument} naming what is wrong.
     */
    public static Txn fromJson(String text) {
        Map<String, Object> body;
        try {
            body = Json.parseObject(text);
        } catch (IllegalArgumentException e) {
            throw new MetasrvException.InvalidArgument("the transaction is not a JSON object: " + e.getMessage());
        }
        for (String f : body.keySet()) {
            if (f.equals("epoch")) {
                throw new MetasrvException.InvalidArgument("field 'epoch' is not part of a Txn: pin the epoch with "
                        + "MetasrvClient.withEpoch (lakectl: --epoch)");
            }
            if (!f.equals("ops")) throw new MetasrvException.InvalidArgument("unknown field '" + f + "' (a transaction has only 'ops')");
        }
        if (!(body.get("ops") instanceof List<?> ops)) throw new MetasrvException.InvalidArgument("field 'ops' must be an array of operations");
        List<Op> out = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            if (!(ops.get(i) instanceof Map<?, ?> m)) throw new MetasrvException.InvalidArgument("ops[" + i + "] must be an object");
            Map<String, Object> o = Fields.cast(m);
            for (String f : o.keySet()) {
                if (!Set.of("key", "expected", "exists", "value", "delete").contains(f)) {
                    throw new MetasrvException.InvalidArgument("ops[" + i + "]: unknown field '" + f + "'");
                }
            }
            try {
                // The server's rules exactly (ApiRequests.txnOp): one condition, one action, and
                // 'exists'/'delete' only as true, so nothing the server would refuse is quietly
                // read as something else (a dropped "exists": false would make a write unconditional).
                if (o.containsKey("expected") && o.containsKey("exists")) {
                    throw new MetasrvException.InvalidArgument("both 'expected' and 'exists'; give one condition");
                }
                if (o.containsKey("value") && o.containsKey("delete")) {
                    throw new MetasrvException.InvalidArgument("both 'value' and 'delete'; give one action");
                }
                Condition c = Condition.NONE;
                byte[] expected = null;
                if (o.containsKey("expected")) {
                    expected = o.get("expected") == null ? null : base64(o.get("expected"), "expected");
                    c = expected == null ? Condition.ABSENT : Condition.VALUE;
                } else if (o.containsKey("exists")) {
                    if (!Boolean.TRUE.equals(o.get("exists"))) {
                        throw new MetasrvException.InvalidArgument("field 'exists' must be true, got " + o.get("exists")
                                + (Boolean.FALSE.equals(o.get("exists")) ? " (\"expected\": null means absent)" : ""));
                    }
                    c = Condition.EXISTS;
                }
                Action a = Action.CHECK;
                byte[] value = null;
                if (o.containsKey("value")) {
                    value = base64(o.get("value"), "value");
                    a = Action.PUT;
                } else if (o.containsKey("delete")) {
                    if (!Boolean.TRUE.equals(o.get("delete"))) {
                        throw new MetasrvException.InvalidArgument("field 'delete' must be true, got " + o.get("delete"));
                    }
                    a = Action.DELETE;
                }
                if (!(o.get("key") instanceof String key)) throw new MetasrvException.InvalidArgument("'key' must be a string");
                out.add(new Op(key, c, expected, a, value));
            } catch (MetasrvException.InvalidArgument e) {
                throw new MetasrvException.InvalidArgument("ops[" + i + "]: " + e.getMessage());
            }
        }
        return new Txn(out);
    }

    private static byte[] base64(Object v, String field) {
        if (!(v instanceof String text)) throw new MetasrvException.InvalidArgument("'" + field + "' must be base64 text, got " + v);
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new MetasrvException.InvalidArgument("'" + field + "' is not base64: " + e.getMessage());
        }
        // The server accepts canonical base64 only (padded, no stray bits): one text per value.
        if (!Base64.getEncoder().encodeToString(bytes).equals(text)) {
            throw new MetasrvException.InvalidArgument("'" + field + "' is not canonical base64 (padding '=' and no stray bits)");
        }
        return bytes;
    }

    static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    @Override public boolean equals(Object o) { return o instanceof Txn t && ops.equals(t.ops); }
    @Override public int hashCode() { return ops.hashCode(); }
    @Override public String toString() { return "Txn" + ops; }

    /** Collects operations; {@link #build()} checks the whole (1–98 operations, distinct keys). */
    public static final class Builder {
        private final List<Op> ops = new ArrayList<>();

        private Builder() {}

        /** Adds any operation. */
        public Builder op(Op op) { ops.add(op); return this; }

        /** Put {@code value} whatever the key holds (no condition). */
        public Builder put(String key, byte[] value) { return op(new Op(key, Condition.NONE, null, Action.PUT, value)); }
        /** {@link #put(String, byte[])} of the UTF-8 bytes of {@code value}. */
        public Builder put(String key, String value) { return put(key, utf8(value)); }

        /** Put {@code value} only if the key is absent. */
        public Builder create(String key, byte[] value) { return op(new Op(key, Condition.ABSENT, null, Action.PUT, value)); }
        /** {@link #create(String, byte[])} of UTF-8 text. */
        public Builder create(String key, String value) { return create(key, utf8(value)); }

        /** Put {@code value} only if the key holds exactly {@code expected}. */
        public Builder update(String key, byte[] expected, byte[] value) { return op(new Op(key, Condition.VALUE, expected, Action.PUT, value)); }
        /** {@link #update(String, byte[], byte[])} of UTF-8 text. */
        public Builder update(String key, String expected, String value) { return update(key, utf8(expected), utf8(value)); }

        /** Delete the key whatever it holds (an absent key stays absent). */
        public Builder delete(String key) { return op(new Op(key, Condition.NONE, null, Action.DELETE, null)); }

        /** Delete the key only if it holds exactly {@code expected}. */
        public Builder deleteIf(String key, byte[] expected) { return op(new Op(key, Condition.VALUE, expected, Action.DELETE, null)); }

        /** Require the key to hold exactly {@code expected}; write nothing to it. */
        public Builder check(String key, byte[] expected) { return op(new Op(key, Condition.VALUE, expected, Action.CHECK, null)); }

        /** Require the key to be absent; write nothing to it. */
        public Builder checkAbsent(String key) { return op(new Op(key, Condition.ABSENT, null, Action.CHECK, null)); }

        /** Require the key to exist (any value); write nothing to it. */
        public Builder checkExists(String key) { return op(new Op(key, Condition.EXISTS, null, Action.CHECK, null)); }

        /** The transaction; throws {@link MetasrvException.InvalidArgument} if empty, over 98 operations or a key repeats. */
        public Txn build() { return new Txn(ops); }
    }
}
