package lake.election;

import java.util.Objects;
import java.util.Optional;

/** The outcome of one {@link Election#campaign} call. */
public sealed interface LeaseStatus {

    /**
     * This node installed the lease: {@code guard} carries the exact bytes now stored, and
     * {@code expiresAtMs} (unsigned) is the expiry written in them.
     */
    record Leader(LeaseGuard guard, long expiresAtMs) implements LeaseStatus {
        public Leader {
            Objects.requireNonNull(guard, "guard");
            if (expiresAtMs != guard.expiresAtMs()) {
                throw new IllegalArgumentException("leader expiry " + Long.toUnsignedString(expiresAtMs)
                        + " differs from its guard's " + Long.toUnsignedString(guard.expiresAtMs()));
            }
        }

        /** The fencing epoch this node leads, unsigned. */
        public long epoch() { return guard.epoch(); }
    }

    /**
     * This node does not lead. {@code lease} is the unexpired lease another node holds, as the
     * campaign read it (so a follower learns holder, epoch and expiry without reading again); it
     * is empty only when the campaign found no unexpired lease after losing a race.
     */
    record Follower(Optional<LeaseRecord> lease) implements LeaseStatus {
        public Follower {
            Objects.requireNonNull(lease, "lease");
        }

        /** The node holding the lease, if any. */
        public Optional<String> holder() { return lease.map(LeaseRecord::holder); }
    }
}
