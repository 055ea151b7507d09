package lake.meta;

/**
 * Every fault a {@link MetaStore} reports. Each kind keeps its identity end to end (bus failure
 * code, HTTP status): a retryable backend failure is never turned into a permanent one, and no
 * fault is ever turned into a {@code false}.
 */
public abstract sealed class MetaException extends RuntimeException {

    /** The stable classification of a fault, shared by the bus protocol and the HTTP API. */
    public enum Kind { INVALID_ARGUMENT, INVALID_MUTATION, UNSUPPORTED, RETRYABLE_BACKEND, PERMANENT_BACKEND }

    private MetaException(String message, Throwable cause) {
        super(message, cause);
    }

    public abstract Kind kind();

    /** A key, value, prefix, continuation or limit that breaks the contract's rules. */
    public static final class InvalidArgument extends MetaException {
        public InvalidArgument(String message) { super(message, null); }
        @Override public Kind kind() { return Kind.INVALID_ARGUMENT; }
    }

    /** A mutation whose shape cannot be applied, such as a guard key equal to its target key. */
    public static final class InvalidMutation extends MetaException {
        public InvalidMutation(String message) { super(message, null); }
        @Override public Kind kind() { return Kind.INVALID_MUTATION; }
    }

    /** The backend cannot perform the operation with the guarantees the contract demands. */
    public static final class Unsupported extends MetaException {
        public Unsupported(String message) { super(message, null); }
        @Override public Kind kind() { return Kind.UNSUPPORTED; }
    }

    /** A transient backend fault (throttling, conflict, timeout, network); the same call may succeed later. */
    public static non-sealed class RetryableBackend extends MetaException {
        public RetryableBackend(String message, Throwable cause) { super(message, cause); }
        @Override public Kind kind() { return Kind.RETRYABLE_BACKEND; }
    }

    /**
     * A mutation whose outcome is unknown: it was sent and no answer came (timeout, broken
     * connection), or it was retried after such an attempt. It may have applied. A caller must
     * read before retrying; it must never be reported as {@code false} or as "not applied".
     */
    public static final class OutcomeUnknown extends RetryableBackend {
        public OutcomeUnknown(String message, Throwable cause) { super(message, cause); }
    }

    /** A backend fault that retrying will not cure. Subclassed for faults callers tell apart. */
    public static non-sealed class PermanentBackend extends MetaException {
        public PermanentBackend(String message, Throwable cause) { super(message, cause); }
        @Override public Kind kind() { return Kind.PERMANENT_BACKEND; }
    }

    /** The store's data directory is held by another process. */
    public static final class StoreLocked extends PermanentBackend {
        private final String path;
        public StoreLocked(String path, Throwable cause) {
            super("data directory " + path + " is locked by another process", cause);
            this.path = path;
        }
        public String path() { return path; }
    }

    /** The store has been closed. */
    public static final class StoreClosed extends PermanentBackend {
        public StoreClosed() { super("store is closed", null); }
    }
}
