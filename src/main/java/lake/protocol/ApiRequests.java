package lake.protocol;

import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.bus.CanonicalBase64;
import lake.meta.Keys;
import lake.meta.MetaException;
import lake.meta.Transaction;
import lake.metasrv.ClientMutation;
import lake.metasrv.ClientTransaction;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The request decoder of every API operation, HTTP and event bus alike (docs/http-api.md,
 * "Input rules"). Bodies come from {@link StrictJson}; this class checks their members: exact
 * names (unknown ones refused), exact types ({@code null} only where a field documents it),
 * canonical padded base64, unsigned 64-bit epochs written as plain integers, and the contract's
 * key rules. Every refusal is {@code 400 invalid_argument} (or {@code 413} for an oversized
 * value) naming the field and what is wrong, thrown before anything reaches the store.
 */
public final class ApiRequests {
    private ApiRequests() {}

    public static final int MAX_SCAN_LIMIT = 1000;
    public static final int DEFAULT_SCAN_LIMIT = 100;
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    public static ClientMutation cas(JsonObject body, MultiMap headers) {
        allowOnly(body, Set.of("key", "expected", "value", "epoch"));
        String key = writableKey(body, "key");
        byte[] expected = expectedOrAbsent(body, "expected");
        byte[] value = bytes(body, "value");
        return ClientMutation.cas(key, expected, value, epoch(body, headers));
    }

    public static ClientMutation delete(JsonObject body, MultiMap headers) {
        allowOnly(body, Set.of("key", "expected", "epoch"));
        String key = writableKey(body, "key");
        if (body.containsKey("expected") && body.getValue("expected") == null) {
            throw ApiError.invalid("field 'expected' is null; a delete needs the key's exact current value (base64)");
        }
        return ClientMutation.delete(key, bytes(body, "expected"), epoch(body, headers));
    }

    private static final Set<String> TXN_OP_FIELDS = Set.of("key", "expected", "exists", "value", "delete");

