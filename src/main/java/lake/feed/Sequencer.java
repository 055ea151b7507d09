package lake.feed;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 *
 * <p>Order per key: a revision is allocated before its write is sent, so two writes in flight on
 * one key could commit in the opposite order of their revisions (a CAS allocated first but
 * delivered late applies after a later one it depended on), and the feed would replay a history
 * that never was. A write is therefore sent only after every earlier revision that conflicts
 * with it has settled ({@link #whenOrdered}): one that writes a key it writes or checks, or, for a
 * key it writes, one that checks it (a check passing after a later write of the value it expects
 * would put a state that never was at the earlier revision). Checks of one key do not conflict,
 * and writes on disjoint keys still overlap freely.
 *
 * <p>Waiting costs a hot key one store round trip per write. Where the store applies transactions
 * in about the order they arrive (RocksDB's single writer), a conflicting write may instead be
 * sent as soon as the earlier conflicting revisions still unreleased have been {@link #handed}
 * to the store ({@link #sendWithChecks}, {@link #whenSendable}), with a check, in its own
 * transaction, that each one's change record exists: it commits only after
 * they did (or were settled void), and is refused, writing nothing, if it arrives first; it then
 * waits like any other. Why that keeps the order, by induction on revisions: a revision's record
 * (applied or void) exists only once every earlier revision conflicting with it is final. Its own
 * write's checks held, and its predecessors not checked were released (final, with theirs) when it
 * was sent; a void record is written only after the revision's predecessors are released
 * ({@link #whenOrdered} again); and a revision settled before its predecessors keeps its place
 * (a phantom) until they are.
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
    /** Per key, the newest unsettled revision whose write writes it. */
    private final Map<String, Long> writer = new HashMap<>();
    /** Per key, the unsettled revisions allocated since its {@link #writer} that only check it. */
    private final Map<String, Set<Long>> checkers = new HashMap<>();
    /** The keys a revision's write writes, and those it only checks. */
    private record Touched(List<String> writes, List<String> checks) {}

    /** Per unsettled revision that touches keys: which. */
    private final Map<Long, Touched> keysOf = new HashMap<>();
    /** Per revision not yet sent: the earlier unsettled revisions on its keys it waits for. */
    private final Map<Long, Set<Long>> blockedBy = new HashMap<>();
    /** Per unsettled revision: the later revisions blocked by it. */
    private final Map<Long, List<Long>> blocking = new HashMap<>();
    /** Per held revision: its wait, whose continuation runs once it may be sent or never may. */
    private final Map<Long, Waiter> ready = new HashMap<>();
    /**
     * A held write's continuation: {@code then} gets the revisions to check for (empty: none) once
     * it may be sent, or {@code null} if it never may. With {@code maxChecks > 0} it is released as
     * soon as every earlier conflicting revision left is on its way, at most that many (it then
     * checks for their records); with 0, only once they all settled.
     */
    private record Waiter(Consumer<long[]> then, int maxChecks, Object owner) {}
    /**
     * Revisions settled unsent while still blocked (their writes gave up waiting): they keep
     * their place in the order, holding back what waits for them, until what they waited for
     * has settled.
     */
    private final Set<Long> phantoms = new HashSet<>();
    /** Unsettled revisions whose write is on its way to the store now ({@link #handed}). */
    private final Set<Long> inFlight = new HashSet<>();
    /** Set once a revision of this epoch will never settle: every blocked write is released unsent. */
    private boolean abandoned;

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
        return allocate(List.of(), List.of());
    }

    /**
     * The next revision, for a write of the keys {@code written} that also checks {@code checked}:
     * it may be sent once every earlier unsettled revision it conflicts with has settled
     * ({@link #whenOrdered}).
     */
    public synchronized long allocate(Collection<String> written, Collection<String> checked) {
        if (last == -1L) throw new IllegalStateException("revisions exhausted (u64)");
        last++;
        unsettled.add(last);
        if (!written.isEmpty() || !checked.isEmpty()) {
            Set<String> writes = new HashSet<>(written);
            Set<String> checks = new HashSet<>(checked);
            checks.removeAll(writes);
            Set<Long> before = new HashSet<>();
            for (String key : writes) {
                Long previous = writer.put(key, last);
                if (previous != null) before.add(previous);
                Set<Long> readers = checkers.remove(key);
                if (readers != null) before.addAll(readers);
            }
            for (String key : checks) {
                Long previous = writer.get(key);
                if (previous != null) before.add(previous);
                checkers.computeIfAbsent(key, k -> new HashSet<>()).add(last);
            }
            keysOf.put(last, new Touched(List.copyOf(writes), List.copyOf(checks)));
            if (!before.isEmpty()) {
                blockedBy.put(last, before);
                for (long b : before) blocking.computeIfAbsent(b, x -> new ArrayList<>()).add(last);
            }
        }
        return last;
    }

    /**
     * Whether {@code revision}'s write may be sent now: {@code true} when no earlier unsettled
     * revision conflicts with it ({@code then} is not called). Otherwise {@code then} runs once it
     * may ({@code true}: all of them settled) or never may ({@code false}: one never will, see
     * {@link #abandon}). {@code then} runs under this sequencer's lock: it must only hand off.
     */
    public synchronized boolean whenOrdered(long revision, Consumer<Boolean> then) {
        // While it waits, nothing of it is on its way: later writes wait for it rather than check for its record.
        inFlight.remove(revision);
        if (abandoned) {
            then.accept(false);
            return false;
        }
        if (!blockedBy.containsKey(revision)) return true;
        ready.put(revision, new Waiter(checks -> then.accept(checks != null), 0, then));
        return false;
    }

    /**
     * {@link #sendWithChecks}, or, when the write may not be sent yet, a wait that ends as soon as
     * it may be sent with at most {@code maxChecks} checks (or with none, once every earlier
     * conflicting revision settled): {@code then} gets the checks, or {@code null} if it never
     * may be sent. {@code then} runs under this sequencer's lock: it must only hand off.
     */
    public synchronized long[] whenSendable(long revision, int maxChecks, Consumer<long[]> then) {
        long[] now = sendWithChecks(revision, maxChecks);
        if (now != null) return now;
        inFlight.remove(revision);
        if (abandoned) {
            then.accept(null);
            return null;
        }
        ready.put(revision, new Waiter(then, Math.max(0, maxChecks), then));
        return null;
    }

    /**
     * Whether {@code revision}'s write may be sent now without waiting, and on what condition: the
     * earlier conflicting revisions not yet released, whose change records its transaction must
     * find (empty: none; the write is as free as after {@link #whenOrdered} returned {@code true}).
     * {@code null} when it must wait instead ({@link #whenOrdered}): the epoch is abandoned, more
     * than {@code maxChecks} such revisions remain, or one of them has not been {@link #handed}
     * to the store (or was settled without a record), so it would likely arrive after this one.
     * The write's own transaction is to be {@link #handed} too.
     *
     * <p>A write sent so and refused because a record was missing writes nothing; it then waits
     * ({@link #whenOrdered}) and is sent again without checks. One whose answer was lost waits the
     * same way before its void record is written.
     */
    public synchronized long[] sendWithChecks(long revision, int maxChecks) {
        if (abandoned || !unsettled.contains(revision) || ready.containsKey(revision)) return null;
        Set<Long> before = blockedBy.get(revision);
        if (before == null) return new long[0];
        if (before.size() > maxChecks || !inFlight.containsAll(before)) return null;
        return checks(before);
    }

    private static long[] checks(Set<Long> before) {
        long[] checks = new long[before.size()];
        int i = 0;
        for (long b : before) checks[i++] = b;
        java.util.Arrays.sort(checks);
        return checks;
    }

    /**
     * {@code revision}'s write has been handed to the store: a transaction handed
     * later reaches it later, where the store applies them in arrival order. Writes held until
     * everything before them is so on its way may follow it now, checking for its record.
     */
    public synchronized void handed(long revision) {
        if (abandoned || !unsettled.contains(revision) || ready.containsKey(revision)) return;
        inFlight.add(revision);
        List<Long> later = blocking.get(revision);
        if (later == null) return;
        for (long next : List.copyOf(later)) releaseWithChecks(next);
    }

    /** Releases {@code next} if it waits to be sent with checks and everything before it left is on its way. */
    private boolean releaseWithChecks(long next) {
        Waiter w = ready.get(next);
        Set<Long> before = blockedBy.get(next);
        if (w == null || w.maxChecks() == 0 || before == null || before.size() > w.maxChecks() || !inFlight.containsAll(before)) return false;
        ready.remove(next);
        w.then().accept(checks(before));
        return true;
    }

    /**
     * Withdraws {@code revision}'s wait for {@code then} (the continuation its
     * {@link #whenOrdered} or {@link #whenSendable} was given; its write gives up: a deadline):
     * {@code true} when that wait was still on, so {@code then} will never run and the write must
     * not be sent; it is then settled as a write that did not apply. A later wait of the same
     * revision (a write refused for a missing record waits again) is another continuation and
     * is left alone: an earlier wait's deadline must not strand it.
     */
    public synchronized boolean cancelWait(long revision, Object then) {
        Waiter w = ready.get(revision);
        if (w == null || w.owner() != then) return false;
        ready.remove(revision);
        return true;
    }

    /** Writes allocated a revision and held until an earlier write on one of their keys settles. */
    public synchronized int waiting() {
        return ready.size();
    }

    /**
     * Whether {@code revision}'s write would be held, with {@code limit} or more writes held or
     * given up in place already: such a write is refused unsent, while writes that would not wait
     * go on.
     */
    public synchronized boolean heldOver(long revision, int limit) {
        return blockedBy.containsKey(revision) && ready.size() + phantoms.size() >= limit;
    }

    /**
     * A revision of this epoch will never settle (its write's outcome could not be decided): every
     * write held behind one is released unsent, and so is every later one.
     */
    public synchronized void abandon() {
        abandoned = true;
        List<Waiter> held = new ArrayList<>(ready.values());
        ready.clear();
        inFlight.clear();
        blockedBy.clear();
        blocking.clear();
        phantoms.clear();
        for (Waiter w : held) w.then().accept(null);
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
        inFlight.remove(revision);
        if (record != null && !record.isVoid()) held.put(revision, record);
        if (fromStore) unknown.add(revision);
        if (blockedBy.containsKey(revision)) {
            // Settled unsent while still blocked: it holds its place until its own wait is over.
            ready.remove(revision);
            phantoms.add(revision);
        } else {
            release(revision);
        }
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

    /** {@code revision} settled: it no longer holds its keys, and the writes it held back may go. */
    private void release(long settled) {
        ArrayDeque<Long> done = new ArrayDeque<>();
        done.add(settled);
        // A worklist, not recursion: a chain of phantoms on one hot key may be long.
        while (!done.isEmpty()) {
            long revision = done.poll();
            Touched keys = keysOf.remove(revision);
            if (keys != null) {
                for (String key : keys.writes()) writer.remove(key, revision);
                for (String key : keys.checks()) {
                    Set<Long> readers = checkers.get(key);
                    if (readers != null && readers.remove(revision) && readers.isEmpty()) checkers.remove(key);
                }
            }
            List<Long> later = blocking.remove(revision);
            if (later == null) continue;
            for (long next : later) {
                Set<Long> waits = blockedBy.get(next);
                if (waits == null || !waits.remove(revision)) continue;
                if (!waits.isEmpty()) {
                    releaseWithChecks(next);
                    continue;
                }
                blockedBy.remove(next);
                if (phantoms.remove(next)) {
                    done.add(next);
                    continue;
                }
                Waiter go = ready.remove(next);
                if (go != null) go.then().accept(new long[0]);
            }
        }
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
