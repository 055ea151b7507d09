package lake.meta;

import java.util.Arrays;
import java.util.Objects;

/**
 * One target transition that may apply only while an independent guard key holds an exact
 * expected value. Immutable: every array is copied in and out. Built only through
 * {@link #create}, {@link #update} and {@link #delete}, which enforce the invariants: valid keys
 * and values, a present guard expectation, and a guard key different from the target key.
 */
public final class GuardedMutation {

    public enum Kind { CREATE, UPDATE, DELETE }

    private final Kind kind;
    private final String guardKey;
    private final byte[] guardExpected;
    private final String targetKey;
    private final byte[] targetExpected;
    private final byte[] value;
    /** The same mutation as a one-operation guarded transaction, sharing these private arrays. */
    private final Transaction transaction;

    private GuardedMutation(Kind kind, String guardKey, byte[] guardExpected,
                            String targetKey, byte[] targetExpected, byte[] value) {
        Keys.validateKey("guard key", guardKey);
        int targetKeyLength = Keys.validateKey("target key", targetKey).length;
        Keys.validateValue("guard expected value", guardExpected);
        if (kind != Kind.CREATE) Keys.validateValue("target expected value", targetExpected);
        if (kind != Kind.DELETE) Keys.validateValue("value", value);
        if (guardKey.equals(targetKey)) {
            throw new MetaException.InvalidMutation("guard key and target key are both '" + guardKey
                    + "'; a guard must be independent of its target");
        }
        this.kind = kind;
        this.guardKey = guardKey;
        this.guardExpected = guardExpected.clone();
        this.targetKey = targetKey;
        this.targetExpected = targetExpected == null ? null : targetExpected.clone();
        this.value = value == null ? null : value.clone();
        Transaction.Op op = switch (kind) {
            case CREATE -> Transaction.Op.trusted(targetKey, targetKeyLength, Transaction.Condition.ABSENT, null,
                    Transaction.Action.PUT, this.value);
            case UPDATE -> Transaction.Op.trusted(targetKey, targetKeyLength, Transaction.Condition.VALUE,
                    this.targetExpected, Transaction.Action.PUT, this.value);
            case DELETE -> Transaction.Op.trusted(targetKey, targetKeyLength, Transaction.Condition.VALUE,
                    this.targetExpected, Transaction.Action.DELETE, null);
        };
        this.transaction = Transaction.trustedGuarded(guardKey, this.guardExpected, op);
    }

    /** Creates {@code targetKey} with {@code value}; the target must be absent. */
    public static GuardedMutation create(String guardKey, byte[] guardExpected, String targetKey, byte[] value) {
        return new GuardedMutation(Kind.CREATE, guardKey, guardExpected, targetKey, null, value);
    }

    /** Replaces the target's value; the target must hold exactly {@code targetExpected}. */
    public static GuardedMutation update(String guardKey, byte[] guardExpected, String targetKey,
                                         byte[] targetExpected, byte[] value) {
        return new GuardedMutation(Kind.UPDATE, guardKey, guardExpected, targetKey, targetExpected, value);
    }

    /** Deletes the target; it must hold exactly {@code targetExpected}. */
    public static GuardedMutation delete(String guardKey, byte[] guardExpected, String targetKey,
                                         byte[] targetExpected) {
        return new GuardedMutation(Kind.DELETE, guardKey, guardExpected, targetKey, targetExpected, null);
    }

    public Kind kind() { return kind; }
    public String guardKey() { return guardKey; }
    public byte[] guardExpected() { return guardExpected.clone(); }
    public String targetKey() { return targetKey; }
    /** The target's exact expected value; {@code null} for {@link Kind#CREATE} (must be absent). */
    public byte[] targetExpected() { return targetExpected == null ? null : targetExpected.clone(); }
    /** The value to write; {@code null} for {@link Kind#DELETE}. */
    public byte[] value() { return value == null ? null : value.clone(); }

    /**
     * This mutation as a one-operation guarded transaction (target = operation 0): how every
     * backend runs it. Built once; applied exactly when {@link MetaStore#guardedMutate} is {@code true}.
     */
    public Transaction asTransaction() { return transaction; }

    @Override
    public boolean equals(Object o) {
        return o instanceof GuardedMutation m && kind == m.kind && guardKey.equals(m.guardKey)
                && Arrays.equals(guardExpected, m.guardExpected) && targetKey.equals(m.targetKey)
                && Arrays.equals(targetExpected, m.targetExpected) && Arrays.equals(value, m.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, guardKey, Arrays.hashCode(guardExpected), targetKey,
                Arrays.hashCode(targetExpected), Arrays.hashCode(value));
    }

    @Override
    public String toString() {
        return "GuardedMutation[" + kind + " " + targetKey + " guarded by " + guardKey + "]";
    }
}
