package lake.metasrv;

import io.vertx.core.Future;
import lake.feed.ChangeRecord;
import lake.feed.Revisions;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.Transaction;

import java.util.List;

/**
 * The leader's deletion of the feed's oldest records, raising the compaction floor in the same
 * fenced transaction. The one write that is not itself recorded (recording the feed's own
 * housekeeping would feed it forever); it may touch nothing but record items and the floor.
 * It is pinned to the epoch whose watermark bounded it: under any other, it is refused.
 */
public record FeedCompaction(Transaction transaction, long leaderEpoch) implements ClientWrite {
    public FeedCompaction {
        if (transaction == null) throw new MetaException.InvalidArgument("transaction must not be null");
        if (transaction.guardKey().isPresent()) throw new MetaException.InvalidArgument("the leader adds the guard");
        for (Transaction.Op op : transaction.ops()) {
            if (!op.key().startsWith(Revisions.PREFIX) && !op.key().equals(Revisions.FLOOR_KEY)) {
                throw new MetaException.InvalidArgument("a compaction touches only the feed, not '" + op.key() + "'");
            }
        }
    }

    @Override public Long epoch() { return leaderEpoch; }

    @Override public void refuseLeaseKey(String leaseKey) { }

    /** None: compaction is not recorded. */
    @Override public List<ChangeRecord.Change> changes() { return List.of(); }

    /** None: unrecorded, it gets no revision, so nothing is ordered behind it. */
    @Override public java.util.Collection<String> writtenKeys() { return List.of(); }

    @Override public int items() { return transaction.ops().size(); }

    @Override
    public Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease, List<Transaction.Op> record, List<Transaction.Op> checks) {
        if (!record.isEmpty() || !checks.isEmpty()) throw new IllegalStateException("a compaction has no record and is ordered after nothing");
        return store.transact(transaction.withGuard(leaseKey, lease)).map(o -> Verdict.of(o, items(), 0, true));
    }
}
