package lake.feed;

import java.util.TreeSet;

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
 */
public final class Sequencer {
    private final TreeSet<Long> unsettled = new TreeSet<>(Long::compareUnsigned);
    private long last;
    private long watermark;

    /** Starts above {@code after}, the greatest revision committed under any earlier epoch (0: none). */
    public Sequencer(long after) {
        if (after == -1L) throw new IllegalArgumentException("no revision may follow " + Long.toUnsignedString(after));
        this.last = after;
        this.watermark = after;
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
        if (!unsettled.remove(revision)) {
            throw new IllegalArgumentException("revision " + Long.toUnsignedString(revision) + " is not unsettled here");
        }
        watermark = unsettled.isEmpty() ? last : unsettled.first() - 1;
        return watermark;
    }

    public synchronized long watermark() {
        return watermark;
    }

    /** The last revision allocated (or the starting point). */
    public synchronized long last() {
        return last;
    }
}
