package lake.catalog;

import io.vertx.core.Future;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;

import java.util.Optional;

/** What the catalog needs from a node: strongly consistent reads and fenced transactions. */
public interface CatalogPort {
    Future<Optional<byte[]>> get(String key);

    Future<ScanPage> scan(String prefix, String continuation, int limit);

    /**
     * One transaction through the node's fenced write path (the leader adds the lease as guard),
     * its change record carrying the typed {@code event} ({@link lake.catalog.events.CatalogEvents}; {@code null}: a
     * write of the catalog's own bookkeeping). Fails with the node's typed errors (not leader,
     * fenced, ...), which the catalog passes through untouched.
     */
    Future<TransactionOutcome> transact(Transaction transaction, io.vertx.core.json.JsonObject event);

    /** As {@link #transact(Transaction, io.vertx.core.json.JsonObject)}, with no event. */
    default Future<TransactionOutcome> transact(Transaction transaction) {
        return transact(transaction, null);
    }
}
