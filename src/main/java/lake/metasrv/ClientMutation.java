package lake.metasrv;

import io.vertx.core.Future;
import lake.feed.ChangeRecord;
import lake.meta.GuardedMutation;
import lake.meta.Keys;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.Transaction;

import java.util.List;

/**
 * A client's unguarded intent: a CAS (create when {@code expected} is null) or an exact-value
 * delete, optionally naming the epoch the client expects to be written under.
 */
public record ClientMutation(Op op, String key, byte[] expected, byte[] value, Long epoch) implements ClientWrite {
    public enum Op { CAS, DELETE }

    public ClientMutation {
        Keys.validateKey(key);
        if (op == Op.DELETE) {
            Keys.validateValue("expected", expected);
            if (value != null) throw new MetaException.InvalidArgument("a delete carries no value");
        } else {
            Keys.validateExpected("expected", expected);
            Keys.validateValue("value", value);
        }
    }

    public static ClientMutation cas(String key, byte[] expected, byte[] value, Long epoch) {
        return new ClientMutation(Op.CAS, key, expected, value, epoch);
    }

    public static ClientMutation delete(String key, byte[] expected, Long epoch) {
        return new ClientMutation(Op.DELETE, key, expected, null, epoch);
    }

    @Override
    public void refuseLeaseKey(String leaseKey) {
        if (key.equals(leaseKey)) {
            throw new MetaException.InvalidArgument("key '" + leaseKey + "' is the lease record; clients cannot write it");
        }
    }

    @Override
    public List<ChangeRecord.Change> changes() {
        return List.of(new ChangeRecord.Change(key, op == Op.DELETE ? null : value));
    }

    @Override
    public java.util.Collection<String> writtenKeys() { return List.of(key); }

    @Override
    public int items() { return 1; }

    /**
     * One guarded transaction: the mutation, then its record's items. Without a record, one guarded
     * mutation, whose {@code false} does not say whether the guard held.
     */
    @Override
    public Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease, List<Transaction.Op> record, List<Transaction.Op> checks) {
        if (record.isEmpty() && checks.isEmpty()) {
            return store.guardedMutate(guardedBy(leaseKey, lease)).map(applied -> new Verdict(applied, List.of(), false));
        }
        List<Transaction.Op> ops = new java.util.ArrayList<>(1 + record.size() + checks.size());
        ops.add(op == Op.DELETE ? Transaction.Op.delete(key, expected)
                : expected == null ? Transaction.Op.create(key, value) : Transaction.Op.update(key, expected, value));
        ops.addAll(record);
        ops.addAll(checks);
        return store.transact(Transaction.guarded(leaseKey, lease, ops)).map(o -> Verdict.of(o, 1, record.size(), false));
    }

    /** The guarded form of this mutation under the exact lease bytes {@code lease} at {@code leaseKey}. */
    GuardedMutation guardedBy(String leaseKey, byte[] lease) {
        if (op == Op.DELETE) return GuardedMutation.delete(leaseKey, lease, key, expected);
        if (expected == null) return GuardedMutation.create(leaseKey, lease, key, value);
        return GuardedMutation.update(leaseKey, lease, key, expected, value);
    }
}
