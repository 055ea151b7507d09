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
    /** Runs kept for the publisher at most; older ones are dropped (tails read a dropped run from the store). */
    static final int MAX_QUEUED_RUNS = 4_096;
    private final java.util.concurrent.ConcurrentLinkedQueue<Published> runs = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
    private volatile Runnable onRun = () -> {};
    /** The compaction floor as this node last learned it (only rises). */
    private final java.util.concurrent.atomic.AtomicLong floor = new java.util.concurrent.atomic.AtomicLong();
    private long epoch = -1;
    /** The current epoch's sequencer, or null before the first. */
    private Future<Sequencer> sequencer;
    /** The highest epoch retired (0: none): no revision of it or below is handed out again. */
    private long retired;

    /**
     * Retires {@code epoch} after one of its revisions could not be settled (its write's outcome
     * unknown): that epoch's watermark can never pass the revision, so no revision of it is
     * handed out again. The node leads again only from a later epoch ({@link #minEpoch}), whose
     * lease write makes every write guarded by this epoch's lease fail, so the new epoch's tail
     * read sees every revision that will ever exist (the argument of invariant 3).
     */
    public synchronized void retire(long epoch) {
        if (Long.compareUnsigned(epoch, retired) > 0) retired = epoch;
    }

    /** The lowest epoch this node may lead: above every retired one (0: no constraint). */
    public synchronized long minEpoch() {
        if (retired == -1L) throw new IllegalStateException("epoch 2^64-1 is retired: no later epoch exists (fail closed)");
        return retired == 0 ? 0 : retired + 1;
    }

    /**
     * Called (on whichever thread settled) each time a run is queued; the publisher drains the
     * runs with {@link #nextRun} on its own context.
     */
    public void onRun(Runnable listener) {
        onRun = listener;
    }

    /** The oldest queued run, or {@code null}. Runs leave in the order their sequencers made them. */
    public Published nextRun() {
        Published p = runs.poll();
        if (p != null) queued.decrementAndGet();
        return p;
    }

    /** Called under the sequencer's lock, so runs queue in revision order. */
    private void queue(Published run) {
        runs.add(run);
        // Nobody draining (a node stopping, a test without a publisher): the oldest runs go; a
        // tail that misses one finds the gap in the next run's start and reads it from the store.
        if (queued.incrementAndGet() > MAX_QUEUED_RUNS) nextRun();
        onRun.run();
    }

    /** Compaction raised the floor to {@code revision} (a lower value is ignored). */
    public void compacted(long revision) {
        floor.accumulateAndGet(revision, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
    }

    /** The greatest revision compaction removed, as far as this node knows (0: none). */
    public long floor() {
        return floor.get();
    }

    /** Writes of the current epoch held until an earlier write on one of their keys settles. */
    public synchronized int waiting() {
        return sequencer != null && sequencer.succeeded() ? sequencer.result().waiting() : 0;
    }

    /** A write under an epoch older than the newest this node has started revisions for. */
    public static final class StaleEpoch extends RuntimeException {
        public StaleEpoch(String message) { super(message, null, false, false); }
    }

    /** The sequencer of {@code epoch} if it has started (its read completed), else {@code null}. */
    public synchronized Sequencer started(long epoch) {
        if (sequencer == null || this.epoch != epoch || !sequencer.succeeded()) return null;
        if (retired != 0 && Long.compareUnsigned(epoch, retired) <= 0) return null;
        return sequencer.result();
    }

    /**
     * The sequencer of {@code epoch}, started from {@code store} at its first use; the same future
     * for every caller of one epoch. A failed read is not kept: the next write tries again.
     */
    public synchronized Future<Sequencer> sequencer(long epoch, MetaStore store) {
        if (retired != 0 && Long.compareUnsigned(epoch, retired) <= 0) {
            return Future.failedFuture(new StaleEpoch("epoch " + Long.toUnsignedString(epoch) + " has a revision whose write's"
                    + " outcome could not be settled; this node writes again from epoch " + Long.toUnsignedString(retired + 1)));
        }
        if (sequencer != null && Long.compareUnsigned(epoch, this.epoch) < 0) {
            // An instance still holding an older leadership: its writes are fenced anyway, and
            // restarting the older epoch would lose the newer one's unsettled revisions.
            return Future.failedFuture(new StaleEpoch("epoch " + Long.toUnsignedString(epoch) + " is older than epoch "
                    + Long.toUnsignedString(this.epoch) + ", whose revisions this node hands out now"));
        }
        if (sequencer != null && this.epoch == epoch && !(sequencer.isComplete() && sequencer.failed())) return sequencer;
        this.epoch = epoch;
        this.sequencer = store.lastKey(Revisions.PREFIX).compose(last -> store.get(Revisions.FLOOR_KEY).map(floor -> {
            long above = last.map(Revisions::parse).orElse(0L);
            long compacted = Revisions.floor(floor);
            compacted(compacted);
            Sequencer started = new Sequencer(Long.compareUnsigned(above, compacted) >= 0 ? above : compacted, epoch, this::queue);
            // The epoch's starting point, published at once: tails learn of the takeover (and read
            // the old epoch's last runs from the store) before the first write.
            started.heartbeat();
            return started;
        }));
        return sequencer;
    }
}
