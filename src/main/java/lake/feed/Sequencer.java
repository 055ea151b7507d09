package lake.feed;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The leader's revisions: allocates them in order and keeps the watermark, the highest revision
 * below which every allocated revision is settled (its write applied, or certainly did not).
 *
 * <p>Why a watermark: on DynamoDB two transactions of one leader commit in either order, so the
 * record of revision 7 may be readable before that of 6. Readers are served only up to the
 * watermark, so a reader given revision r is never later shown a new record below r.
 *
 * <p>Invariants: revisions are allocated strictly increasing, each at most once; the watermark
 * never decreases, never passes an unsettled revision, and equals the last allocated revision
 * whenever nothing is unsettled. Thread-safe (the node's API instances share one): every method is
 * synchronized and does no I/O.
 *
 * <p>Publication: each time the watermark rises, the records settled in the revisions it passed
 * leave, as one {@link Published} run, to the sink, called under this sequencer's lock, so runs
 * reach it in revision order whichever thread settled. A run's {@code last} is the greatest
 * revision a record holds at or below its end (or the starting point): the only cursor a reader
 * may be given, since revisions no record holds may be handed out again by a later epoch.
 */
public final class Sequencer {
    private final TreeSet<Long> unsettled = new TreeSet<>(Long::compareUnsigned);
    /** Records settled above the watermark, waiting for it to pass them. */
    private final TreeMap<Long, ChangeRecord> held = new TreeMap<>(Long::compareUnsigned);
    /** Revisions settled above the watermark whose record, if any, is known only to the store. */
    private final TreeSet<Long> unknown = new TreeSet<>(Long::compareUnsigned);
    private final long epoch;
    private final Consumer<Published> sink;
    private long last;
    private long watermark;
    private long lastRecord;

    /** Starts above {@code after}, the greatest revision committed under any earlier epoch (0: none); publishes nothing. */
    public Sequencer(long after) {
        this(after, 0, run -> {});
    }

    /**
     * Starts above {@code after} (the greatest revision committed under any earlier epoch, or the
     * compaction floor; 0: none), handing each run of {@code epoch} to {@code sink}.
     */
    public Sequencer(long after, long epoch, Consumer<Published> sink) {
        if (after == -1L) throw new IllegalArgumentException("no revision may follow " + Long.toUnsignedString(after));
        this.last = after;
        this.watermark = after;
        this.lastRecord = after;
        this.epoch = epoch;
        this.sink = sink;
    }

    /** The next revision, unsettled until {@link #settle} is called for it. */
    public synchronized long allocate() {
        if (last == -1L) throw new IllegalStateException("revisions exhausted (u64)");
        last++;
        unsettled.add(last);
        return last;
    }

    /**
     * {@code revision} is settled: its record exists (the write applied) or never will. Returns the
     * watermark after it.
     *
     * @throws IllegalArgumentException when {@code revision} is not an unsettled revision of this sequencer
     */
    public synchronized long settle(long revision) {
        return settle(revision, null);
    }

    /** As {@link #settle(long)}, with the record the write stored ({@code null}: it did not apply). */
    public synchronized long settle(long revision, ChangeRecord record) {
        return settle(revision, record, false);
    }

    /**
     * Settles a revision whose fate is final but not known here (the write's answer was lost and
     * its record could not be read back): the run that passes it is published without records,
     * and readers take that run from the store.
     */
    public synchronized long settleFromStore(long revision) {
        return settle(revision, null, true);
    }

    private long settle(long revision, ChangeRecord record, boolean fromStore) {
        if (record != null && record.revision() != revision) {
            throw new IllegalArgumentException("record of revision " + Long.toUnsignedString(record.revision())
                    + " settled as revision " + Long.toUnsignedString(revision));
        }
        if (!unsettled.remove(revision)) {
            throw new IllegalArgumentException("revision " + Long.toUnsignedString(revision) + " is not unsettled here");
        }
        if (record != null && !record.isVoid()) held.put(revision, record);
        if (fromStore) unknown.add(revision);
        long from = watermark;
        watermark = unsettled.isEmpty() ? last : unsettled.first() - 1;
        if (watermark != from) {
            List<ChangeRecord> passed = new ArrayList<>();
            while (!held.isEmpty() && Long.compareUnsigned(held.firstKey(), watermark) <= 0) passed.add(held.pollFirstEntry().getValue());
            if (!passed.isEmpty()) lastRecord = passed.get(passed.size() - 1).revision();
            boolean complete = unknown.isEmpty() || Long.compareUnsigned(unknown.first(), watermark) > 0;
            // An unknown revision's record may sit above `lastRecord`: that only leaves `last` low, which is safe.
            while (!unknown.isEmpty() && Long.compareUnsigned(unknown.first(), watermark) <= 0) unknown.pollFirst();
            sink.accept(complete ? new Published(epoch, from, watermark, lastRecord, passed)
                    : Published.fromStore(epoch, from, watermark, lastRecord));
        }
        return watermark;
    }

    /**
     * Publishes the watermark again with no records: how followers that missed a run, or joined
     * late, learn where they stand when nothing is being written.
     */
    public synchronized void heartbeat() {
        sink.accept(new Published(epoch, watermark, watermark, lastRecord, List.of()));
    }

    public synchronized long watermark() {
        return watermark;
    }

    /** The last revision allocated (or the starting point). */
    public synchronized long last() {
        return last;
    }
}
