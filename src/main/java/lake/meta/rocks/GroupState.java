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
 * <p>The overlay also remembers what it read from the database, so a guard key shared by a whole
 * group is read once. That is sound because only the writer thread writes, and it is this thread.
 *
 * <p>Owned by the writer thread only; reset between groups.
 */
final class GroupState implements AutoCloseable {
    /** Marks a key known absent (deleted by the group, or read as missing); compared by identity. */
    private static final byte[] TOMBSTONE = new byte[0];

    private final RocksDB db;
    /** Every key this group has read or written, with its value as of the group so far. */
    private final HashMap<String, byte[]> known = new HashMap<>();
    private final WriteBatch batch = new WriteBatch();

    GroupState(RocksDB db) {
        this.db = db;
    }

    /** The key's value as of the group so far, or {@code null} when absent. */
    byte[] read(String key, byte[] keyBytes) throws RocksDBException {
        byte[] v = known.get(key);
        if (v == null) {
            byte[] stored = db.get(keyBytes);
            v = stored == null ? TOMBSTONE : stored;
            known.put(key, v);
        }
        return v == TOMBSTONE ? null : v;
    }

    void put(String key, byte[] keyBytes, byte[] value) throws RocksDBException {
        known.put(key, value);
        batch.put(keyBytes, value);
    }

    void delete(String key, byte[] keyBytes) throws RocksDBException {
        known.put(key, TOMBSTONE);
        batch.delete(keyBytes);
    }

    boolean hasWrites() {
        return batch.count() > 0;
    }

    WriteBatch batch() {
        return batch;
    }

    void reset() {
        known.clear();
        batch.clear();
    }

    @Override
    public void close() {
        batch.close();
    }
}
