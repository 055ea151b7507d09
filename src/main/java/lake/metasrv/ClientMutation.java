package lake.metasrv;

import lake.meta.GuardedMutation;
import lake.meta.Keys;
import lake.meta.MetaException;

/**
 * A client's unguarded intent: a CAS (create when {@code expected} is null) or an exact-value
 * delete, optionally naming the epoch the client expects to be written under.
 */
public record ClientMutation(Op op, String key, byte[] expected, byte[] value, Long epoch) {
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

    /** The guarded form of this mutation under the exact lease bytes {@code lease} at {@code leaseKey}. */
    GuardedMutation guardedBy(String leaseKey, byte[] lease) {
        if (op == Op.DELETE) return GuardedMutation.delete(leaseKey, lease, key, expected);
        if (expected == null) return GuardedMutation.create(leaseKey, lease, key, value);
        return GuardedMutation.update(leaseKey, lease, key, expected, value);
    }
}
