package lake.meta.rocks;

import io.vertx.core.Context;
import lake.meta.MetaException;
import lake.meta.TransactionOutcome;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The store's single writer: one dedicated platform thread (never a Vert.x event loop) that owns
 * every mutation. It drains its queue into groups; within a group it checks each mutation in
 * arrival order against the database overlaid with the group's earlier writes, collects the
 * writes of those whose conditions hold into one WriteBatch, writes it with {@code sync=true}
 * (one WAL fsync for the whole group) and only then completes the group's futures.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Only this thread checks conditions or writes, so check-then-write is atomic per mutation.
 *       A mutation (a CAS, a delete, a guarded mutation or a whole transaction) is one
 *       {@link ConditionalWrite}: all of its checks hold and all of its writes join the batch, or
 *       none do.</li>
 *   <li>Each mutation's result equals what it would be had the mutations run one by one in
 *       arrival order (the overlay makes earlier writes of the group visible).</li>
 *   <li>No future completes before the fsync covering its group returned; if the write fails,
 *       every mutation of the group fails with the typed error (their results were computed
 *       against writes that did not land), and nothing is reported as {@code false}.</li>
 * </ul>
 */
final class RocksWriter implements Runnable {
    /** Queued by {@link #requestStop}; the writer finishes everything queued before it, then stops. */
    private static final ConditionalWrite<?> STOP = new ConditionalWrite<>(null, null, null, new ConditionalWrite.Step[0], null, o -> o);
    /**
     * Bounds on how long the writer waits for a group to refill: half the recent fsync time, so
     * waiting never costs more than a fraction of the fsync it saves, clamped to these limits.
     */
    private static final long MIN_GATHER_NANOS = 50_000;
    private static final long MAX_GATHER_NANOS = 2_000_000;
    /** Within this much of the wait the writer only yields; beyond it, it parks (frees the core). */
    private static final long SPIN_NANOS = 50_000;

    private final RocksDB db;
    private final WriteOptions syncWrites;
    private final boolean groupCommit;
    private final int maxBatchSize;
    private final Runnable onStopped;
    private final LinkedBlockingQueue<ConditionalWrite<?>> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    /** Set once the writer takes nothing more from the queue; later submitters fail their own writes. */
    private volatile boolean stopped;

    // Written only by the writer thread; volatile so stats() reads a recent value without locks.
    private volatile long groups;
    private volatile long syncs;
    private volatile long mutations;
    /** Size of the last group; 1 at start, so a lone caller never waits. Writer thread only. */
    private int previousGroupSize = 1;
    /** Moving average of one synced WriteBatch write, in nanoseconds. Writer thread only. */
    private long syncNanosAverage = 300_000;

