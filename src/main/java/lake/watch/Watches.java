package lake.watch;

import io.vertx.core.Context;
import io.vertx.core.Future;
import lake.feed.ChangeRecord;
import lake.feed.FeedReads;
import lake.feed.Revisions;
import lake.meta.MetaStore;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * The watchers of one API instance, on its context: each reads the node's {@link Tail} after its
 * cursor, or the store below the tail, filtered to the keys it may see; waiting watchers are
 * woken when the tail advances.
 *
 * <p>Cursors: a watcher's cursor is always the revision of a record it was served or passed over
 * (never a watermark no record holds), so a later epoch can never place a record at or below it
 * (invariant 2 across takeovers). Every record a watcher is given lies at or below a watermark
 * the leader published, so no record ever appears below one it has seen.
 */
public final class Watches {
    /** Records one page holds at most. */
    public static final int MAX_PAGE = 1_000;

    /** Records after a cursor, filtered; {@code cursor} is where the next read resumes. */
    public record Page(List<ChangeRecord> records, long cursor, boolean more) {
        public Page {
            records = List.copyOf(records);
        }
    }

    /** Records after the cursor were compacted away: the watcher must start again from a fresh read. */
    public static final class Gone extends RuntimeException {
        private final long floor;

        private final long oldest;

        public Gone(long after, long floor, long oldest) {
            super("revision " + Long.toUnsignedString(after) + " is compacted: records up to revision " + Long.toUnsignedString(floor)
                    + " are gone" + (oldest == 0 ? "" : ", the oldest held is " + Long.toUnsignedString(oldest))
                    + "; read the current state again and watch after its revision", null, false, false);
            this.floor = floor;
            this.oldest = oldest;
        }

        /** The greatest revision compacted away: every record above it is still held. */
        public long floor() { return floor; }

        /** The oldest revision still held (0: none is, every record was compacted). */
        public long oldest() { return oldest; }
    }

    /** What a watcher sees of a record: the record as shown to it, or {@code null} when nothing of it is. */
    @FunctionalInterface
    public interface Filter {
        ChangeRecord apply(ChangeRecord r);

        /** The keys under {@code prefix} that the principal may read ({@code mayRead}); a record with none is not shown. */
        static Filter keys(String prefix, Predicate<String> mayRead) {
            return r -> {
                List<ChangeRecord.Change> all = r.changes();
                // Most records are seen whole by most watchers: shown as they are, nothing allocated.
                boolean whole = !all.isEmpty();
                for (int i = 0; whole && i < all.size(); i++) {
                    String key = all.get(i).key();
                    whole = key.startsWith(prefix) && mayRead.test(key);
                }
                if (whole) return r;
                List<ChangeRecord.Change> seen = new ArrayList<>(all.size());
                boolean hidden = false;
                for (ChangeRecord.Change c : all) {
                    boolean readable = mayRead.test(c.key());
                    hidden |= !readable;
                    if (readable && c.key().startsWith(prefix)) seen.add(c);
                }
                if (seen.isEmpty()) return null;
                if (seen.size() == all.size()) return r;
                // A catalog event names every table and namespace the write touched: shown beside
                // a subset of the keys only when the rest lie outside the prefix, never when the
                // principal may not read them (it would reveal what they hide).
                return ChangeRecord.of(r.revision(), r.epoch(), r.atMs(), seen, hidden ? null : r.event());
            };
        }

        /**
         * Typed catalog events only (without the keys they changed), each shown when the principal
         * may use every namespace it names ({@code namespaces} gives them).
         */
        static Filter events(java.util.function.Function<io.vertx.core.json.JsonObject, List<String>> namespaces, Predicate<String> mayUse) {
            return r -> {
                io.vertx.core.json.JsonObject event = r.event();
                if (event == null) return null;
                for (String ns : namespaces.apply(event)) if (!mayUse.test(ns)) return null;
                return ChangeRecord.of(r.revision(), r.epoch(), r.atMs(), List.of(), event);
            };
        }
    }

    /** What a receiver wants after a page. */
    public enum Flow {
        /** Send the next page when there is one. */
        MORE,
        /** Send nothing until {@link Watch#resume}: the receiver's output is full. */
        PAUSE,
        /** The watch ends. */
        STOP
    }

