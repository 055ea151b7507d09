package lake.metasrv;

import io.vertx.core.Future;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.Transaction;

import java.util.List;

/**
 * A client's transaction: operations on distinct keys, without a guard (the fenced writer adds
 * the lease), optionally naming the epoch the client expects to be written under.
 */
public record ClientTransaction(Transaction transaction, Long epoch) implements ClientWrite {
    /**
     * What a client's keys and values may add up to: DynamoDB's 4 MiB less room for what the
     * store adds, the lease guard (a key of at most 1,024 bytes and its record) and each item's
     * own attributes (about 45 bytes for each of up to 100 items).
     */
    public static final long MAX_CLIENT_BYTES = Transaction.MAX_TOTAL_BYTES - 16 * 1024;

    public ClientTransaction {
        if (transaction == null) throw new MetaException.InvalidArgument("transaction must not be null");
        long size = transaction.operationBytes();
        if (size > MAX_CLIENT_BYTES) {
            throw new MetaException.InvalidArgument("the transaction's keys and values hold " + size + " bytes; at most "
                    + MAX_CLIENT_BYTES + " (4 MiB less 16 KiB kept for the lease guard and the store's own attributes)");
        }
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
    public Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease) {
        return store.transact(transaction.withGuard(leaseKey, lease))
                .map(o -> new Verdict(o.applied(), o.failed()));
    }
}
