package lake.grants;

import io.vertx.core.Context;
import lake.feed.ChangeRecord;
import lake.meta.MetaStore;
import lake.watch.Watches;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Keeps one node's copy of the stored grants exact, as a client builds a cache from the change
 * feed (docs/watch.md, "Consistent start"): once the node knows the feed's revision R, it reads
 * every grant, publishes the book, and watches the grants' prefix after R, publishing each change
 * as it is applied. A grant changed on the leader so reaches every node without a restart, in the
 * order it was written. When the watch fails (compacted past its cursor, the store, the node
 * stopping its watches) it starts again from a fresh read after a pause. Confined to its context.
 */
public final class GrantsFollower {
    /** Pause before starting again after a failure, and between waits for the feed's position. */
    static final long RETRY_MS = 200;

    private final Context context;
    private final MetaStore reads;
    private final Watches watches;
    private final Supplier<Long> currentRevision;
    private final Consumer<GrantBook> publish;
    private final java.util.function.LongConsumer revision;
    private GrantBook book = GrantBook.EMPTY;
    private Watches.Watch watch;
    private long timer = -1;
    private boolean stopped;

    /** {@code revision} hears the feed revision each published book reflects. */
    public GrantsFollower(Context context, MetaStore reads, Watches watches, Supplier<Long> currentRevision, Consumer<GrantBook> publish,
                          java.util.function.LongConsumer revision) {
        this.revision = revision;
        this.context = context;
        this.reads = reads;
        this.watches = watches;
        this.currentRevision = currentRevision;
        this.publish = publish;
    }

    /** Starts following; call on the context. */
    public void start() {
        restart(0);
    }

    public void stop() {
        stopped = true;
        if (timer >= 0) context.owner().cancelTimer(timer);
        if (watch != null) watch.cancel();
    }

    private void restart(long delayMs) {
        if (stopped) return;
        if (delayMs == 0) {
            begin();
            return;
        }
        timer = context.owner().setTimer(delayMs, id -> {
            timer = -1;
            begin();
        });
    }

    private void begin() {
        if (stopped) return;
        Long at = currentRevision.get();
        if (at == null) {
            restart(RETRY_MS);
            return;
        }
        // The store may answer on its own thread: the watch is started, and the book kept, on this context.
        Grants.readAll(reads, StoredGrant.PREFIX).onComplete(read -> context.runOnContext(v -> {
            if (stopped) return;
            if (read.failed()) {
                restart(RETRY_MS);
                return;
            }
            apply(GrantBook.of(read.result()), at);
            follow(at);
        }));
    }

    /** Watches the grants after {@code after}: what the read above may already include is applied again, to the same values. */
    private void follow(long after) {
        watch = watches.watch(Watches.Filter.keys(StoredGrant.PREFIX, k -> true), after, Watches.MAX_PAGE, new Watches.Receiver() {
            @Override public Watches.Flow deliver(Watches.Page page) {
                List<ChangeRecord.Change> changes = new ArrayList<>();
                for (ChangeRecord r : page.records()) changes.addAll(r.changes());
                apply(book.with(changes), page.cursor());
                return Watches.Flow.MORE;
            }

            @Override public void fail(Throwable cause) {
                watch = null;
                restart(RETRY_MS);
            }

            @Override public void fellBehind(long cursor) {
                watch = null;
                restart(RETRY_MS);
            }
        });
    }

    private void apply(GrantBook next, long revision) {
        book = next;
        publish.accept(next);
        this.revision.accept(revision);
    }
}
