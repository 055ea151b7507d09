package lake.bus;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.meta.GuardedMutation;
import lake.meta.KeyValue;
import lake.meta.MetaException;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The store verticle's message format: one JSON body per {@link lake.meta.MetaStore} operation,
 * values in base64, and typed faults carried as stable failure codes so the receiving side
 * rebuilds exactly the {@link MetaException} kind that was raised.
 */
public final class StoreProtocol {
    private StoreProtocol() {}

    public static final String GET = "get";
    public static final String CAS = "cas";
    public static final String DELETE = "delete";
    public static final String GUARDED = "guarded";
    public static final String SCAN = "scan";
    public static final String TXN = "txn";
    public static final String LAST_KEY = "last_key";

    // Stable failure codes of the store address (see docs/event-bus.md).
    public static final int INVALID_ARGUMENT = 4001;
    public static final int INVALID_MUTATION = 4002;
    /** The request did not present the cluster secret the store requires. */
    public static final int UNAUTHORIZED = 4011;
    public static final int UNSUPPORTED = 5001;
    public static final int PERMANENT_BACKEND = 5002;
    public static final int RETRYABLE_BACKEND = 5031;
    public static final int OUTCOME_UNKNOWN = 5041;

    private static final Base64.Encoder B64 = Base64.getEncoder();

    public static String b64(byte[] bytes) {
        return bytes == null ? null : B64.encodeToString(bytes);
    }

    /** Canonical padded base64 only, like the public API: a store message has one spelling too. */
    public static byte[] unb64(String s) {
        if (s == null) return null;
        try {
            return CanonicalBase64.decode(s);
        } catch (IllegalArgumentException e) {
            throw new MetaException.InvalidArgument("store message holds base64 that " + e.getMessage());
        }
    }

    public static JsonObject guarded(GuardedMutation m) {
        return new JsonObject()
                .put("kind", m.kind().name())
                .put("guard_key", m.guardKey())
                .put("guard_expected", b64(m.guardExpected()))
                .put("target_key", m.targetKey())
                .put("target_expected", b64(m.targetExpected()))
                .put("value", b64(m.value()));
    }

    public static GuardedMutation guarded(JsonObject o) {
        String guardKey = o.getString("guard_key");
        byte[] guard = unb64(o.getString("guard_expected"));
        String target = o.getString("target_key");
        return switch (GuardedMutation.Kind.valueOf(o.getString("kind"))) {
            case CREATE -> GuardedMutation.create(guardKey, guard, target, unb64(o.getString("value")));
            case UPDATE -> GuardedMutation.update(guardKey, guard, target,
                    unb64(o.getString("target_expected")), unb64(o.getString("value")));
            case DELETE -> GuardedMutation.delete(guardKey, guard, target, unb64(o.getString("target_expected")));
        };
    }

    /**
     * {@code {"guard_key","guard_expected","ops":[{"key","condition","expected","action","value"}]}}:
     * condition {@code none|absent|value|exists}, action {@code check|put|delete}, bytes in base64,
     * absent parts {@code null}; no guard key means unguarded.
     */
    public static JsonObject transaction(Transaction t) {
        JsonArray ops = new JsonArray();
        for (Transaction.Op op : t.ops()) {
            ops.add(new JsonObject()
                    .put("key", op.key())
                    .put("condition", op.condition().name().toLowerCase(Locale.ROOT))
                    .put("expected", b64(op.expected()))
                    .put("action", op.action().name().toLowerCase(Locale.ROOT))
                    .put("value", b64(op.value())));
        }
        return new JsonObject()
                .put("guard_key", t.guardKey().orElse(null))
                .put("guard_expected", b64(t.guardExpected()))
                .put("ops", ops);
    }

