package lake.meta.rocks;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.Arrays;

/**
 * One validated mutation waiting for the writer: an optional guard check, a target check and a
 * target write. CAS, delete and the three guarded transitions are all this shape, so the writer
 * has one code path for every mutation.
 *
 * <p>Invariants: keys have passed {@link lake.meta.Keys}; every array is a private copy;
 * {@code targetExpected == null} means "the target must be absent"; {@code value == null} means
 * "delete the target"; {@code guardKey == null} means "no guard".
 */
final class ConditionalWrite {
    final String guardKey;
    final byte[] guardKeyBytes;
    final byte[] guardExpected;
    final String targetKey;
    final byte[] targetKeyBytes;
    final byte[] targetExpected;
    final byte[] value;

    private final Context context;
    private final Promise<Boolean> promise = Promise.promise();

    ConditionalWrite(String guardKey, byte[] guardKeyBytes, byte[] guardExpected,
                     String targetKey, byte[] targetKeyBytes, byte[] targetExpected, byte[] value,
                     Context context) {
        this.guardKey = guardKey;
        this.guardKeyBytes = guardKeyBytes;
        this.guardExpected = guardExpected;
        this.targetKey = targetKey;
        this.targetKeyBytes = targetKeyBytes;
        this.targetExpected = targetExpected;
        this.value = value;
        this.context = context;
    }

    /** True when the guard (if any) and the target hold exactly their expected bytes in {@code state}. */
    boolean holdsIn(GroupState state) throws org.rocksdb.RocksDBException {
        if (guardKey != null && !Arrays.equals(state.read(guardKey, guardKeyBytes), guardExpected)) return false;
        byte[] current = state.read(targetKey, targetKeyBytes);
        return targetExpected == null ? current == null : Arrays.equals(current, targetExpected);
    }

    /** Records this mutation's write in the group's overlay and WriteBatch. */
    void applyTo(GroupState state) throws org.rocksdb.RocksDBException {
        if (value == null) state.delete(targetKey, targetKeyBytes);
        else state.put(targetKey, targetKeyBytes, value);
    }

    Context context() { return context; }
    Promise<Boolean> promise() { return promise; }
    Future<Boolean> future() { return promise.future(); }
}
