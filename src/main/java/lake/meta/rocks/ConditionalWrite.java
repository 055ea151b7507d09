package lake.meta.rocks;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import lake.meta.Transaction.Action;
import lake.meta.Transaction.Condition;
import lake.meta.TransactionOutcome;
import org.rocksdb.RocksDBException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * One validated unit of work for the writer: an optional guard check plus one or more operations
 * (a condition on a key, then put, delete or nothing). CAS, delete, guarded mutations and
 * transactions are all this shape, so the writer has one code path for every mutation.
 *
 * <p>Invariants: keys have passed {@link lake.meta.Keys}, are distinct, and differ from the guard
 * key (so checking every condition before any write equals checking each just before its own);
 * every array is a private copy; {@code guardKey == null} means "no guard".
 */
final class ConditionalWrite<T> {
    /** One operation of the unit. */
    record Step(String key, byte[] keyBytes, Condition condition, byte[] expected, Action action, byte[] value) {
        boolean holdsIn(GroupState state) throws RocksDBException {
            if (condition == Condition.NONE) return true;
            byte[] current = state.read(key, keyBytes);
            return switch (condition) {
                case ABSENT -> current == null;
                case EXISTS -> current != null;
                case VALUE -> Arrays.equals(current, expected);
                case NONE -> true;
            };
        }

        void applyTo(GroupState state) throws RocksDBException {
            switch (action) {
                case PUT -> state.put(key, keyBytes, value);
                case DELETE -> state.delete(key, keyBytes);
                case CHECK -> { }
            }
        }
    }

    private final String guardKey;
    private final byte[] guardKeyBytes;
    private final byte[] guardExpected;
    private final Step[] steps;
    private final Context context;
    /** What the caller's future answers: the outcome itself, or its {@code applied} flag. */
    private final Function<TransactionOutcome, T> result;
    private final Promise<T> promise = Promise.promise();

    ConditionalWrite(String guardKey, byte[] guardKeyBytes, byte[] guardExpected, Step[] steps, Context context,
                     Function<TransactionOutcome, T> result) {
        this.guardKey = guardKey;
        this.guardKeyBytes = guardKeyBytes;
        this.guardExpected = guardExpected;
        this.steps = steps;
        this.context = context;
        this.result = result;
    }

    /**
     * Checks the guard and every operation against {@code state} (none short-circuits, so every
     * failure is named) and, only when all hold, records every write in the group's overlay and
     * WriteBatch. Allocates nothing when all hold.
     */
    TransactionOutcome applyIfHolds(GroupState state) throws RocksDBException {
        boolean guardFailed = guardKey != null && !Arrays.equals(state.read(guardKey, guardKeyBytes), guardExpected);
        List<Integer> failed = null;
        for (int i = 0; i < steps.length; i++) {
            if (!steps[i].holdsIn(state)) {
                if (failed == null) failed = new ArrayList<>(4);
                failed.add(i);
            }
        }
        if (guardFailed || failed != null) return TransactionOutcome.notApplied(failed == null ? List.of() : failed, guardFailed);
        for (Step step : steps) step.applyTo(state);
        return TransactionOutcome.APPLIED;
    }

    /** Completes the caller's future with {@code outcome}; call on the caller's context. */
    void complete(TransactionOutcome outcome) { promise.tryComplete(result.apply(outcome)); }

    Context context() { return context; }
    Promise<T> promise() { return promise; }
    Future<T> future() { return promise.future(); }
}