    /** Decodes {@link #transaction(Transaction)}; every shape rule is the {@link Transaction}'s own. */
    public static Transaction transaction(JsonObject o) {
        JsonArray array = o.getJsonArray("ops");
        if (array == null) throw new MetaException.InvalidArgument("a transaction needs \"ops\"");
        List<Transaction.Op> ops = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            JsonObject op = array.getJsonObject(i);
            if (op == null) throw new MetaException.InvalidArgument("operation " + i + " must be an object");
            ops.add(Transaction.Op.at(i, op.getString("key"),
                    enumOf(Transaction.Condition.class, i, "condition", op.getString("condition")),
                    unb64(op.getString("expected")),
                    enumOf(Transaction.Action.class, i, "action", op.getString("action")),
                    unb64(op.getString("value"))));
        }
        String guardKey = o.getString("guard_key");
        return guardKey == null ? Transaction.of(ops)
                : Transaction.guarded(guardKey, unb64(o.getString("guard_expected")), ops);
    }

    private static <E extends Enum<E>> E enumOf(Class<E> type, int index, String field, String name) {
        if (name == null) return null;
        try {
            // The wire form is the lower-case name exactly; any other spelling is refused.
            if (!name.equals(name.toLowerCase(Locale.ROOT))) throw new IllegalArgumentException(name);
            return Enum.valueOf(type, name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new MetaException.InvalidArgument("operation " + index + ": unknown " + field + " '" + name + "'");
        }
    }

    public static JsonObject outcome(TransactionOutcome outcome) {
        return new JsonObject().put("applied", outcome.applied())
                .put("failed", new JsonArray(new ArrayList<Object>(outcome.failed())))
                .put("guard_failed", outcome.guardFailed());
    }

    public static TransactionOutcome outcome(JsonObject o) {
        if (o.getBoolean("applied")) return TransactionOutcome.APPLIED;
        JsonArray array = o.getJsonArray("failed");
        List<Integer> failed = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) failed.add(array.getInteger(i));
        return TransactionOutcome.notApplied(failed, o.getBoolean("guard_failed"));
    }

    public static JsonObject page(ScanPage page) {
        JsonArray entries = new JsonArray();
        for (KeyValue kv : page.entries()) {
            entries.add(new JsonObject().put("key", kv.key()).put("value", b64(kv.value())));
        }
        return new JsonObject().put("entries", entries).put("continuation", page.continuation());
    }

    public static ScanPage page(JsonObject o) {
        JsonArray entries = o.getJsonArray("entries");
        List<KeyValue> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            JsonObject e = entries.getJsonObject(i);
            out.add(new KeyValue(e.getString("key"), unb64(e.getString("value"))));
        }
        return new ScanPage(out, o.getString("continuation"));
    }

    /** The failure code a store fault travels under. */
    public static int failureCode(MetaException e) {
        if (e instanceof MetaException.OutcomeUnknown) return OUTCOME_UNKNOWN;
        return switch (e.kind()) {
            case INVALID_ARGUMENT -> INVALID_ARGUMENT;
            case INVALID_MUTATION -> INVALID_MUTATION;
            case UNSUPPORTED -> UNSUPPORTED;
            case RETRYABLE_BACKEND -> RETRYABLE_BACKEND;
            case PERMANENT_BACKEND -> PERMANENT_BACKEND;
        };
    }

    /**
     * Rebuilds the typed fault from a store reply failure. A request that found no store was not
     * delivered: retryable. One that was sent and got no answer (timeout, broken connection) is
     * retryable for a read but, for a mutation, of unknown outcome.
     */
    public static Throwable fromReply(Throwable t, boolean mutation) {
        if (!(t instanceof ReplyException re)) return t;
        if (re.failureType() != ReplyFailure.RECIPIENT_FAILURE) {
            String msg = "store " + (re.failureType() == ReplyFailure.NO_HANDLERS ? "unreachable" : "did not answer")
                    + ": " + re.failureType() + (re.getMessage() == null ? "" : " (" + re.getMessage() + ")");
            return mutation && re.failureType() != ReplyFailure.NO_HANDLERS
                    ? new MetaException.OutcomeUnknown(msg + "; the mutation may have applied", re)
                    : new MetaException.RetryableBackend(msg, re);
        }
        String msg = re.getMessage();
        return switch (re.failureCode()) {
            case INVALID_ARGUMENT -> new MetaException.InvalidArgument(msg);
            case INVALID_MUTATION -> new MetaException.InvalidMutation(msg);
            case UNSUPPORTED -> new MetaException.Unsupported(msg);
            case RETRYABLE_BACKEND -> new MetaException.RetryableBackend(msg, null);
            case OUTCOME_UNKNOWN -> new MetaException.OutcomeUnknown(msg, null);
            default -> new MetaException.PermanentBackend(msg, null);
        };
    }
}
