package lake.election;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a leader holds: the lease key, and the exact bytes it installed there. A fenced write puts
 * these bytes, unchanged, into its guarded mutation as the guard's expected value; after a renewal
 * or takeover the stored bytes differ, so a write carrying this guard can no longer land.
 *
 * <p>Invariants: the bytes are copied in and out and never re-encoded (re-encoding could change
 * their form and so miss or, worse, match the wrong record); they decode to a lease record whose
 * epoch is at least {@link Epochs#FIRST}, since a leader never holds a legacy epoch. Equal by content.
 */
public final class LeaseGuard {
    private final String key;
    private final byte[] leaseBytes;
    private final LeaseRecord record;

    LeaseGuard(String key, byte[] leaseBytes, LeaseRecord record) {
        this.key = Objects.requireNonNull(key, "key");
        this.leaseBytes = leaseBytes.clone();
        this.record = Objects.requireNonNull(record, "record");
        if (record.epoch() == Epochs.LEGACY) {
            throw new IllegalArgumentException("a lease guard's epoch is at least 1; got a legacy record at " + key);
        }
    }

    /**
     * A guard over bytes read back from the store, for example by a node restoring its state.
     *
     * @throws ElectionException.LeaseRecordCorrupt when the bytes are not a lease record
     */
    public static LeaseGuard of(String key, byte[] leaseBytes) {
        Objects.requireNonNull(leaseBytes, "leaseBytes");
        byte[] copy = leaseBytes.clone();
        return new LeaseGuard(key, copy, LeaseRecord.decode(copy));
    }

    public String key() { return key; }

    /** The fencing epoch, unsigned (see {@link Epochs}). */
    public long epoch() { return record.epoch(); }

    /** A copy of the exact bytes installed at {@link #key()}. */
    public byte[] leaseBytes() { return leaseBytes.clone(); }

    public String holder() { return record.holder(); }

    /** When the lease lapses by the store's record, unsigned milliseconds. */
    public long expiresAtMs() { return record.expiresAtMs(); }

    /** The decoded form of {@link #leaseBytes()}. */
    public LeaseRecord record() { return record; }

    @Override
    public boolean equals(Object o) {
        return o instanceof LeaseGuard g && key.equals(g.key) && Arrays.equals(leaseBytes, g.leaseBytes);
    }

    @Override
    public int hashCode() { return 31 * key.hashCode() + Arrays.hashCode(leaseBytes); }

    @Override
    public String toString() {
        return "LeaseGuard[" + key + ", holder=" + holder() + ", epoch=" + Epochs.toString(epoch()) + "]";
    }
}