    /** Hears a watcher's pages. */
    public interface Receiver {
        /** A page with at least one record. */
        Flow deliver(Page page);

        /** The watch failed ({@link Gone}, or the store): it ends. */
        void fail(Throwable cause);

        /**
         * While paused, the tail moved past the watcher's cursor: catching up would mean reading the
         * store for a watcher that does not read what it is sent. The watch ends; {@code cursor} is
         * where it may resume.
         */
        default void fellBehind(long cursor) {
            fail(new IllegalStateException("fell behind the tail at revision " + Long.toUnsignedString(cursor)));
        }
    }

    /** One watch, until cancelled or ended by its receiver. */
    public final class Watch {
        private final Filter filter;
        private final int limit;
        private final Receiver receiver;
        private long cursor;
        private boolean busy;
        private boolean ended;
        private boolean paused;
        /** Paused while its cursor was in the tail (not reading the store): cut off if the tail then moves past it. */
        private boolean pausedInTail;
        private long pausedAtNanos;
        /** Woken while a read was in flight: read again when it completes. */
        private boolean rewake;

        private Watch(Filter filter, long after, int limit, Receiver receiver) {
            this.filter = filter;
            this.cursor = after;
            this.limit = limit;
            this.receiver = receiver;
        }

        /** Where it would resume: the last record it was served or passed over. */
        public long cursor() { return cursor; }

        /** Whether a page is being read for it (from the store, for a watcher behind the tail). */
        public boolean reading() { return busy; }

        public void cancel() {
            ended = true;
            watches.remove(this);
        }

        /** After {@link Flow#PAUSE}: the receiver can take pages again. Call on the watches' context. */
        public void resume() {
            if (!paused) return;
            paused = false;
            pump(this);
        }
    }

    private final Context context;
    private final Tail tail;
    private final MetaStore store;
    private final Set<Watch> watches = new LinkedHashSet<>();
    private final AtomicBoolean woken = new AtomicBoolean();
    private Runnable unlisten = () -> {};

    public Watches(Context context, Tail tail, MetaStore store) {
        this.context = context;
        this.tail = tail;
        this.store = store;
    }

    public void start() {
        unlisten = tail.onAdvance(() -> {
            if (woken.compareAndSet(false, true)) context.runOnContext(v -> wake());
        });
    }

    public void stop() {
        unlisten.run();
        for (Watch w : List.copyOf(watches)) {
            w.cancel();
            w.receiver.fail(new IllegalStateException("the node is stopping"));
        }
    }

    /** The node's current revision for a consistent start: {@code null} until its tail has heard from a leader. */
    public Long currentRevision() {
        return tail.ready() ? tail.last() : null;
    }

    /** Starts a watch after {@code after}; its receiver hears every page with records, in order. Call on this context. */
    public Watch watch(Filter filter, long after, int limit, Receiver receiver) {
        if (limit < 1 || limit > MAX_PAGE) throw new IllegalArgumentException("limit must be between 1 and " + MAX_PAGE);
        Watch w = new Watch(filter, after, limit, receiver);
        watches.add(w);
        try {
            pump(w);
        } catch (RuntimeException thrown) {
            // A receiver that threw on the first page: the watch ends with it.
            w.cancel();
            throw thrown;
        }
        return w;
    }