    /**
     * {@code {"ops":[...], "epoch"?}}: per operation a key; a condition ({@code expected}: base64
     * for the exact value or {@code null} for absent; or {@code exists: true}; or none); an action
     * ({@code value}: put; {@code delete: true}; or none, a check, which needs a condition).
     * Errors name the operation as {@code ops[i]}.
     */
    public static ClientTransaction txn(JsonObject body, MultiMap headers) {
        allowOnly(body, Set.of("ops", "epoch"));
        if (!body.containsKey("ops")) throw ApiError.invalid("missing field 'ops' (1 to " + ClientTransaction.MAX_CLIENT_OPERATIONS + " operations)");
        if (!(body.getValue("ops") instanceof JsonArray ops)) {
            throw ApiError.invalid("field 'ops' must be an array, got " + typeOf(body.getValue("ops")));
        }
        if (ops.isEmpty() || ops.size() > ClientTransaction.MAX_CLIENT_OPERATIONS) {
            throw ApiError.invalid("field 'ops' has " + ops.size() + " operations; a transaction has 1 to "
                    + ClientTransaction.MAX_CLIENT_OPERATIONS + " (the store's " + Transaction.MAX_OPERATIONS
                    + " less one for the change record)");
        }
        List<Transaction.Op> decoded = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            try {
                decoded.add(txnOp(ops.getValue(i)));
            } catch (ApiError e) {
                throw new ApiError(e.status(), e.code(), "ops[" + i + "]: " + e.getMessage(), null);
            } catch (MetaException.InvalidArgument | MetaException.InvalidMutation e) {
                throw ApiError.invalid("ops[" + i + "]: " + e.getMessage());
            }
        }
        Long epoch = epoch(body, headers);
        // Distinct keys and the byte total are the value types' own rules; its messages name the operations.
        return new ClientTransaction(Transaction.of(decoded), epoch);
    }

    private static Transaction.Op txnOp(Object raw) {
        if (!(raw instanceof JsonObject op)) throw ApiError.invalid("an operation must be an object, got " + typeOf(raw));
        allowOnly(op, TXN_OP_FIELDS);
        // A check may depend on a catalog key (a table's registration); only writes to one are refused.
        String key = op.containsKey("value") || op.containsKey("delete") ? writableKey(op, "key") : key(op, "key");
        if (op.containsKey("expected") && op.containsKey("exists")) {
            throw ApiError.invalid("both 'expected' and 'exists'; give one condition");
        }
        if (op.containsKey("value") && op.containsKey("delete")) {
            throw ApiError.invalid("both 'value' and 'delete'; give one action");
        }
        Transaction.Condition condition = Transaction.Condition.NONE;
        byte[] expected = null;
        if (op.containsKey("expected")) {
            expected = expectedOrAbsent(op, "expected");
            condition = expected == null ? Transaction.Condition.ABSENT : Transaction.Condition.VALUE;
        } else if (op.containsKey("exists")) {
            if (!Boolean.TRUE.equals(op.getValue("exists"))) {
                throw ApiError.invalid("field 'exists' must be true, got " + typeOf(op.getValue("exists"))
                        + (Boolean.FALSE.equals(op.getValue("exists")) ? " (\"expected\": null means absent)" : ""));
            }
            condition = Transaction.Condition.EXISTS;
        }
        Transaction.Action action = Transaction.Action.CHECK;
        byte[] value = null;
        if (op.containsKey("value")) {
            value = bytes(op, "value");
            action = Transaction.Action.PUT;
        } else if (op.containsKey("delete")) {
            if (!Boolean.TRUE.equals(op.getValue("delete"))) {
                throw ApiError.invalid("field 'delete' must be true, got " + typeOf(op.getValue("delete")));
            }
            action = Transaction.Action.DELETE;
        }
        if (action == Transaction.Action.CHECK && condition == Transaction.Condition.NONE) {
            throw ApiError.invalid("a check (no 'value', no 'delete') needs a condition: 'expected' or 'exists'");
        }
        return Transaction.Op.of(key, condition, expected, action, value);
    }

    /** A read's body: exactly {@code {"key": K}}. */
    public static String get(JsonObject body) {
        allowOnly(body, Set.of("key"));
        return key(body, "key");
    }

    /** Operations without parameters take an empty object (or, on the bus, no body at all). */
    public static void none(JsonObject body, String op) {
        if (body != null && !body.isEmpty()) {
            throw ApiError.invalid(op + " takes no fields; got " + new TreeSet<>(body.fieldNames()));
        }
    }

    /**
     * One page of a prefix scan. {@code hideSystem}: leave out the keys Metasrv writes for itself —
     * the catalog's ({@code tbl/}, {@code drop/}, {@code __lake_internal/}) and the lease key —
     * unless the prefix itself lies in their range (a prefix that names them asks for them).
     */
    public record Scan(String prefix, String continuation, int limit, boolean hideSystem) {
        /**
         * Whether {@code key}, found by this scan, is left out of its page. The page's continuation
         * stays the store's, so a page may be short, or empty with a continuation: a listing is
         * at its end only when the continuation is null.
         */
        public boolean hides(String key, String leaseKey) {
            if (!hideSystem) return false;
            String range = key.equals(leaseKey) ? leaseKey : lake.catalog.Catalog.reservedPrefix(key);
            return range != null && !prefix.startsWith(range);
        }
    }

    public static Scan scan(JsonObject body) {
        allowOnly(body, Set.of("prefix", "continuation", "limit", "hide_system"));
        String prefix = prefix(body);
        // null is the continuation of a last page; sending it back starts from the beginning.
        String continuation = body.getValue("continuation") == null ? null : string(body, "continuation");
        int limit = limit(body, DEFAULT_SCAN_LIMIT, MAX_SCAN_LIMIT);
        Object hide = body.getValue("hide_system");
        if (hide != null && !(hide instanceof Boolean)) throw ApiError.invalid("field 'hide_system' must be a boolean, got " + typeOf(hide));
        return new Scan(prefix, continuation, limit, Boolean.TRUE.equals(hide));
    }

    /** Records one watch page holds at most, and by default. */
    public static final int MAX_WATCH_LIMIT = 1000;
    public static final int DEFAULT_WATCH_LIMIT = 100;

    /**
     * A watch request: changes under {@code prefix} after revision {@code after} ({@code null}: after
     * the current revision, so changes from now on); a long poll when {@code waitMs > 0}.
     */
    public record Watch(String prefix, Long after, int limit, long waitMs) {}

    /** A request for the catalog's events: as a watch, without a prefix. */
    public static Watch catalogEvents(JsonObject body) {
        allowOnly(body, Set.of("after", "limit", "wait_ms"));
        return watch(body);
    }

    public static Watch watch(JsonObject body) {
        allowOnly(body, Set.of("prefix", "after", "limit", "wait_ms"));
        String prefix = prefix(body);
        Long after = body.containsKey("after") ? u64(body, "after", " (a revision)") : null;
        int limit = limit(body, DEFAULT_WATCH_LIMIT, MAX_WATCH_LIMIT);
        long waitMs = 0;
        if (body.containsKey("wait_ms")) {
            Object w = body.getValue("wait_ms");
            if (!(w instanceof Integer || w instanceof Long)) throw ApiError.invalid("field 'wait_ms' must be an integer, got " + typeOf(w));
            waitMs = ((Number) w).longValue();
            if (waitMs < 0 || waitMs > Ops.MAX_WAIT_MS) {
                throw ApiError.invalid("field 'wait_ms' must be between 0 and " + Ops.MAX_WAIT_MS + ", got " + waitMs);
            }
        }
        return new Watch(prefix, after, limit, waitMs);
    }

    /** The field {@code prefix} (default: every key), checked as a key prefix. */
    private static String prefix(JsonObject body) {
        String prefix = body.containsKey("prefix") ? string(body, "prefix") : "";
        try {
            Keys.validatePrefix(prefix);
        } catch (MetaException.InvalidArgument e) {
            throw ApiError.invalid("field 'prefix': " + e.getMessage());
        }
        return prefix;
    }

    /** The field {@code limit}: an integer from 1 to {@code max}, {@code dflt} when absent. */
    private static int limit(JsonObject body, int dflt, int max) {
        if (!body.containsKey("limit")) return dflt;
        Object l = body.getValue("limit");
        if (!(l instanceof Integer || l instanceof Long)) throw ApiError.invalid("field 'limit' must be an integer, got " + typeOf(l));
        long v = ((Number) l).longValue();
        if (v < 1 || v > max) throw ApiError.invalid("field 'limit' must be between 1 and " + max + ", got " + v);
        return (int) v;
    }

    /** An unsigned 64-bit value as a JSON number: a Long below 2^63, a BigInteger above. */
    public static Object u64(long v) {
        return v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
    }

    /**
     * The unsigned 64-bit epoch in header {@code name}, or {@code null} when absent: ASCII digits
     * only, given once.
     */
    public static Long headerEpoch(MultiMap headers, String name) {
        List<String> all = headers.getAll(name);
        if (all.isEmpty()) return null;
        if (all.size() > 1) throw ApiError.invalid("header " + name + " is given " + all.size() + " times");
        return unsignedDecimal(all.get(0), "header " + name);
    }

    /** Strict unsigned 64-bit decimal: ASCII digits, no sign, no spaces, at most 2^64-1. */
    public static long unsignedDecimal(String text, String what) {
        boolean digits = !text.isEmpty() && text.length() <= 20;
        for (int i = 0; digits && i < text.length(); i++) digits = text.charAt(i) >= '0' && text.charAt(i) <= '9';
        if (!digits) throw ApiError.invalid(what + " must be an unsigned 64-bit integer in ASCII digits, got '" + text + "'");
        BigInteger v = new BigInteger(text);
        if (v.compareTo(U64_MAX) > 0) throw ApiError.invalid(what + " exceeds 2^64-1");
        return v.longValue();
    }

    public static void allowOnly(JsonObject body, Set<String> allowed) {
        for (String field : body.fieldNames()) {
            if (!allowed.contains(field)) {
                throw ApiError.invalid("unknown field '" + field + "'; allowed: " + new TreeSet<>(allowed));
            }
        }
    }

    public static String string(JsonObject body, String field) {
        if (!body.containsKey(field)) throw ApiError.invalid("missing field '" + field + "'");
        Object v = body.getValue(field);
        if (!(v instanceof String s)) throw ApiError.invalid("field '" + field + "' must be a string, got " + typeOf(v));
        return s;
    }

    /** A key field: a string meeting the contract's key rules. */
    static String key(JsonObject body, String field) {
        String key = string(body, field);
        try {
            Keys.validateKey(key);
        } catch (MetaException.InvalidArgument e) {
            throw ApiError.invalid("field '" + field + "': " + e.getMessage());
        }
        return key;
    }

    /** A key a KV write may name: not one of the catalog's, which only catalog operations write. */
    static String writableKey(JsonObject body, String field) {
        String key = key(body, field);
        if (lake.catalog.Catalog.isCatalogKey(key)) {
            throw ApiError.invalid("field '" + field + "': key '" + key + "' belongs to the catalog (tbl/, drop/, __lake_internal/);"
                    + " it is read-only through the KV API: change it through the catalog operations");
        }
        return key;
    }

    /** A required field holding base64 bytes, or {@code null} meaning "must be absent". */
    static byte[] expectedOrAbsent(JsonObject body, String field) {
        if (!body.containsKey(field)) {
            throw ApiError.invalid("missing field '" + field + "' (null means the key must be absent)");
        }
        return body.getValue(field) == null ? null : bytes(body, field);
    }

    /**
     * Canonical standard base64 with padding, as the docs promise: the one encoding of the bytes,
     * so a value has exactly one spelling (no missing padding, no stray bits in the last group).
     */
    static byte[] bytes(JsonObject body, String field) {
        String s = string(body, field);
        // base64 expands 3 bytes to 4 characters: refuse oversized values before decoding them.
        if ((long) s.length() * 3 / 4 > Keys.MAX_VALUE_BYTES + 2) {
            throw ApiError.tooLarge("field '" + field + "' exceeds " + Keys.MAX_VALUE_BYTES + " bytes");
        }
        byte[] out;
        try {
            out = CanonicalBase64.decode(s);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("field '" + field + "' " + e.getMessage());
        }
        if (out.length > Keys.MAX_VALUE_BYTES) {
            throw ApiError.tooLarge("field '" + field + "' is " + out.length + " bytes; the maximum is " + Keys.MAX_VALUE_BYTES);
        }
        return out;
    }

    /** The epoch a write names in its body and/or the bus header; both must agree. */
    static Long epoch(JsonObject body, MultiMap headers) {
        Long headerEpoch = headerEpoch(headers, Bus.EPOCH_HEADER);
        if (!body.containsKey("epoch")) return headerEpoch;
        long epoch = u64(body, "epoch", " (omit it for no expectation)");
        if (headerEpoch != null && headerEpoch != epoch) {
            throw ApiError.invalid("field 'epoch' and header " + Bus.EPOCH_HEADER + " disagree");
        }
        return epoch;
    }

    /**
     * A present field holding an unsigned 64-bit integer as a plain JSON integer (not {@code 1.0},
     * {@code "1"} or {@code null}); {@code hint} is added to the message of a wrong type.
     */
    public static long u64(JsonObject body, String field, String hint) {
        Object v = body.getValue(field);
        BigInteger n;
        if (v instanceof Integer || v instanceof Long) n = BigInteger.valueOf(((Number) v).longValue());
        else if (v instanceof BigInteger b) n = b;
        else throw ApiError.invalid("field '" + field + "' must be an unsigned integer" + hint + ", got " + typeOf(v));
        if (n.signum() < 0 || n.compareTo(U64_MAX) > 0) throw ApiError.invalid("field '" + field + "' must be an unsigned 64-bit integer, got " + n);
        return n.longValue();
    }

    public static String typeOf(Object v) {
        if (v == null) return "null";
        if (v instanceof String) return "a string";
        if (v instanceof Boolean) return "a boolean";
        if (v instanceof java.math.BigDecimal d) return "a number with a fraction or an exponent (" + d + ")";
        if (v instanceof Double || v instanceof Float) return "a non-integer number " + v;
        if (v instanceof Number) return "a number";
        if (v instanceof JsonObject) return "an object";
        if (v instanceof io.vertx.core.json.JsonArray) return "an array";
        return "a " + v.getClass().getSimpleName();
    }
}
