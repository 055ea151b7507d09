package lake.metasrv;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import lake.feed.ChangeRecord;
import lake.meta.MetaStore;
import lake.meta.Transaction;

import java.util.List;

/**
 * A client's write before it is fenced: a single-key mutation or a multi-key transaction. The
 * {@link FencedWriter} treats both alike: it adds the exact lease record as the guard and the
 * write's change record, and sends one atomic store call.
 */
public sealed interface ClientWrite permits ClientMutation, ClientTransaction, FeedCompaction, WebhookCursor {

    /** The epoch the client expects to be written under, or {@code null}. */
    Long epoch();

    /** Refuses ({@code InvalidArgument}, naming the operation) a write that touches {@code leaseKey}. */
    void refuseLeaseKey(String leaseKey);

    /** What this write changes if it applies, in operation order: empty for a transaction of checks only (it gets no revision). */
    List<ChangeRecord.Change> changes();

    /**
     * The keys this write writes (puts or deletes, with or without a condition): a write that
     * changes something is sent only after every earlier one it conflicts with has settled
     * (see {@link lake.feed.Sequencer}).
     */
    java.util.Collection<String> writtenKeys();

    /** The keys this write only checks (a transaction's check operations). */
    default java.util.Collection<String> checkedKeys() { return java.util.List.of(); }

    /** The typed event its change record carries (catalog and Iceberg writes), or {@code null}. */
    default JsonObject event() { return null; }

    /** The store items this write sends of its own: the guard and the change record not counted. */
    int items();

    /**
     * Sends this write with its change record's operations {@code record} (empty: no record) and
     * {@code checks} (the earlier revisions' records it must find; empty: none), guarded by the
     * exact lease bytes {@code lease} at {@code leaseKey}, as one atomic store call.
     */
    Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease, List<Transaction.Op> record, List<Transaction.Op> checks);

    /**
     * What the store decided; {@code failed} names a transaction's failed operations (empty
     * otherwise); {@code recordTaken}: a change record item already existed, which only a bug or
     * a foreign writer of the feed's keys can cause.
     */
    record Verdict(boolean applied, List<Integer> failed, boolean recordTaken, boolean predecessorMissing) {
        public Verdict {
            failed = List.copyOf(failed);
            if (applied && (recordTaken || predecessorMissing)) throw new IllegalArgumentException("an applied write found every record as expected");
        }

        Verdict(boolean applied, List<Integer> failed, boolean recordTaken) {
            this(applied, failed, recordTaken, false);
        }

        /**
         * The verdict of a guarded transaction whose first {@code own} operations are the client's,
         * the next {@code recordItems} its record, and the rest checks for earlier records.
         * {@code predecessorMissing} only when neither the guard nor an operation of the client's
         * is named: a write refused on its own condition is answered so, and one refused on its
         * guard is explained by the lease, whatever else failed.
         */
        static Verdict of(lake.meta.TransactionOutcome o, int own, int recordItems, boolean reportFailed) {
            List<Integer> mine = o.failed().stream().filter(i -> i < own).toList();
            // A refused guard explains a taken record too: a later epoch may reuse a revision no record held.
            boolean taken = !o.guardFailed() && o.failed().stream().anyMatch(i -> i >= own && i < own + recordItems);
            boolean missing = !o.guardFailed() && mine.isEmpty() && o.failed().stream().anyMatch(i -> i >= own + recordItems);
            return new Verdict(o.applied(), reportFailed ? mine : List.of(), taken, missing);
        }
    }
}
