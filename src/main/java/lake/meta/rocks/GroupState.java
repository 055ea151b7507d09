package lake.meta.rocks;

import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.HashMap;

/**
 * The state one group's mutations are checked against: the database overlaid with the writes
 * (and tombstones) of the group's earlier mutations. Because of the overlay, a mutation sees every
 * earlier mutation of its group exactly as it would had that one been committed alone first.
 *
 * <p>Owned by the writer thread only; reset between groups.
 */
final class GroupState implements AutoCloseable {
    /** Marks a key the group has deleted; compared by identity, so a stored empty value is distinct. */
    private static final byte[] TOMBSTONE = new byte[0];

    private final RocksDB db;
    private final HashMap<String, byte[]> pending = new HashMap<>();
    private final WriteBatch batch = new WriteBatch();

    GroupState(RocksDB db) {
        this.db = db;
    }

    /** The key's value as of the group so far, or {@code null} when absent. */
    byte[] read(String key, byte[] keyBytes) throws RocksDBException {
        byte[] p = pending.get(key);
        if (p == TOMBSTONE) return null;
        if (p != null) return p;
        return db.get(keyBytes);
    }

    void put(String key, byte[] keyBytes, byte[] value) throws RocksDBException {
        pending.put(key, value);
        batch.put(keyBytes, value);
    }

    void delete(String key, byte[] keyBytes) throws RocksDBException {
        pending.put(key, TOMBSTONE);
        batch.delete(keyBytes);
    }

    boolean hasWrites() {
        return batch.count() > 0;
    }

    WriteBatch batch() {
        return batch;
    }

    void reset() {
        pending.clear();
        batch.clear();
    }

    @Override
    public void close() {
        batch.close();
    }
}
