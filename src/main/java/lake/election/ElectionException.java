package lake.election;

/**
 * The faults an {@link Election} reports. Both fail closed: the election writes nothing and never
 * turns them into a {@link LeaseStatus.Follower}. Backend faults are not wrapped here; they keep
 * their own {@link lake.meta.MetaException} type end to end.
 */
public abstract sealed class ElectionException extends RuntimeException {

    /** The stable classification of an election fault, for bus failure codes and HTTP statuses. */
    public enum Kind { EPOCH_EXHAUSTED, LEASE_RECORD_CORRUPT }

    private ElectionException(String message, Throwable cause) {
        super(message, cause);
    }

    public abstract Kind kind();

    /**
     * The fencing epoch is already 2^64-1 and a takeover would have to advance it. Wrapping to 0
     * would let a stale leader's epoch compare as newer, so the lease stays as it is.
     */
    public static final class EpochExhausted extends ElectionException {
        public EpochExhausted(String message, Throwable cause) { super(message, cause); }
        @Override public Kind kind() { return Kind.EPOCH_EXHAUSTED; }
    }

    /** The stored lease bytes are not a lease record; nobody can safely read a holder or epoch from them. */
    public static final class LeaseRecordCorrupt extends ElectionException {
        public LeaseRecordCorrupt(String message, Throwable cause) { super(message, cause); }
        @Override public Kind kind() { return Kind.LEASE_RECORD_CORRUPT; }
    }
}
