package lake.storage;

/**
 * STS would not vend a credential. {@code retryable}: throttled, unavailable or unreachable (ask
 * again later); otherwise refused (the role, its trust policy or the node's own identity are
 * misconfigured), which asking again will not mend.
 */
public final class StorageAccessException extends RuntimeException {
    private final boolean retryable;

    public StorageAccessException(boolean retryable, String message, Throwable cause) {
        super(message, cause);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
