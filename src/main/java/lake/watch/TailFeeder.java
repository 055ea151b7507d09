package lake.watch;

import io.vertx.core.Future;
import lake.feed.ChangeRecord;
import lake.feed.FeedReads;
import lake.feed.Published;
import lake.feed.Revisions;
import lake.meta.MetaStore;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Feeds a node's {@link Tail} from the leader's publications, one at a time, on one context.
 *
 * <p>A run continuing where the tail stands is appended. A run that starts above it (this node
 * missed a publication, or a new leader's first run) or whose records only the store knows is
 * read from the store first: every revision up to the run's end is settled, so that read is
 * final. A later epoch may start below the tail's end (revisions no record held are handed out
 * again), and its first runs may be missed: the tail comes down to the newest record it knows,
 * and reads the new epoch's records from the store as a gap. Runs of an epoch older than the newest seen are
 * dropped: anything they carry is read from the store at the newer epoch's first run. A gap too
 * wide to read, or a read that fails or meets compaction, restarts the tail empty at the run's end
 * (readers below it read the store).
 */
public final class TailFeeder {
    private final Tail tail;
    private final MetaStore store;
    private final ArrayDeque<Published> pending = new ArrayDeque<>();
    private boolean busy;

    public TailFeeder(Tail tail, MetaStore store) {
        this.tail = tail;
        this.store = store;
    }

    /** Takes a publication; call on the feeder's context. */
    public void accept(Published run) {
        pending.add(run);
        if (!busy) next();
    }

    private void next() {
        Published run;
        while ((run = pending.poll()) != null) {
            busy = true;
            Future<Void> step = step(run);
            if (!step.isComplete()) {
                step.onComplete(done -> {
                    tail.announce();
                    next();
                });
                return;
            }
            tail.announce();
        }
        busy = false;
    }

    private Future<Void> step(Published run) {
        if (!tail.ready()) tail.reset(run.epoch(), run.from(), 0);
        tail.compacted(run.floor());
        if (Long.compareUnsigned(run.epoch(), tail.epoch()) < 0) return Future.succeededFuture();
        if (Long.compareUnsigned(run.epoch(), tail.epoch()) > 0) tail.takeOver(run.epoch());
        long through = tail.through();
        if (Long.compareUnsigned(run.to(), through) <= 0) {
            tail.advance(through, run.last(), List.of());
            return Future.succeededFuture();
        }
        if (run.complete() && Long.compareUnsigned(run.from(), through) <= 0) {
            tail.advance(run.to(), run.last(), run.records());
            return Future.succeededFuture();
        }
        return readGap(run.epoch(), through, through, run.to(), new ArrayList<>()).transform(read -> {
            if (read.succeeded()) tail.advance(run.to(), run.last(), read.result());
            else tail.reset(run.epoch(), run.to(), run.last());
            return Future.succeededFuture();
        });
    }

    /** Records a gap read asks the store for at a time. */
    private static final int GAP_PAGE = 256;

    /**
     * Every record of {@code epoch} or earlier in ({@code start}, {@code upTo}]; fails when there are
     * more than the tail holds or some were compacted.
     */
    private Future<List<ChangeRecord>> readGap(long epoch, long start, long after, long upTo, List<ChangeRecord> into) {
        return FeedReads.read(store, after, upTo, GAP_PAGE).compose(page -> {
            boolean end = page.size() < GAP_PAGE;
            for (ChangeRecord r : page) {
                // A later epoch's records may be unsettled yet, and lie above every record of this
                // run's epoch: the gap ends before them (that epoch's runs bring them).
                if (Long.compareUnsigned(r.epoch(), epoch) > 0) {
                    end = true;
                    break;
                }
                into.add(r);
            }
            if (into.size() > tail.maxRecords()) return Future.failedFuture(new IllegalStateException("gap wider than the tail"));
            if (!end) return readGap(epoch, start, page.get(page.size() - 1).revision(), upTo, into);
            // The floor, read after the records: above the gap's start, records of it may have been compacted.
            return store.get(Revisions.FLOOR_KEY).compose(f -> Long.compareUnsigned(Revisions.floor(f), start) > 0
                    ? Future.failedFuture(new IllegalStateException("records of the gap were compacted"))
                    : Future.succeededFuture(into));
        });
    }
}
