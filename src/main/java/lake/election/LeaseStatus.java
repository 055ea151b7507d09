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
     * This node does not lead. {@code holder} names the node holding an unexpired lease; it is
     * empty only when the campaign found no unexpired lease after losing a race.
     */
    record Follower(Optional<String> holder) implements LeaseStatus {
        public Follower {
            Objects.requireNonNull(holder, "holder");
        }
    }
}
