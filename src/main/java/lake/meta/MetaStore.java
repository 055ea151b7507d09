package lake.meta;

import io.vertx.core.Future;

import java.util.Optional;

/**
 * The key-value contract every Metasrv component programs against, and the only one.
 *
 * <p>Invariants every implementation keeps:
 * <ul>
 *   <li>Keys are validated by {@link Keys} before the store is touched; bad input fails with
 *       {@link MetaException.InvalidArgument} and writes nothing.</li>
 *   <li>An absent key and a key holding an empty value are different states.</li>
 *   <li>"Expected" values match byte for byte; there is no partial or normalised comparison.</li>
 *   <li>A condition that does not hold completes the future with {@code false}. Only faults fail
 *       it, with a {@link MetaException}; a backend failure is never reported as {@code false}.</li>
 *   <li>A future that completes {@code true} means the write is durable.</li>
 * </ul>
 */
public interface MetaStore {

    /** The current value of {@code key}, or empty when the key is absent. */
    Future<Optional<byte[]>> get(String key);

    /**
     * Writes {@code value} at {@code key} only if the current value equals {@code expected}
     * exactly; {@code expected == null} means the key must be absent.
     */
    Future<Boolean> cas(String key, byte[] expected, byte[] value);

    /** Deletes {@code key} only if its current value equals {@code expected} exactly. */
    Future<Boolean> delete(String key, byte[] expected);

    /**
     * Applies one target transition only while an independent guard key holds its exact expected
     * value. The guard check, the target check and the write are one atomic step: a guard or
     * target mismatch completes {@code false} with nothing written.
     *
     * <p>A read followed by a {@code cas} is not an implementation of this contract: a backend
     * without a native atomic transaction must keep this default and refuse.
     */
    default Future<Boolean> guardedMutate(GuardedMutation mutation) {
        return Future.failedFuture(new MetaException.Unsupported(
                getClass().getSimpleName() + " has no atomic guarded mutation"));
    }

    /**
     * Applies every operation of {@code transaction} in one atomic, durable step, or none of them.
     * It applies only when the guard (if any) holds its exact expected bytes and every operation's
     * condition holds; otherwise it completes "not applied" with every failed operation index and
     * whether the guard failed, and nothing is written. A fault fails the future with a
     * {@link MetaException}; it is never reported as "not applied".
     *
     * <p>As for {@link #guardedMutate}: reads followed by writes are not an implementation; a
     * backend without a native atomic transaction keeps this default and refuses.
     */
    default Future<TransactionOutcome> transact(Transaction transaction) {
        return Future.failedFuture(new MetaException.Unsupported(
                getClass().getSimpleName() + " has no atomic transaction"));
    }

    /**
     * One page of at most {@code limit} entries whose keys start with {@code prefix}, in
     * ascending UTF-8 byte order, beginning strictly after the position named by
     * {@code continuation} ({@code null} for the first page). The page's continuation is
     * {@code null} when no entry under the prefix remains; a continuation is only valid for the
     * prefix that produced it.
     */
    Future<ScanPage> scanPrefix(String prefix, String continuation, int limit);

    /**
     * The greatest key (in UTF-8 byte order) that starts with {@code prefix}, or empty when none
     * does: where an append-only range (keys that sort in the order they were written) ends. A
     * strongly consistent read, like {@link #get}.
     */
    Future<Optional<String>> lastKey(String prefix);

    /** Releases every resource; later calls fail. Idempotent. */
    Future<Void> close();
}
