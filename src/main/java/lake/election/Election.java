package lake.election;

import io.vertx.core.Future;
import lake.meta.Keys;
import lake.meta.MetaStore;

import java.util.Objects;
import java.util.Optional;

/**
 * Leader election over one lease record in a {@link MetaStore}, with the clock injected: every
 * call takes {@code nowMs}, so the logic has no timers and tests control time exactly.
 *
 * <p>Invariants:
 * <ul>
 *   <li>The store's compare-and-set is the only arbiter. Every write is one CAS whose expected
 *       value is exact bytes of the record (just read, or "absent"; the leader's own guard when
 *       it resigns; the resigned record a release announcement carries), never a re-encoding of
 *       them, so a record is replaced only if it is still byte for byte what was seen.</li>
 *   <li>An epoch names one holder: the first lease is epoch 1, a renewal by the holder keeps its
 *       epoch (a legacy 0 becomes 1), and a takeover by another node advances it, by one,
 *       failing closed with {@link ElectionException.EpochExhausted} at 2^64-1. A caller may ask
 *       for a lowest epoch ({@code minEpoch}): a node whose change feed retired an epoch renews
 *       into a later one.</li>
 *   <li>Faults fail the returned future: a backend {@link lake.meta.MetaException} keeps its type,
 *       damaged lease bytes fail with {@link ElectionException.LeaseRecordCorrupt}. A fault is
 *       never reported as {@link LeaseStatus.Follower} or {@code false}.</li>
 * </ul>
 * Times are unsigned milliseconds; {@code nowMs} must be non-negative.
 */
public final class Election {
    private final MetaStore store;
    private final String leaseKey;
    private final String nodeId;
    private final long ttlMs;

    public Election(MetaStore store, String leaseKey, String nodeId, long ttlMs) {
        this.store = Objects.requireNonNull(store, "store");
        Keys.validateKey(leaseKey);
        if (nodeId == null || nodeId.isEmpty()) throw new IllegalArgumentException("node id must be non-empty");
        if (ttlMs <= 0) throw new IllegalArgumentException("lease ttl must be positive, got " + ttlMs + " ms");
        this.leaseKey = leaseKey;
        this.nodeId = nodeId;
        this.ttlMs = ttlMs;
    }

    public String nodeId() { return nodeId; }
    public String leaseKey() { return leaseKey; }
    public long ttlMs() { return ttlMs; }

    /**
     * Tries to become or stay leader at {@code nowMs}: installs a lease when there is none, renews
     * this node's own lease in place, takes over another node's expired lease with the next epoch,
     * and follows another node's valid lease. A lost CAS race follows whoever holds it after one
     * re-read. On success the lease expires at {@code nowMs + ttlMs}.
     */
    public Future<LeaseStatus> campaign(long nowMs) {
        return campaign(nowMs, 0);
    }

    /**
     * As {@link #campaign(long)}, leading (or renewing) at no epoch below {@code minEpoch} (0: no
     * constraint): a node that gave up an epoch (its change feed could not settle a revision of
     * it) renews into a later one, so every write guarded by the old epoch's lease fails.
     */
    public Future<LeaseStatus> campaign(long nowMs, long minEpoch) {
        if (nowMs < 0) return negativeClock(nowMs);
        long expiresAtMs = nowMs + ttlMs; // both non-negative longs: the unsigned sum cannot wrap
        return store.get(leaseKey).compose(read -> {
            if (read.isEmpty()) {
                return install(null, new LeaseRecord(nodeId, expiresAtMs, atLeast(Epochs.FIRST, minEpoch)), nowMs);
            }
            byte[] current = read.get();
            LeaseRecord held = decode(current);
            if (held.holder().equals(nodeId)) {
                return install(current, new LeaseRecord(nodeId, expiresAtMs, atLeast(Epochs.renewed(held.epoch()), minEpoch)), nowMs);
            }
            if (!held.expiredAt(nowMs)) {
                return Future.succeededFuture(new LeaseStatus.Follower(Optional.of(held)));
            }
            return install(current, new LeaseRecord(nodeId, expiresAtMs, atLeast(takeoverEpoch(held), minEpoch)), nowMs);
        });
    }

    private static long atLeast(long epoch, long minEpoch) {
        return Long.compareUnsigned(epoch, minEpoch) >= 0 ? epoch : minEpoch;
    }

    /**
     * Gives up this node's unexpired lease at {@code nowMs} by rewriting it as expired at
     * {@code nowMs}, keeping its holder and epoch, so a standby takes over at once with the next
     * epoch. Completes {@code true} only when this node held the lease and the rewrite landed;
     * {@code false} (nothing written) when another node holds it, it is absent or already expired,
     * or it changed between the read and the CAS.
     */
    public Future<Boolean> resign(long nowMs) {
        if (nowMs < 0) return negativeClock(nowMs);
        return resignRead(nowMs).map(Optional::isPresent);
    }

