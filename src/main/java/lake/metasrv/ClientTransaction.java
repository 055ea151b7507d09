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
    public ClientTransaction {
        if (transaction == null) throw new MetaException.InvalidArgument("transaction must not be null");
        if (transaction.guardKey().isPresent()) {
            throw new MetaException.InvalidArgument("a client transaction carries no guard; the leader adds the lease record");
        }
    }

    @Override
    public void refuseLeaseKey(String leaseKey) {
        List<Transaction.Op> ops = transaction.ops();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).key().equals(leaseKey)) {
                throw new MetaException.InvalidArgument("operation " + i + ": key '" + leaseKey
                        + "' is the lease record; clients can neither write nor check it in a transaction");
            }
        }
    }

    @Override
    public Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease) {
        return store.transact(transaction.withGuard(leaseKey, lease))
                .map(o -> new Verdict(o.applied(), o.failed(), !o.guardFailed()));
    }
}
