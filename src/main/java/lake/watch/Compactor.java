package lake.watch;

import io.vertx.core.Future;
import lake.feed.ChangeRecord;
import lake.feed.FeedReads;
import lake.feed.Revisions;
import lake.meta.MetaStore;
import lake.meta.Transaction;
import lake.metasrv.FeedCompaction;
import lake.metasrv.FencedWriter;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Retention: deletes the feed's oldest records, those older than the retention period and those
 * more than {@code maxRecords} revisions below the newest, in fenced batches that raise the
 * compaction floor in the same transaction. Compaction only ever removes a prefix of the feed, so
 * "every record above the floor is held" stays true; a reader that finds the floor above where
 * it resumes knows it missed records ({@code 410}). It never passes the leader's watermark: a
 * revision still in flight looks like a gap, and its record must not land below the floor. Run
 * on the leader; a deposed leader's batch is fenced like any write.
 */
public final class Compactor {
    /** Record items one batch deletes: a store transaction's operations less the floor's. */
    static final int MAX_ITEMS = Transaction.MAX_OPERATIONS - 1;

    /** What a round did: records deleted, the floor it left, and whether expired records remain (its batches ran out). */
    public record Round(int records, long floor, boolean more) {
        public static final Round NONE = new Round(0, 0, false);
    }

    private final MetaStore reads;
    private final Function<FeedCompaction, Future<FencedWriter.Outcome>> writer;
    private final LongSupplier wallMillis;
    private final long retentionMs;
    private final long maxRecords;

    /**
     * @param writer      the node's fenced writer
     * @param retentionMs records older than this (by their commit time) are compacted
     * @param maxRecords  records more than this many revisions below the newest are compacted
     */
    public Compactor(MetaStore reads, Function<FeedCompaction, Future<FencedWriter.Outcome>> writer, LongSupplier wallMillis,
                     long retentionMs, long maxRecords) {
        if (retentionMs <= 0 || maxRecords <= 0) throw new IllegalArgumentException("retention and max records must be positive");
        this.reads = reads;
        this.writer = writer;
        this.wallMillis = wallMillis;
        this.retentionMs = retentionMs;
        this.maxRecords = maxRecords;
    }

    /**
     * Compacts what retention allows, below {@code watermark} (that of the leader's {@code epoch},
     * read at each batch; every batch is refused under any other epoch), in at most
     * {@code maxBatches} transactions.
     */
    public Future<Round> round(int maxBatches, long epoch, LongSupplier watermark) {
        return batch(maxBatches, 0, epoch, watermark);
    }

    private Future<Round> batch(int left, int done, long epoch, LongSupplier watermark) {
        return reads.get(Revisions.FLOOR_KEY).compose(floorBytes -> reads.lastKey(Revisions.PREFIX).compose(lastKey -> {
            long floor = Revisions.floor(floorBytes);
            if (lastKey.isEmpty()) return Future.succeededFuture(new Round(done, floor, false));
            long last = Revisions.parse(lastKey.get());
            long mark = watermark.getAsLong();
            long upTo = Long.compareUnsigned(last, mark) <= 0 ? last : mark;
            long countCut = Long.compareUnsigned(last, maxRecords) > 0 ? last - maxRecords : 0;
            long ageCut = wallMillis.getAsLong() - retentionMs;
            return FeedReads.items(reads, floor, upTo, MAX_ITEMS).compose(stored -> {
                List<Transaction.Op> ops = new ArrayList<>();
                long newFloor = floor;
                boolean full = false;
                for (FeedReads.Stored s : stored) {
                    ChangeRecord r = s.record();
                    boolean expired = Long.compareUnsigned(r.revision(), countCut) <= 0 || r.atMs() < ageCut;
                    if (!expired) break;
                    if (ops.size() + s.keys().size() > MAX_ITEMS) {
                        full = true;
                        break;
                    }
                    for (String key : s.keys()) ops.add(Transaction.Op.deleteAny(key));
                    newFloor = r.revision();
                }
                // Read as many records as one batch holds: if all were expired, more may follow.
                full |= !ops.isEmpty() && stored.size() == MAX_ITEMS && newFloor == stored.get(stored.size() - 1).record().revision();
                if (ops.isEmpty()) return Future.succeededFuture(new Round(done, floor, false));
                ops.add(floorOp(floorBytes, newFloor));
                long reached = newFloor;
                int deleted = done + (int) stored.stream().takeWhile(s -> Long.compareUnsigned(s.record().revision(), reached) <= 0).count();
                boolean more = full;
                return writer.apply(new FeedCompaction(Transaction.of(ops), epoch)).compose(o -> {
                    if (!o.applied()) return Future.succeededFuture(new Round(done, floor, false));
                    if (!more) return Future.succeededFuture(new Round(deleted, reached, false));
                    return left > 1 ? batch(left - 1, deleted, epoch, watermark) : Future.succeededFuture(new Round(deleted, reached, true));
                });
            });
        }));
    }

    private static Transaction.Op floorOp(Optional<byte[]> current, long floor) {
        return current.isPresent() ? Transaction.Op.update(Revisions.FLOOR_KEY, current.get(), Revisions.floorBytes(floor))
                : Transaction.Op.create(Revisions.FLOOR_KEY, Revisions.floorBytes(floor));
    }
}