    /** How long a watcher may stay paused (its client reading nothing) before it is cut off, wherever it reads from. */
    static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** Watchers one task serves before the pass yields the event loop (to the feed's publications, writes, other I/O). */
    static final int WATCHERS_PER_TASK = 64;

    /** A pass over the watchers is under way; {@code again}: the tail advanced meanwhile, so another follows. */
    private boolean passing;
    private boolean again;

    private void wake() {
        woken.set(false);
        if (passing) {
            again = true;
            return;
        }
        passing = true;
        pass(List.copyOf(watches), 0);
    }

    /**
     * Serves watchers from {@code from} on, {@link #WATCHERS_PER_TASK} per task: a thousand
     * watchers each given a page would otherwise hold the event loop for one long task, and the
     * next publication (what they all wait for) would queue behind it.
     */
    private void pass(List<Watch> all, int from) {
        long now = System.nanoTime();
        int to = Math.min(all.size(), from + WATCHERS_PER_TASK);
        for (int i = from; i < to; i++) {
            Watch w = all.get(i);
            if (w.ended) continue;
            // A watcher paused inside the tail is cut off once the tail moves past it; one paused
            // while reading the store costs the tail nothing, and waits, for at most a minute.
            boolean overtaken = w.paused && w.pausedInTail && tail.since(w.cursor, w.cursor, 1).belowBase();
            if (overtaken || (w.paused && now - w.pausedAtNanos > MAX_PAUSE_NANOS)) {
                w.cancel();
                w.receiver.fellBehind(w.cursor);
            } else if (w.busy) {
                w.rewake = true;
            } else {
                pump(w);
            }
        }
        if (to < all.size()) {
            context.runOnContext(v -> pass(all, to));
            return;
        }
        passing = false;
        if (again) {
            again = false;
            wake();
        }
    }

    /** Pages read back to back before the watch yields its event loop to others. */
    private static final int PAGES_PER_TURN = 64;

    /**
     * Reads and delivers pages while more are ready. Pages the tail serves complete at once: they
     * are read in a loop (never by recursion), and after {@value #PAGES_PER_TURN} the watch yields
     * its event loop and goes on in a later task.
     */
    private void pump(Watch w) {
        if (w.busy || w.ended || w.paused) return;
        w.busy = true;
        for (int pages = 0; ; pages++) {
            if (pages == PAGES_PER_TURN) {
                w.busy = false;
                context.runOnContext(v -> pump(w));
                return;
            }
            Future<Page> read = read(w.filter, w.cursor, w.limit);
            if (!read.isComplete()) {
                read.onComplete(ar -> {
                    w.busy = false;
                    boolean again = took(w, ar);
                    // The tail advanced during the read: what it read may already be behind it.
                    if (w.rewake && !w.ended && !w.paused) again = true;
                    w.rewake = false;
                    if (again) pump(w);
                });
                return;
            }
            if (!took(w, read)) {
                w.busy = false;
                return;
            }
        }
    }

    /** Hands a page to the receiver; whether another should be read at once. */
    private boolean took(Watch w, io.vertx.core.AsyncResult<Page> ar) {
        if (w.ended) return false;
        if (ar.failed()) {
            w.cancel();
            w.receiver.fail(ar.cause());
            return false;
        }
        Page p = ar.result();
        w.cursor = p.cursor();
        Flow flow = p.records().isEmpty() ? Flow.MORE : w.receiver.deliver(p);
        if (flow == Flow.STOP) {
            w.cancel();
            return false;
        }
        if (flow == Flow.PAUSE) {
            w.paused = true;
            w.pausedInTail = !tail.since(w.cursor, w.cursor, 1).belowBase();
            w.pausedAtNanos = System.nanoTime();
            return false;
        }
        return p.more();
    }

    /**
     * One page after {@code after}: from the tail, or from the store below the tail and then the
     * tail. The store read covers ({@code after}, base]; the tail is joined only if it still
     * holds everything above that base, and only its records above the last one read, since a
     * later epoch may place new records at or below the base (revisions no record held).
     */
    public Future<Page> read(Filter filter, long after, int limit) {
        Tail.Slice slice = tail.since(after, after, limit);
        if (!slice.ready()) return Future.succeededFuture(new Page(List.of(), after, false));
        if (!slice.belowBase()) return Future.succeededFuture(page(filter, after, slice.records(), slice.records().size() == limit));
        long base = slice.base();
        long epoch = slice.epoch();
        return fromStore(after, base, limit, 1).map(batch -> {
            List<ChangeRecord> stored = new ArrayList<>(batch.records().size());
            for (ChangeRecord r : batch.records()) {
                // A later epoch's record may be unsettled (its epoch's watermark is not known here
                // yet): served only once the tail has taken that epoch. Every record of earlier
                // epochs lies below it, so nothing before it is missed.
                if (Long.compareUnsigned(r.epoch(), epoch) > 0) return page(filter, after, stored, false);
                stored.add(r);
            }
            // The read stopped short of the base: the rest is read next time, still from the store.
            if (!batch.whole()) return page(filter, after, stored, true);
            long lastRead = stored.isEmpty() ? after : stored.get(stored.size() - 1).revision();
            Tail.Slice rest = tail.since(lastRead, base, limit - stored.size());
            // The tail moved past the base meanwhile: what was read is served, the rest read again.
            if (rest.belowBase()) return page(filter, after, stored, true);
            List<ChangeRecord> all = new ArrayList<>(stored);
            all.addAll(rest.records());
            return page(filter, after, all, rest.records().size() == limit - stored.size());
        });
    }

    /**
     * Records in ({@code after}, {@code upTo}] from the store. The floor is read after the records:
     * above {@code after}, records this reader needs were compacted ({@link Gone}).
     */
    private Future<FeedReads.Batch> fromStore(long after, long upTo, int limit, int attempt) {
        return FeedReads.batch(store, after, upTo, limit, PAGE_BYTES).transform(read -> store.get(Revisions.FLOOR_KEY).compose(f -> {
            long floor = Revisions.floor(f);
            if (Long.compareUnsigned(floor, after) > 0) return oldest(floor).compose(oldest -> Future.failedFuture(new Gone(after, floor, oldest)));
            if (read.succeeded()) return Future.succeededFuture(read.result());
            if (!(read.cause() instanceof FeedReads.Compacted)) return Future.failedFuture(read.cause());
            // Compaction between two pages, or (DynamoDB) a record seen mid-commit: passes; read again after a pause.
            if (attempt >= READ_ATTEMPTS) {
                return Future.failedFuture(new lake.meta.MetaException.RetryableBackend("the change feed could not be read whole after "
                        + READ_ATTEMPTS + " attempts: " + read.cause().getMessage(), read.cause()));
            }
            io.vertx.core.Promise<Void> later = io.vertx.core.Promise.promise();
            context.owner().setTimer(20L * attempt, id -> later.complete());
            return later.future().compose(v -> fromStore(after, upTo, limit, attempt + 1));
        }));
    }

    private static final int READ_ATTEMPTS = 5;

    /** The oldest revision the store still holds above {@code floor} (0 when none is). */
    private Future<Long> oldest(long floor) {
        return FeedReads.read(store, floor, -1L, 1).map(rs -> rs.isEmpty() ? 0L : rs.get(0).revision());
    }

    /** A record as the watch API shows it ({@link lake.wire.WatchEvent}'s shape). */
    public static java.util.Map<String, Object> render(ChangeRecord r) {
        List<Object> changes = new ArrayList<>(r.changes().size());
        for (ChangeRecord.Change c : r.changes()) changes.add(lake.wire.WatchEvent.Change.toMap(c.key(), c.value()));
        java.util.Map<String, Object> o = lake.wire.Fields.of("revision", lake.wire.Fields.u64Value(r.revision()),
                "epoch", lake.wire.Fields.u64Value(r.epoch()), "at_ms", r.atMs());
        // A catalog event shown without its keys has no changes to list.
        if (!changes.isEmpty() || r.event() == null) o.put("changes", changes);
        if (r.event() != null) o.put("event", r.event().getMap());
        return o;
    }

    /** Bytes of records one page holds, about (at least one record): a watcher's output stays bounded whatever the records' sizes. */
    static final long PAGE_BYTES = 1024 * 1024;

    private static Page page(Filter filter, long after, List<ChangeRecord> examined, boolean more) {
        List<ChangeRecord> seen = new ArrayList<>();
        long cursor = after;
        long bytes = 0;
        for (int i = 0; i < examined.size(); i++) {
            ChangeRecord r = examined.get(i);
            ChangeRecord visible = filter.apply(r);
            if (visible != null) {
                seen.add(visible);
                bytes += Tail.weight(visible);
            }
            cursor = r.revision();
            if (bytes >= PAGE_BYTES && i < examined.size() - 1) return new Page(seen, cursor, true);
        }
        return new Page(seen, cursor, more && !examined.isEmpty());
    }
}
