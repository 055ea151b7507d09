package lake.client.model;

/**
 * Every failure a {@code MetasrvClient} call can end with, one subclass per error code of the API
 * ({@code docs/http-api.md}, "Errors") plus the client's own {@link Unreachable}. A condition that
 * did not hold is never an exception: it is {@code applied == false} in a {@link lake.wire.WriteResult}, an
 * empty {@code Optional} for a missing key.
 *
 * <p>Invariants: {@link #code()} is the API's stable code ({@code not_leader}, {@code fenced}, …);
 * {@link #status()} the HTTP status of the same error (also the event-bus failure code), or 0 when
 * no server answered. A refused request wrote nothing, except {@link OutcomeUnknown}, where nobody
 * knows. {@link #retryable()} says whether the same request may be sent again unchanged; the
 * client already retried it within the call's deadline before surfacing it.
 */
public abstract sealed class MetasrvException extends RuntimeException {
    private final String code;
    private final int status;
    private long retryAfterMillis;

    MetasrvException(String code, int status, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.status = status;
    }

    /** The API's error code, e.g. {@code not_leader}; the client's own: {@code unreachable}. */
    public String code() { return code; }

    /** The HTTP status the server answered with (the bus failure code); 0 if no server answered. */
    public int status() { return status; }

    /** How long the server asked the client to wait before retrying ({@code Retry-After}); 0 if it did not. */
    public long retryAfterMillis() { return retryAfterMillis; }

    public MetasrvException retryAfter(long ms) {
        retryAfterMillis = ms;
        return this;
    }

    /** Whether sending the same request again may succeed and is certainly safe. */
    public boolean retryable() { return false; }

    /** Builds the exception for an error envelope the server sent. */
    public static MetasrvException of(int status, String code, String message) {
        return of(status, code, message, java.util.Map.of());
    }

    /** As {@link #of(int, String, String)}, with the envelope's other fields (say, where a compacted feed resumes). */
    public static MetasrvException of(int status, String code, String message, java.util.Map<String, Object> error) {
        String m = message == null ? code : message;
        return switch (code) {
            case "compacted" -> {
                Object floor = error.get("compact_revision");
                Object oldest = error.get("oldest_revision");
                yield new Compacted(m, floor instanceof Number n ? new java.math.BigInteger(n.toString()).longValue() : 0,
                        oldest instanceof Number o ? new java.math.BigInteger(o.toString()).longValue() : 0);
            }
            case "feed_not_ready" -> new BackendUnavailable(m);
            case "not_leader" -> new NotLeader(m);
            case "backend_unavailable" -> new BackendUnavailable(m);
            case "contended" -> new Contended(m);
            case "too_many_waiters" -> new TooManyWaiters(m);
            case "outcome_unknown" -> new OutcomeUnknown(m, null, null);
            case "fenced" -> new Fenced(m);
            case "epoch_mismatch" -> new EpochMismatch(m);
            case "unauthorized" -> new Unauthorized(m);
            case "forbidden" -> new Forbidden(m);
            case "invalid_argument" -> new InvalidArgument(m);
            case "not_found" -> new NotFound(m);
            case "already_exists" -> new AlreadyExists(m);
            case "namespace_not_empty" -> new NamespaceNotEmpty(m);
            case "version_conflict" -> new VersionConflict(m);
            case "incarnation_mismatch" -> new IncarnationMismatch(m);
            case "payload_too_large", "uri_too_long", "headers_too_large" -> new TooLarge(code, status, m);
            default -> new ServerError(code, status, m);
        };
    }

    /** {@code not_leader} (503): no node could take the write now (no leader, or a leader past its deadline). Retried. */
    public static final class NotLeader extends MetasrvException {
        public NotLeader(String message) { super("not_leader", 503, message, null); }
        @Override public boolean retryable() { return true; }
    }

    /** {@code backend_unavailable} (503): the store refused with a fault that certainly wrote nothing. Retried. */
    public static final class BackendUnavailable extends MetasrvException {
        public BackendUnavailable(String message) { super("backend_unavailable", 503, message, null); }
        @Override public boolean retryable() { return true; }
    }

    /** {@code contended} (503): a catalog write lost its race repeatedly and wrote nothing. Retried. */
    public static final class Contended extends MetasrvException {
        public Contended(String message) { super("contended", 503, message, null); }
        @Override public boolean retryable() { return true; }
    }

    /** {@code too_many_waiters} (503): the node holds its maximum of long polls. Retried. */
    public static final class TooManyWaiters extends MetasrvException {
        public TooManyWaiters(String message) { super("too_many_waiters", 503, message, null); }
        @Override public boolean retryable() { return true; }
    }

