package lake.metasrv;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import lake.feed.ChangeRecord;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.Transaction;

import java.util.List;

/**
 * A client's transaction: operations on distinct keys, without a guard (the fenced writer adds
 * the lease and the change record), optionally naming the epoch the client expects to be written
 * under; a catalog or Iceberg write also names its typed {@code event} (or {@code null}) and its
 * {@code bookkeeping} keys: written, but neither named in the change record nor ordered (the
 * catalog's directory generation, rewritten blindly by every directory change, whose value only
 * says "changed"; ordering on it would put every create in one line). Clients' own transactions
 * have none.
 */
public record ClientTransaction(Transaction transaction, Long epoch, JsonObject event, java.util.Set<String> bookkeeping)
        implements ClientWrite {
    /**
     * Operations a client's transaction may hold: a store transaction's {@value Transaction#MAX_OPERATIONS}
     * less one for the change record (DynamoDB's 100 items: the guard, the record, 98 operations).
     * A record over one value's size takes one more item per {@link lake.feed.RecordItems#PART_BYTES}.
     */
    public static final int MAX_CLIENT_OPERATIONS = Transaction.MAX_OPERATIONS - 1;

    /**
     * What a client's keys and values may add up to: 1.5 MiB. The change record repeats the new
     * values (base64, a third larger), so the store transaction holds about 2.4 times this, which
     * leaves DynamoDB's 4 MiB room for the lease guard and each item's own attributes.
     */
    public static final long MAX_CLIENT_BYTES = 3 * 512 * 1024;

    public ClientTransaction(Transaction transaction, Long epoch) {
        this(transaction, epoch, null, java.util.Set.of());
    }

    public ClientTransaction(Transaction transaction, Long epoch, JsonObject event) {
        this(transaction, epoch, event, java.util.Set.of());
    }

    public ClientTransaction {
        if (transaction == null) throw new MetaException.InvalidArgument("transaction must not be null");
        if (transaction.ops().size() > MAX_CLIENT_OPERATIONS) {
            throw new MetaException.InvalidArgument("the transaction holds " + transaction.ops().size() + " operations; at most "
                    + MAX_CLIENT_OPERATIONS + " (a store transaction's " + Transaction.MAX_OPERATIONS
                    + " less one for the change record)");
        }
        long size = transaction.operationBytes();
        if (size > MAX_CLIENT_BYTES) {
            throw new MetaException.InvalidArgument("the transaction's keys and values hold " + size + " bytes; at most "
                    + MAX_CLIENT_BYTES + " (the change record repeats the new values, and the whole must fit 4 MiB)");
        }
        event = event == null ? null : event.copy();
        bookkeeping = java.util.Set.copyOf(bookkeeping);
        if (transaction.guardKey().isPresent()) {
            throw new MetaException.InvalidArgument("a client transaction carries no guard; the leader adds the lease record");
        }
    }

    @Override
    public void refuseLeaseKey(String leaseKey) {
        List<Transaction.Op> ops = transaction.ops();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).key().equals(leaseKey)) {
                throw new MetaException.InvalidArgument("ops[" + i + "]: key '" + leaseKey
                        + "' is the lease record; clients can neither write nor check it in a transaction");
            }
        }
    }

    @Override
    public JsonObject event() { return event == null ? null : event.copy(); }

    @Override
    public List<ChangeRecord.Change> changes() {
        List<ChangeRecord.Change> changes = new java.util.ArrayList<>();
        for (Transaction.Op op : transaction.ops()) {
            if (bookkeeping.contains(op.key())) continue;
            switch (op.action()) {
                case PUT -> changes.add(new ChangeRecord.Change(op.key(), op.value()));
                case DELETE -> changes.add(new ChangeRecord.Change(op.key(), null));
                case CHECK -> { }
            }
        }
        return changes;
    }

    @Override
    public java.util.Collection<String> writtenKeys() {
        return transaction.ops().stream().filter(op -> op.action() != Transaction.Action.CHECK && !bookkeeping.contains(op.key()))
                .map(Transaction.Op::key).toList();
    }

    @Override
    public java.util.Collection<String> checkedKeys() {
        return transaction.ops().stream().filter(op -> op.action() == Transaction.Action.CHECK && !bookkeeping.contains(op.key()))
                .map(Transaction.Op::key).toList();
    }

    @Override
    public int items() { return transaction.ops().size(); }

    /** One guarded transaction: the client's operations at their indexes, then the record's items. */
    @Override
    public Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease, List<Transaction.Op> record, List<Transaction.Op> checks) {
        Transaction sent = transaction.withGuard(leaseKey, lease);
        if (!record.isEmpty() || !checks.isEmpty()) {
            List<Transaction.Op> ops = new java.util.ArrayList<>(transaction.ops());
            ops.addAll(record);
            ops.addAll(checks);
            sent = Transaction.guarded(leaseKey, lease, ops);
        }
        int own = transaction.ops().size();
        return store.transact(sent).map(o -> Verdict.of(o, own, record.size(), true));
    }
}