    RocksWriter(RocksDB db, WriteOptions syncWrites, RocksConfig config, Runnable onStopped) {
        this.db = db;
        this.syncWrites = syncWrites;
        this.groupCommit = config.groupCommit();
        this.maxBatchSize = config.groupCommit() ? config.maxBatchSize() : 1;
        this.onStopped = onStopped;
        this.thread = new Thread(this, "rocks-writer");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void submit(ConditionalWrite<?> write) {
        queue.add(write);
        // The writer's last drain happens after it sets `stopped`; a write it could have missed
        // is therefore seen here and failed instead of waiting forever.
        if (stopped) failQueued();
    }

    void requestStop() {
        queue.add(STOP);
    }

    RocksStats stats() {
        return new RocksStats(groups, syncs, mutations);
    }

    @Override
    public void run() {
        List<ConditionalWrite<?>> group = new ArrayList<>(maxBatchSize);
        try (GroupState state = new GroupState(db)) {
            boolean stopping = false;
            while (!stopping) {
                group.clear();
                group.add(takeUninterruptibly());
                if (groupCommit && maxBatchSize > 1) {
                    queue.drainTo(group, maxBatchSize - 1);
                    gatherStragglers(group);
                }
                previousGroupSize = group.size();
                int stop = group.indexOf(STOP);
                if (stop >= 0) {
                    stopping = true;
                    // Writes queued behind STOP raced with close(); they are refused, not applied.
                    for (ConditionalWrite<?> late : group.subList(stop + 1, group.size())) fail(late, new MetaException.StoreClosed());
                    group.subList(stop, group.size()).clear();
                }
                if (!group.isEmpty()) commit(group, state);
            }
        } finally {
            stopped = true;
            failQueued();
            onStopped.run();
        }
    }

    /**
     * Group commit's weak spot: the callers acknowledged by the last group resubmit a moment after
     * the writer has already taken the first of them, so groups would alternate between a few and
     * the rest, halving throughput. When fewer mutations are queued than the last group held, the
     * writer waits for the others to join this group, for at most half the recent fsync time
     * (clamped to {@link #MIN_GATHER_NANOS}..{@link #MAX_GATHER_NANOS}).
     */
    private void gatherStragglers(List<ConditionalWrite<?>> group) {
        int target = Math.min(previousGroupSize, maxBatchSize);
        if (group.size() >= target) return;
        long start = System.nanoTime();
        long budget = Math.max(MIN_GATHER_NANOS, Math.min(MAX_GATHER_NANOS, syncNanosAverage / 2));
        long waited;
        while (group.size() < target && (waited = System.nanoTime() - start) < budget) {
            if (waited < SPIN_NANOS) Thread.yield();
            else LockSupport.parkNanos(20_000);
            queue.drainTo(group, maxBatchSize - group.size());
        }
    }

    private void commit(List<ConditionalWrite<?>> group, GroupState state) {
        EventLoops.requireOffEventLoop("the RocksDB writer");
        TransactionOutcome[] outcomes = new TransactionOutcome[group.size()];
        state.reset();
        try {
            // All-or-nothing per unit: a unit writes into the overlay only if all its checks held.
            for (int i = 0; i < group.size(); i++) outcomes[i] = group.get(i).applyIfHolds(state);
            if (state.hasWrites()) {
                long started = System.nanoTime();
                db.write(syncWrites, state.batch());
                syncNanosAverage += (System.nanoTime() - started - syncNanosAverage) / 8;
                syncs++;
            }
        } catch (RocksDBException e) {
            MetaException error = RocksErrors.map("write", e);
            for (ConditionalWrite<?> w : group) fail(w, error);
            return;
        } catch (RuntimeException e) {
            MetaException error = new MetaException.PermanentBackend("RocksDB writer failed: " + e, e);
            for (ConditionalWrite<?> w : group) fail(w, error);
            return;
        } finally {
            groups++;
            mutations += group.size();
            state.reset();
        }
        completeAll(group, outcomes);
    }

    /**
     * Completes a group's futures, hopping once per distinct caller context rather than once per
     * mutation: the 64 callers of one verticle cost one task on its event loop, not 64.
     */
    private static void completeAll(List<ConditionalWrite<?>> group, TransactionOutcome[] outcomes) {
        Map<Context, List<Runnable>> byContext = null;
        for (int i = 0; i < group.size(); i++) {
            ConditionalWrite<?> w = group.get(i);
            TransactionOutcome result = outcomes[i];
            if (w.context() == null) {
                CallerContext.contained(() -> w.complete(result));
                continue;
            }
            if (byContext == null) byContext = new IdentityHashMap<>();
            byContext.computeIfAbsent(w.context(), c -> new ArrayList<>()).add(() -> w.complete(result));
        }
        if (byContext == null) return;
        for (Map.Entry<Context, List<Runnable>> e : byContext.entrySet()) {
            List<Runnable> completions = e.getValue();
            CallerContext.run(e.getKey(), () -> completions.forEach(CallerContext::contained));
        }
    }

    private static void fail(ConditionalWrite<?> w, Throwable error) {
        CallerContext.fail(w.context(), w.promise(), error);
    }

    private void failQueued() {
        ConditionalWrite<?> w;
        while ((w = queue.poll()) != null) {
            if (w != STOP) fail(w, new MetaException.StoreClosed());
        }
    }

    /** Nobody interrupts the writer; should it happen anyway, the writer keeps serving its queue. */
    private ConditionalWrite<?> takeUninterruptibly() {
        while (true) {
            try {
                return queue.take();
            } catch (InterruptedException e) {
                // Deliberately cleared: stopping is requested through the queue, never by interrupt.
            }
        }
    }
}
