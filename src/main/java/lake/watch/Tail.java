package lake.watch;

import lake.feed.ChangeRecord;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One node's in-memory tail of the change feed: the most recent records, every one in revisions
 * ({@code base}, {@code through}], where {@code through} is a watermark the leader published (every
 * revision at or below it is settled, so no record will ever appear below it that is not here or
 * in the store). Bounded by count and bytes: the oldest records leave and {@code base} rises;
 * readers below {@code base} read the store.
 *
 * <p>Written only by its {@link TailFeeder} (one context per node); read from any thread (every
 * method is synchronized and does no I/O). Listeners hear each advance on the feeder's thread and
 * must hop to their own context.
 */
public final class Tail {
    /** What a reader gets: records after its cursor, or word that it must read the store first. */
    public record Slice(boolean ready, boolean belowBase, long base, long through, long last, long epoch, List<ChangeRecord> records) {
        /** {@code records} is taken as it is: the tail hands out views of arrays it never changes. */
        public Slice {
        }
    }

    /**
     * What every reader sees between two changes: the records in order, in an array nothing
     * writes again. Built on the first read after a change, so a thousand watchers woken by one
     * advance share one copy and take no lock.
     */
    private record View(boolean ready, long base, long through, long last, long epoch, ChangeRecord[] records) {}

    private static final View NOT_READY = new View(false, 0, 0, 0, 0, new ChangeRecord[0]);

    private final int maxRecords;
    private final long maxBytes;
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
    /** A ring of records in revision order: {@code size} of them from index {@code head}. */
    private final ChangeRecord[] ring;
    private final long[] sizes;
    private int head;
    private int size;
    private long bytes;
    private boolean ready;
    private long epoch;
    private long base;
    private long through;
    private long last;
    /** The current {@link View}, or {@code null} after a change until the next read builds it. */
    private volatile View view = NOT_READY;

    public Tail(int maxRecords, long maxBytes) {
        if (maxRecords < 1 || maxBytes < 1) throw new IllegalArgumentException("a tail holds at least one record and one byte");
        this.maxRecords = maxRecords;
        this.maxBytes = maxBytes;
        this.ring = new ChangeRecord[maxRecords];
        this.sizes = new long[maxRecords];
    }

