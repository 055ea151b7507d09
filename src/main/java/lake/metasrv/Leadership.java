package lake.metasrv;

import lake.election.LeaseGuard;
import lake.election.LeaseRecord;

import java.util.Optional;

/**
 * One node's view of its own authority, as published by its election verticle. A leader carries
 * the exact lease bytes it installed ({@link LeaseGuard}) and a local deadline on the monotonic
 * clock, taken from the start of the campaign that won: past it, the node must not publish even
 * if nobody told it that it lost the lease.
 *
 * @param leader        the holder of the unexpired lease as last seen, if any
 * @param leaderEpoch   that lease's epoch (unsigned; 0 when unknown)
 * @param guard         present only while this node leads
 * @param expiresAtMs   the wall-clock expiry written in the lease last seen (this node's own while
 *                      it leads, the holder's while it follows; 0 when unknown)
 * @param deadlineNanos monotonic deadline of the local authority; meaningful only with a guard
 */
public record Leadership(String nodeId, Optional<String> leader, long leaderEpoch, Optional<LeaseGuard> guard,
                         long expiresAtMs, long deadlineNanos, String reason) {

    /** The reason of the publication by which a leader gives its lease up on purpose. */
    public static final String RESIGNED = "resigned";
    /**
     * Starts the reason of a step-down after a write was fenced (the lease had moved away), so
     * whoever reads a publication (the console's epoch timeline) can tell it from other step-downs.
     */
    public static final String FENCED_PREFIX = "fenced: ";

    public Leadership {
        leader = leader == null ? Optional.empty() : leader;
        guard = guard == null ? Optional.empty() : guard;
    }

    public static Leadership follower(String nodeId, Optional<String> leader, long leaderEpoch, String reason) {
        return new Leadership(nodeId, leader, leader.isPresent() ? leaderEpoch : 0, Optional.empty(), 0, 0, reason);
    }

    /** A follower that read {@code lease} (empty: no unexpired lease), with its holder, epoch and expiry. */
    public static Leadership follower(String nodeId, Optional<LeaseRecord> lease, String reason) {
        return lease.map(l -> new Leadership(nodeId, Optional.of(l.holder()), l.epoch(), Optional.empty(), l.expiresAtMs(), 0, reason))
                .orElseGet(() -> follower(nodeId, Optional.empty(), 0, reason));
    }

    public static Leadership leader(String nodeId, LeaseGuard guard, long expiresAtMs, long deadlineNanos, String reason) {
        return new Leadership(nodeId, Optional.of(nodeId), guard.epoch(), Optional.of(guard), expiresAtMs, deadlineNanos, reason);
    }

    public boolean isLeader() {
        return guard.isPresent();
    }

    /** Whether this node may publish at monotonic time {@code nowNanos}. */
    public boolean hasAuthorityAt(long nowNanos) {
        return guard.isPresent() && nowNanos - deadlineNanos < 0;
    }

    public long epoch() {
        return guard.map(LeaseGuard::epoch).orElse(0L);
    }
}