    /**
     * No endpoint could be reached before the call's deadline (connections refused, or reads
     * without an answer): certainly nothing was written by this call's writes that were never
     * sent. Client-side; {@link #status()} is 0.
     */
    public static final class Unreachable extends MetasrvException {
        public Unreachable(String message, Throwable cause) { super("unreachable", 0, message, cause); }
        @Override public boolean retryable() { return true; }
    }

    /**
     * {@code outcome_unknown}: a write was sent and no answer came — the server said so (504), or
     * the connection broke or the deadline passed after the request left. It may or may not have
     * applied; it is never retried blindly. {@code MetasrvClient.resolve} reads
     * the keys back and tells whether the store now holds what the write would have produced.
     */
    public static final class OutcomeUnknown extends MetasrvException {
        private final transient Txn write;

        public OutcomeUnknown(String message, Txn write, Throwable cause) {
            super("outcome_unknown", 504, message, cause);
            this.write = write;
        }

        /** The write whose outcome is unknown, as a transaction (a CAS or delete is one operation); null if not a KV write. */
        public Txn write() { return write; }

        OutcomeUnknown with(Txn w) {
            OutcomeUnknown e = new OutcomeUnknown(getMessage(), w, getCause());
            e.setStackTrace(getStackTrace());
            return e;
        }
    }

    /** {@code fenced} (409): the lease moved away from the node while it decided; nothing was written. */
    public static final class Fenced extends MetasrvException {
        public Fenced(String message) { super("fenced", 409, message, null); }
    }

    /** {@code epoch_mismatch} (409): the write carried an epoch (pinned) that the leader does not lead; nothing was written. */
    public static final class EpochMismatch extends MetasrvException {
        public EpochMismatch(String message) { super("epoch_mismatch", 409, message, null); }
    }

    /** {@code unauthorized} (401): no valid token was presented. */
    public static final class Unauthorized extends MetasrvException {
        public Unauthorized(String message) { super("unauthorized", 401, message, null); }
    }

    /** {@code forbidden} (403): a read-only token on a write. */
    public static final class Forbidden extends MetasrvException {
        public Forbidden(String message) { super("forbidden", 403, message, null); }
    }

    /** {@code invalid_argument} (400): the request broke an input rule; the message names the field. Also raised by the client before sending. */
    public static final class InvalidArgument extends MetasrvException {
        public InvalidArgument(String message) { super("invalid_argument", 400, message, null); }
    }

    /**
     * {@code compacted} (410): the change feed no longer holds the records after the watch's
     * revision. Read the current state again and watch after its revision; {@link #compactRevision()}
     * is the greatest revision compacted away.
     */
    public static final class Compacted extends MetasrvException {
        private final long compactRevision;
        private final long oldestRevision;

        public Compacted(String message, long compactRevision, long oldestRevision) {
            super("compacted", 410, message, null);
            this.compactRevision = compactRevision;
            this.oldestRevision = oldestRevision;
        }

        public long compactRevision() { return compactRevision; }

        /** The oldest revision the feed still holds (0: it holds none). */
        public long oldestRevision() { return oldestRevision; }
    }

    /** {@code not_found} (404): the namespace, table, tombstone or route does not exist (a missing key is an empty Optional instead). */
    public static final class NotFound extends MetasrvException {
        public NotFound(String message) { super("not_found", 404, message, null); }
    }

    /** {@code already_exists} (409): the namespace or table to create exists. */
    public static final class AlreadyExists extends MetasrvException {
        public AlreadyExists(String message) { super("already_exists", 409, message, null); }
    }

    /** {@code namespace_not_empty} (409): the namespace to drop still holds tables. */
    public static final class NamespaceNotEmpty extends MetasrvException {
        public NamespaceNotEmpty(String message) { super("namespace_not_empty", 409, message, null); }
    }

    /** {@code version_conflict} (409): the table is not at the expected version; the message names its current one. */
    public static final class VersionConflict extends MetasrvException {
        public VersionConflict(String message) { super("version_conflict", 409, message, null); }
    }

    /** {@code incarnation_mismatch} (409): the table was dropped and re-created since its incarnation was read. */
    public static final class IncarnationMismatch extends MetasrvException {
        public IncarnationMismatch(String message) { super("incarnation_mismatch", 409, message, null); }
    }

    /** {@code payload_too_large} (413), {@code uri_too_long} (414), {@code headers_too_large} (431). */
    public static final class TooLarge extends MetasrvException {
        public TooLarge(String code, int status, String message) { super(code, status, message, null); }
    }

    /**
     * {@code internal} (500), {@code corrupt_record}, {@code method_not_allowed}, a code this
     * client does not know, or a reply it could not read.
     */
    public static final class ServerError extends MetasrvException {
        public ServerError(String code, int status, String message) { super(code, status, message, null); }
    }
}
