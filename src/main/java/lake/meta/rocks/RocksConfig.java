package lake.meta.rocks;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How a {@link RocksMetaStore} is opened.
 *
 * @param path         the data directory; created when missing, locked for the store's lifetime
 * @param groupCommit  when on, mutations that queue up while the writer is busy share one fsynced
 *                     WriteBatch; when off, every mutation pays its own fsync (kept for comparison)
 * @param maxBatchSize the most mutations one group may hold; bounds the latency of the first
 *                     mutation in a group and the size of one WriteBatch
 */
public record RocksConfig(Path path, boolean groupCommit, int maxBatchSize) {

    /** The data directory used when none is configured. */
    public static final Path DEFAULT_PATH = Path.of("data");
    public static final int DEFAULT_MAX_BATCH_SIZE = 256;

    public RocksConfig {
        Objects.requireNonNull(path, "path");
        if (maxBatchSize < 1) throw new IllegalArgumentException("maxBatchSize must be at least 1, got " + maxBatchSize);
    }

    /** Group commit on, batches of at most {@value #DEFAULT_MAX_BATCH_SIZE}, data under {@code path}. */
    public static RocksConfig defaults(Path path) {
        return new RocksConfig(path, true, DEFAULT_MAX_BATCH_SIZE);
    }

    /** {@link #defaults(Path)} under {@link #DEFAULT_PATH}. */
    public static RocksConfig defaults() {
        return defaults(DEFAULT_PATH);
    }

    public RocksConfig withGroupCommit(boolean on) {
        return new RocksConfig(path, on, maxBatchSize);
    }

    public RocksConfig withMaxBatchSize(int size) {
        return new RocksConfig(path, groupCommit, size);
    }
}
