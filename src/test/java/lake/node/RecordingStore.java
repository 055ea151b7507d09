package lake.node;

import io.vertx.core.Future;
import lake.meta.GuardedMutation;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test decorator: passes every call to a real store, counts them all ({@link #calls()}) and records
 * the guarded mutations and transactions it saw.
 */
public final class RecordingStore implements MetaStore {
    private final MetaStore real;
    private final AtomicInteger calls = new AtomicInteger();
    public final List<GuardedMutation> guarded = new CopyOnWriteArrayList<>();
    public final List<Transaction> transactions = new CopyOnWriteArrayList<>();
    /** Transactions refused because their guard did not hold. */
    public final List<Transaction> refusedGuarded = new CopyOnWriteArrayList<>();
    /** Guarded mutations the store answered {@code false}. */
    public final AtomicInteger refused = new AtomicInteger();
    /** Transactions the store answered with their guard failed. */
    public final AtomicInteger refusedTransactions = new AtomicInteger();

    /** Writes guarded by a lease that reached the store: guarded mutations and guarded transactions. */
    public int guardedWrites() {
        return guarded.size() + (int) transactions.stream().filter(t -> t.guardKey().isPresent()).count();
    }

    public RecordingStore(MetaStore real) {
        this.real = real;
    }

    /** Every call of any kind (close included) that reached the real store. */
    public int calls() {
        return calls.get();
    }

    /** The key of every get, in order. */
    public final List<String> gets = new CopyOnWriteArrayList<>();

    @Override public Future<Optional<byte[]>> get(String key) { calls.incrementAndGet(); gets.add(key); return real.get(key); }
    /** Unguarded CAS and delete calls: no client or catalog write may ever be one. */
    public final AtomicInteger plainWrites = new AtomicInteger();

    @Override public Future<Boolean> cas(String key, byte[] expected, byte[] value) { calls.incrementAndGet(); plainWrites.incrementAndGet(); return real.cas(key, expected, value); }
    @Override public Future<Boolean> delete(String key, byte[] expected) { calls.incrementAndGet(); plainWrites.incrementAndGet(); return real.delete(key, expected); }
    @Override public Future<ScanPage> scanPrefix(String prefix, String c, int limit) { calls.incrementAndGet(); return real.scanPrefix(prefix, c, limit); }
    @Override public Future<java.util.Optional<String>> lastKey(String prefix) { calls.incrementAndGet(); return real.lastKey(prefix); }
    @Override public Future<Void> close() { calls.incrementAndGet(); return real.close(); }

    @Override
    public Future<Boolean> guardedMutate(GuardedMutation mutation) {
        calls.incrementAndGet();
        if (mutation != null) guarded.add(mutation);
        return real.guardedMutate(mutation).onSuccess(applied -> {
            if (!applied) refused.incrementAndGet();
        });
    }

    @Override
    public Future<TransactionOutcome> transact(Transaction transaction) {
        calls.incrementAndGet();
        if (transaction != null) transactions.add(transaction);
        return real.transact(transaction).onSuccess(o -> {
            if (o.guardFailed()) {
                refusedTransactions.incrementAndGet();
                refusedGuarded.add(transaction);
            }
        });
    }
}
