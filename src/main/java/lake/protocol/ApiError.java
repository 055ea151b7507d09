package lake.protocol;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import lake.catalog.model.CatalogException;
import lake.election.ElectionException;
import lake.meta.MetaException;
import lake.metasrv.MetasrvException;

/**
 * A refused request as clients see it: a stable code, its HTTP status (also the event-bus failure
 * code) and a message naming what is wrong. Body: {@code {"error":{"code","message"}}}.
 */
public final class ApiError extends RuntimeException {
    private final int status;
    private final String code;
    private final Integer retryAfterSeconds;
    /** Fields the error object carries besides code and message (say, where a compacted feed resumes); never null. */
    private final JsonObject details;

    public ApiError(int status, String code, String message, Integer retryAfterSeconds) {
        this(status, code, message, retryAfterSeconds, null);
    }

    public ApiError(int status, String code, String message, Integer retryAfterSeconds, JsonObject details) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
        this.details = details == null ? new JsonObject() : details.copy();
        if (this.details.containsKey("code") || this.details.containsKey("message")) {
            throw new IllegalArgumentException("details may not replace an error's code or message");
        }
    }

    public static ApiError invalid(String message) { return new ApiError(400, "invalid_argument", message, null); }
    public static ApiError notFound(String message) { return new ApiError(404, "not_found", message, null); }
    public static ApiError tooLarge(String message) { return new ApiError(413, "payload_too_large", message, null); }

    public int status() { return status; }
    public String code() { return code; }
    /** Seconds a client should wait before retrying, for 503s; {@code null} otherwise. */
    public Integer retryAfterSeconds() { return retryAfterSeconds; }

    public JsonObject details() { return details.copy(); }

    public JsonObject toJson() {
        return new JsonObject().put("error", details.copy().put("code", code).put("message", getMessage()));
    }

    /** Classifies any failure of a request; never turns a fault into a success. */
    public static ApiError from(Throwable t) {
        if (t instanceof ApiError e) return e;
        if (t instanceof MetasrvException.NotLeader e) {
            return new ApiError(503, "not_leader", e.getMessage() + (e.leader() == null ? "" : "; the leader is " + e.leader()), 1);
        }
        if (t instanceof MetasrvException.EpochMismatch e) return new ApiError(409, "epoch_mismatch", e.getMessage(), null);
        if (t instanceof MetasrvException.Fenced e) return new ApiError(409, "fenced", e.getMessage(), null);
        if (t instanceof CatalogException e) return new ApiError(e.httpStatus(), e.code(), e.getMessage(), e.retryable() ? 1 : null);
        if (t instanceof MetaException.InvalidArgument || t instanceof MetaException.InvalidMutation) {
            return invalid(t.getMessage());
        }
        if (t instanceof MetaException.OutcomeUnknown) {
            return new ApiError(504, "outcome_unknown", "the write's outcome is unknown: " + t.getMessage()
                    + "; read the key before retrying", null);
        }
        if (t instanceof MetaException.RetryableBackend) {
            return new ApiError(503, "backend_unavailable", "the store is unavailable: " + t.getMessage(), 1);
        }
        if (t instanceof MetaException.StoreClosed) {
            return new ApiError(503, "backend_unavailable", "the store is closed", 1);
        }
        if (t instanceof MetaException || t instanceof ElectionException) {
            return new ApiError(500, "internal", t.getClass().getSimpleName() + ": " + t.getMessage(), null);
        }
        if (t instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
            ApiError carried = fromReply(re);
            if (carried != null) return carried;
        }
        if (t instanceof ReplyException re) {
            return new ApiError(503, "backend_unavailable", "no reply from " + re.failureType(), 1);
        }
        return new ApiError(500, "internal", String.valueOf(t), null);
    }

    /** An error that crossed the event bus as a failure whose message is the error JSON. */
    public static ApiError fromReply(ReplyException re) {
        try {
            JsonObject e = new JsonObject(re.getMessage()).getJsonObject("error");
            if (e == null) return null;
            JsonObject details = e.copy();
            details.remove("code");
            details.remove("message");
            return new ApiError(re.failureCode(), e.getString("code"), e.getString("message"),
                    re.failureCode() == 503 ? 1 : null, details);
        } catch (DecodeException | NullPointerException | ClassCastException notOurs) {
            return null;
        }
    }
}
