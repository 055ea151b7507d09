package lake.meta;

import java.util.List;

/**
 * What {@link MetaStore#transact} decided. Applied: every write is durable. Not applied: nothing was
 * written, and {@code failed} lists, ascending, the indexes of the operations whose conditions did
 * not hold, while {@code guardFailed} says whether the guard did not; at least one of them names a
 * failure. Faults are never an outcome: they fail the future.
 */
public record TransactionOutcome(boolean applied, List<Integer> failed, boolean guardFailed) {
    /** Every condition held and every write is durable. */
    public static final TransactionOutcome APPLIED = new TransactionOutcome(true, List.of(), false);

    public TransactionOutcome {
        if (failed == null) throw new IllegalArgumentException("failed must not be null (empty when none failed)");
        failed = List.copyOf(failed);
        for (int i = 0; i < failed.size(); i++) {
            if (failed.get(i) < 0 || (i > 0 && failed.get(i) <= failed.get(i - 1))) {
                throw new IllegalArgumentException("failed indexes must be ascending and non-negative: " + failed);
            }
        }
        if (applied && (guardFailed || !failed.isEmpty())) {
            throw new IllegalArgumentException("an applied transaction has no failed condition");
        }
        if (!applied && !guardFailed && failed.isEmpty()) {
            throw new IllegalArgumentException("a transaction not applied names the guard or an operation that failed");
        }
    }

    public static TransactionOutcome notApplied(List<Integer> failed, boolean guardFailed) {
        return new TransactionOutcome(false, failed, guardFailed);
    }
}
