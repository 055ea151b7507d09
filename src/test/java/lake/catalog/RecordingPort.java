package lake.catalog;

import io.vertx.core.Future;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The catalog's port over a real {@link MetaStore}, as a node would give it: reads pass through,
 * every transaction gets a fixed lease-like guard (as the leader's fenced write path adds its
 * lease). It records every transaction the catalog sent and counts every call, reads included, so
 * tests can show what reached the store and that invalid input reached nothing. The port has no
 * write other than {@link #transact}, so "no plain CAS or delete" holds by construction.
 */
final class RecordingPort implements CatalogPort {
    private final MetaStore store;
    private final String guardKey;
    private final byte[] guardValue;
    private final List<Transaction> transactions = new CopyOnWriteArrayList<>();
    private final AtomicInteger reads = new AtomicInteger();
    /** The typed events of the transactions sent with one, in order. */
    final List<io.vertx.core.json.JsonObject> events = new CopyOnWriteArrayList<>();

    RecordingPort(MetaStore store, String guardKey, byte[] guardValue) {
        this.store = store;
        this.guardKey = guardKey;
        this.guardValue = guardValue.clone();
    }

    @Override
    public Future<Optional<byte[]>> get(String key) {
        reads.incrementAndGet();
        return store.get(key);
    }

    @Override
    public Future<ScanPage> scan(String prefix, String continuation, int limit) {
        reads.incrementAndGet();
        return store.scanPrefix(prefix, continuation, limit);
    }

    @Override
    public Future<TransactionOutcome> transact(Transaction transaction, io.vertx.core.json.JsonObject event) {
        if (event != null) events.add(event.copy());
        Transaction guarded = transaction.withGuard(guardKey, guardValue);
        transactions.add(guarded);
        return store.transact(guarded);
    }

    /** Every transaction sent so far, as the store received it (guarded). */
    List<Transaction> transactions() { return List.copyOf(transactions); }

    Transaction lastTransaction() { return transactions.get(transactions.size() - 1); }

    /** Every call so far: reads and transactions. */
    int calls() { return reads.get() + transactions.size(); }
}