    /** Runs {@code listener} (on the feeder's thread) after every advance; returns what removes it. */
    public Runnable onAdvance(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /**
     * The records above {@code after}, at most {@code limit}, for a reader that holds every record
     * up to {@code heldTo} ({@code >= after}; more than {@code after} once it has read the store);
     * {@code belowBase} when records between {@code heldTo} and {@code base} may exist that this
     * tail no longer (or never) held.
     */
    public Slice since(long after, long heldTo, int limit) {
        View v = view();
        if (!v.ready()) return new Slice(false, false, 0, 0, 0, 0, List.of());
        long held = Long.compareUnsigned(after, heldTo) > 0 ? after : heldTo;
        if (Long.compareUnsigned(held, v.base()) < 0) {
            return new Slice(true, true, v.base(), v.through(), v.last(), v.epoch(), List.of());
        }
        ChangeRecord[] rs = v.records();
        // The first record above `after`: records are in revision order, so a binary search.
        int lo = 0, hi = rs.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(rs[mid].revision(), after) <= 0) lo = mid + 1;
            else hi = mid;
        }
        int to = (int) Math.min(rs.length, (long) lo + Math.max(0, limit));
        List<ChangeRecord> out = lo == to ? List.of() : java.util.Collections.unmodifiableList(java.util.Arrays.asList(rs).subList(lo, to));
        return new Slice(true, false, v.base(), v.through(), v.last(), v.epoch(), out);
    }

    private View view() {
        View v = view;
        if (v != null) return v;
        synchronized (this) {
            if (view == null) {
                ChangeRecord[] rs = new ChangeRecord[size];
                for (int i = 0; i < size; i++) rs[i] = at(i);
                view = new View(ready, base, through, last, epoch, rs);
            }
            return view;
        }
    }

    public synchronized boolean ready() {
        return ready;
    }

    /** The highest epoch whose runs this tail took. */
    public synchronized long epoch() {
        return epoch;
    }

    public synchronized long through() {
        return through;
    }

    /** The revision to hand a reader as "current": a record's, or one below which every record is older (never a bare watermark). */
    public synchronized long last() {
        return last;
    }

    private ChangeRecord at(int i) {
        return ring[(head + i) % ring.length];
    }

    // ---- written by the feeder only ----

    /** Starts (or restarts) empty at {@code point}: records at or below it are read from the store. */
    synchronized void reset(long epoch, long point, long last) {
        view = null;
        for (int i = 0; i < size; i++) ring[(head + i) % ring.length] = null;
        head = 0;
        size = 0;
        bytes = 0;
        this.epoch = epoch;
        this.base = point;
        this.through = point;
        this.last = last;
        this.ready = true;
    }

    /**
     * A later epoch's run arrived. That epoch started above every record there was then, but
     * possibly below this tail's end (revisions no record held may be handed out again), and its
     * first runs may have been missed. So {@code through} comes down to {@code last}, the newest
     * record this tail knows of (at or below the new epoch's start): the next run's start is then
     * above it, and the new epoch's records are read from the store like any gap.
     */
    synchronized void takeOver(long epoch) {
        view = null;
        this.epoch = epoch;
        if (Long.compareUnsigned(last, through) < 0) {
            while (size > 0 && Long.compareUnsigned(at(size - 1).revision(), last) > 0) {
                int i = (head + size - 1) % ring.length;
                bytes -= sizes[i];
                ring[i] = null;
                size--;
            }
            through = last;
            if (Long.compareUnsigned(base, through) > 0) base = through;
        }
    }

    /**
     * Compaction removed every record at or below {@code floor}: the tail drops them too, so a
     * reader from below the floor reads the store and learns it is gone, on every node alike.
     */
    synchronized void compacted(long floor) {
        view = null;
        while (size > 0 && Long.compareUnsigned(ring[head].revision(), floor) <= 0) {
            bytes -= sizes[head];
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
        }
        // Every revision at or below the floor is settled (compaction stays below the leader's
        // watermark), and no record will ever appear at or below it: a tail behind it jumps to it.
        if (Long.compareUnsigned(floor, base) > 0) base = floor;
        if (Long.compareUnsigned(floor, through) > 0) through = floor;
        if (Long.compareUnsigned(floor, last) > 0) last = floor;
    }

    /** Appends {@code records} (all above {@code through}, in order) and moves {@code through} to {@code to}. */
    synchronized void advance(long to, long last, List<ChangeRecord> records) {
        view = null;
        for (ChangeRecord r : records) {
            if (Long.compareUnsigned(r.revision(), through) <= 0) continue;
            if (r.isVoid()) continue;
            long cost = weight(r);
            while (size > 0 && (size == ring.length || bytes + cost > maxBytes)) {
                base = ring[head].revision();
                bytes -= sizes[head];
                ring[head] = null;
                head = (head + 1) % ring.length;
                size--;
            }
            int i = (head + size) % ring.length;
            ring[i] = r;
            sizes[i] = cost;
            bytes += cost;
            size++;
        }
        if (Long.compareUnsigned(to, through) > 0) through = to;
        if (Long.compareUnsigned(last, this.last) > 0) this.last = last;
        // A record read from the store may lie above the run's `last` (a run whose records only the store knew).
        if (size > 0 && Long.compareUnsigned(at(size - 1).revision(), this.last) > 0) this.last = at(size - 1).revision();
    }

    void announce() {
        for (Runnable l : listeners) l.run();
    }

    /** Roughly what a record costs in memory: its keys and values, and a fixed overhead. */
    static long weight(ChangeRecord r) {
        long w = 128;
        for (ChangeRecord.Change c : r.changes()) w += 2L * c.key().length() + (c.deleted() ? 0 : c.valueLength()) + 48;
        if (r.event() != null) w += 2L * r.event().encode().length();
        return w;
    }

    public int maxRecords() {
        return maxRecords;
    }
}