    /**
     * Gives up the lease this node installed, whose exact bytes are {@code installed} (its guard):
     * one CAS from those bytes to the same record expired at {@code nowMs}, no read first (a
     * stopping leader's handover is bounded by its store calls). If the store no longer holds
     * exactly those bytes (a renewal landed whose answer was lost), it resigns as
     * {@link #resign(long)} does: reads the record and rewrites it if it is still this node's
     * unexpired lease. Completes with the expired record's bytes when a rewrite landed, for
     * standbys to take over from ({@link #takeOverReleased}); empty (nothing written) when
     * {@code installed} is not this node's unexpired lease, or the store holds no such lease.
     */
    public Future<Optional<byte[]>> resign(long nowMs, byte[] installed) {
        if (nowMs < 0) return negativeClock(nowMs);
        LeaseRecord held;
        try {
            held = decode(installed);
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
        if (!held.holder().equals(nodeId) || held.expiredAt(nowMs)) return Future.succeededFuture(Optional.empty());
        byte[] expired = new LeaseRecord(nodeId, nowMs, held.epoch()).encode();
        // The guard can be a renewal behind (a renewal whose reply was lost): then read and resign what is there.
        return store.cas(leaseKey, installed, expired).compose(landed -> landed ? Future.succeededFuture(Optional.of(expired))
                : resignRead(nowMs));
    }

    /** The read-then-CAS resignation: the expired record's bytes when it landed. */
    private Future<Optional<byte[]>> resignRead(long nowMs) {
        return store.get(leaseKey).compose(read -> {
            if (read.isEmpty()) return Future.succeededFuture(Optional.<byte[]>empty());
            byte[] current = read.get();
            LeaseRecord held = decode(current);
            if (!held.holder().equals(nodeId) || held.expiredAt(nowMs)) return Future.succeededFuture(Optional.<byte[]>empty());
            byte[] expired = new LeaseRecord(nodeId, nowMs, held.epoch()).encode();
            return store.cas(leaseKey, current, expired).map(landed -> landed ? Optional.of(expired) : Optional.<byte[]>empty());
        });
    }

    /**
     * Takes over a lease its holder announced it resigned, from the announced record's exact bytes
     * (no read first): the same rules as {@link #campaign} (another node's record, expired by this
     * node's clock, taken with the next epoch), with the CAS expecting exactly {@code released}, so
     * a lease that changed since (another standby won, or the announcement is stale or forged)
     * is never overwritten. Whenever that CAS does not land (this node's own round won first, or
     * another standby did), and for bytes that are not such a record, it is an ordinary
     * {@link #campaign}: a holder renews, anyone else follows — never a holder demoted by an
     * announcement. At epoch 2^64-1 the future fails with {@link ElectionException.EpochExhausted}
     * and nothing is written, as in {@link #campaign}.
     */
    public Future<LeaseStatus> takeOverReleased(long nowMs, byte[] released) {
        return takeOverReleased(nowMs, released, 0);
    }

    /** As {@link #takeOverReleased(long, byte[])}, at no epoch below {@code minEpoch} (see {@link #campaign(long, long)}). */
    public Future<LeaseStatus> takeOverReleased(long nowMs, byte[] released, long minEpoch) {
        if (nowMs < 0) return negativeClock(nowMs);
        LeaseRecord held;
        try {
            held = decode(released);
        } catch (RuntimeException e) {
            return campaign(nowMs, minEpoch);
        }
        if (held.holder().equals(nodeId) || !held.expiredAt(nowMs)) return campaign(nowMs, minEpoch);
        LeaseRecord next;
        try {
            next = new LeaseRecord(nodeId, nowMs + ttlMs, atLeast(takeoverEpoch(held), minEpoch));
        } catch (ElectionException.EpochExhausted e) {
            // As campaign does: a fault fails the future, nothing is written.
            return Future.failedFuture(e);
        }
        byte[] bytes = next.encode();
        return store.cas(leaseKey, released, bytes).compose(won -> won
                ? Future.succeededFuture(new LeaseStatus.Leader(new LeaseGuard(leaseKey, bytes, next), next.expiresAtMs()))
                : campaign(nowMs, minEpoch));
    }

    /** The lease record at {@code nowMs} if it is unexpired, or empty when there is none. */
    public Future<Optional<LeaseRecord>> currentLeader(long nowMs) {
        if (nowMs < 0) return negativeClock(nowMs);
        return store.get(leaseKey).map(read -> read.map(this::decode).filter(held -> !held.expiredAt(nowMs)));
    }

    /** One CAS from {@code expected} (null: absent) to {@code next}; the guard carries exactly the bytes written. */
    private Future<LeaseStatus> install(byte[] expected, LeaseRecord next, long nowMs) {
        byte[] bytes = next.encode();
        return store.cas(leaseKey, expected, bytes).compose(won -> won
                ? Future.succeededFuture(new LeaseStatus.Leader(new LeaseGuard(leaseKey, bytes, next), next.expiresAtMs()))
                : currentLeader(nowMs).map(LeaseStatus.Follower::new));
    }

    private long takeoverEpoch(LeaseRecord held) {
        try {
            return Epochs.next(held.epoch());
        } catch (ElectionException.EpochExhausted e) {
            throw new ElectionException.EpochExhausted("cannot take over lease '" + leaseKey + "' from "
                    + held.holder() + ": " + e.getMessage() + "; nothing was written", e);
        }
    }

    private LeaseRecord decode(byte[] bytes) {
        try {
            return LeaseRecord.decode(bytes);
        } catch (ElectionException.LeaseRecordCorrupt e) {
            throw new ElectionException.LeaseRecordCorrupt("lease '" + leaseKey + "': " + e.getMessage(), e);
        }
    }

    private static <T> Future<T> negativeClock(long nowMs) {
        return Future.failedFuture(new IllegalArgumentException("nowMs must be non-negative, got " + nowMs));
    }
}
