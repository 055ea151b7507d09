package lake.feed;

import io.vertx.core.Future;
import lake.meta.MetaStore;

/**
 * A leader's revisions, one {@link Sequencer} per epoch it leads, shared by every instance of the
 * node's write path.
 *
 * <p>Invariant 3 (every revision of a new epoch is above every revision committed under earlier
 * ones): the sequencer of epoch e starts above the feed's last record as read <em>after</em> this
 * node's lease for e was acknowledged. From that moment no transaction guarded by an earlier lease
 * can commit (the guard is checked atomically with each write), so the read sees every earlier
 * revision that will ever exist. Compaction may have deleted the newest records too: the start is
 * above the compaction floor as well, so no revision is ever handed out twice.
 */
public final class Feed {
    private long epoch = -1;
    private boolean started;
    private Future<Sequencer> sequencer;
    /** The lease record under which the epoch's sequencer was retired, or null. */
    private byte[] retiredUnder;

    /**
     * Retires {@code epoch}'s sequencer after one of its revisions could not be settled (its
     * write's outcome unknown under the lease record {@code lease}): its watermark can never
     * pass that revision. The epoch's revisions start again, from the feed's tail, once this node
     * writes under a later lease record.
     */
    public synchronized void retire(long epoch, byte[] lease) {
        if (started && this.epoch == epoch) retiredUnder = lease.clone();
    }

    /** A write under an epoch older than the newest this node has started revisions for. */
    public static final class StaleEpoch extends RuntimeException {
        public StaleEpoch(String message) { super(message, null, false, false); }
    }

    /** The sequencer of {@code epoch} if it has started (its read completed), else {@code null}. */
    public synchronized Sequencer started(long epoch) {
        if (!started || this.epoch != epoch || retiredUnder != null || !sequencer.succeeded()) return null;
        return sequencer.result();
    }

    /**
     * The sequencer of {@code epoch}, started from {@code store} at its first use; the same future
     * for every caller of one epoch. A failed read is not kept: the next write tries again.
     */
    public synchronized Future<Sequencer> sequencer(long epoch, MetaStore store, String leaseKey, byte[] lease) {
        if (started && Long.compareUnsigned(epoch, this.epoch) < 0) {
            // An instance still holding an older leadership: its writes are fenced anyway, and
            // restarting the older epoch would lose the newer one's unsettled revisions.
            return Future.failedFuture(new StaleEpoch("epoch " + Long.toUnsignedString(epoch) + " is older than epoch "
                    + Long.toUnsignedString(this.epoch) + ", whose revisions this node hands out now"));
        }
        if (started && this.epoch == epoch && retiredUnder != null) {
            byte[] retired = retiredUnder;
            // Restart only once the store's lease record is the caller's and not the retired one:
            // then nothing guarded by the retired record can commit any more, and the tail read
            // that follows sees every revision that will ever exist.
            return store.get(leaseKey).compose(now -> {
                synchronized (this) {
                    if (retiredUnder == null || this.epoch != epoch) return sequencer(epoch, store, leaseKey, lease);
                    if (now.isEmpty() || !java.util.Arrays.equals(now.get(), lease) || java.util.Arrays.equals(now.get(), retired)) {
                        return Future.failedFuture(new StaleEpoch("a revision of epoch " + Long.toUnsignedString(epoch)
                                + " is unsettled under the current lease record; revisions resume after the next renewal"));
                    }
                    retiredUnder = null;
                    started = false;
                    return sequencer(epoch, store, leaseKey, lease);
                }
            });
        }
        if (started && this.epoch == epoch && !(sequencer.isComplete() && sequencer.failed())) return sequencer;
        this.retiredUnder = null;
        this.epoch = epoch;
        this.started = true;
        this.sequencer = store.lastKey(Revisions.PREFIX).compose(last -> store.get(Revisions.FLOOR_KEY).map(floor -> {
            long above = last.map(Revisions::parse).orElse(0L);
            long compacted = Revisions.floor(floor);
            return new Sequencer(Long.compareUnsigned(above, compacted) >= 0 ? above : compacted);
        }));
        return sequencer;
    }
}
