package lake.node;

import io.vertx.core.Future;
import lake.meta.GuardedMutation;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test decorator over a real store: while a fault is set, every call fails with it instead; after
 * {@link #failNext}, only the next {@code n} calls do.
 */
public final class FaultyStore implements MetaStore {
    private final MetaStore real;
    public final AtomicReference<MetaException> fault = new AtomicReference<>();
    public final java.util.concurrent.atomic.AtomicInteger injected = new java.util.concurrent.atomic.AtomicInteger();

    private final java.util.concurrent.atomic.AtomicInteger failing = new java.util.concurrent.atomic.AtomicInteger();

    public FaultyStore(MetaStore real) {
        this.real = real;
    }

    /** The next {@code n} calls fail with {@code f}; later ones reach the store again. */
    public void failNext(MetaException f, int n) {
        fault.set(f);
        failing.set(n);
    }

    /** Calls that failed with an injected fault so far. */
    public int injected() {
        return injected.get();
    }

    private <T> Future<T> or(java.util.function.Supplier<Future<T>> call) {
        MetaException f = fault.get();
        if (f == null) return call.get();
        if (failing.get() > 0 && failing.decrementAndGet() == 0) fault.compareAndSet(f, null);
        injected.incrementAndGet();
        return Future.failedFuture(f);
    }

    @Override public Future<Optional<byte[]>> get(String key) { return or(() -> real.get(key)); }
    @Override public Future<Boolean> cas(String k, byte[] e, byte[] v) { return or(() -> real.cas(k, e, v)); }
    @Override public Future<Boolean> delete(String k, byte[] e) { return or(() -> real.delete(k, e)); }
    /** While set, a guarded mutation is applied but never answered (a reply lost after the write). */
    public final java.util.concurrent.atomic.AtomicBoolean answerNothing = new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    public Future<Boolean> guardedMutate(GuardedMutation m) {
        if (answerNothing.get()) return real.guardedMutate(m).compose(applied -> io.vertx.core.Promise.<Boolean>promise().future());
        return or(() -> real.guardedMutate(m));
    }
    /** Which transactions {@link #loseAnswers} counts (all by default). */
    public volatile java.util.function.Predicate<Transaction> loseOnly = t -> true;

    /** Transactions still to apply whose answers are then lost ({@link MetaException.OutcomeUnknown}). */
    public final java.util.concurrent.atomic.AtomicInteger loseAnswers = new java.util.concurrent.atomic.AtomicInteger();

    /** What happens to the next transactions, one each, before {@link #loseAnswers} and injected faults. */
    public enum TransactFault {
        /** Fails {@link MetaException.OutcomeUnknown} without reaching the store. */
        NOT_SENT,
        /** Applies, then fails {@link MetaException.OutcomeUnknown}. */
        ANSWER_LOST
    }

    public final java.util.Queue<TransactFault> transactFaults = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Runs before each transaction reaches the store (or its fault), which waits for it. */
    public volatile java.util.function.Function<Transaction, Future<Void>> beforeTransact = t -> Future.succeededFuture();

    @Override
    public Future<TransactionOutcome> transact(Transaction t) {
        return beforeTransact.apply(t).compose(v -> transactNow(t));
    }

    private Future<TransactionOutcome> transactNow(Transaction t) {
        if (answerNothing.get()) return real.transact(t).compose(o -> io.vertx.core.Promise.<TransactionOutcome>promise().future());
        TransactFault f = transactFaults.poll();
        if (f == TransactFault.NOT_SENT) {
            injected.incrementAndGet();
            return Future.failedFuture(new MetaException.OutcomeUnknown("the connection broke before the request was sent (test)", null));
        }
        if (f == TransactFault.ANSWER_LOST || (loseOnly.test(t) && loseAnswers.getAndUpdate(n -> Math.max(0, n - 1)) > 0)) {
            injected.incrementAndGet();
            return real.transact(t).transform(done -> Future.failedFuture(
                    new MetaException.OutcomeUnknown("the answer was lost after the transaction reached the store (test)", null)));
        }
        return or(() -> real.transact(t));
    }
    @Override public Future<ScanPage> scanPrefix(String p, String c, int l) { return or(() -> real.scanPrefix(p, c, l)); }
    @Override public Future<java.util.Optional<String>> lastKey(String p) { return or(() -> real.lastKey(p)); }
    @Override public Future<Void> close() { return real.close(); }
}
