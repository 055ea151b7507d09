package lake.config;

import java.util.List;

/**
 * Retention of the change feed: records older than {@code retentionMs} (by commit time) and
 * records more than {@code maxRecords} revisions below the newest are compacted by the leader,
 * which looks every {@code compactIntervalMs}. Every node keeps the newest records in memory for
 * its watchers, at most {@code tailRecords} of them and about {@code tailBytes}; a watcher behind
 * that reads the store, and an SSE watcher that falls behind it while it reads nothing is cut off.
 */
public record FeedSettings(long retentionMs, long maxRecords, long compactIntervalMs, int tailRecords, long tailBytes, List<Webhook> webhooks,
                           WriteOrder writeOrder) {
    /**
     * How a write that conflicts with an earlier one still on its way keeps revision order
     * (docs/watch.md, invariant 2): {@code CHECK} sends it at once with a check, in its own
     * transaction, that the earlier ones' change records exist (refused and sent again if it
     * arrives first: cheap where the store applies transactions in arrival order, RocksDB);
     * {@code WAIT} holds it until they settle (DynamoDB, where concurrent transactions on one
     * item are refused anyway).
     */
    public enum WriteOrder { CHECK, WAIT;
        /** The default for a store: check on RocksDB, wait on DynamoDB. */
        public static WriteOrder forStore(Settings.StoreType store) {
            return store == Settings.StoreType.DYNAMO ? WAIT : CHECK;
        }
    }

    public static final int DEFAULT_TAIL_RECORDS = 65_536;
    public static final int MAX_TAIL_RECORDS = 16 * 1024 * 1024;
    public static final long DEFAULT_TAIL_BYTES = 64L * 1024 * 1024;
    /** A day of history, at most a million records (a few hundred MB at typical sizes), looked at every minute; a 64 MiB tail. */
    public static final FeedSettings DEFAULTS = new FeedSettings(24L * 3600 * 1000, 1_000_000, 60_000);

    /** Retention as given, the default tail, no webhook. */
    public FeedSettings(long retentionMs, long maxRecords, long compactIntervalMs) {
        this(retentionMs, maxRecords, compactIntervalMs, DEFAULT_TAIL_RECORDS, DEFAULT_TAIL_BYTES);
    }

    /** As given, no webhook. */
    public FeedSettings(long retentionMs, long maxRecords, long compactIntervalMs, int tailRecords, long tailBytes) {
        this(retentionMs, maxRecords, compactIntervalMs, tailRecords, tailBytes, List.of(), WriteOrder.CHECK);
    }

    /** These settings with {@code hooks} as the webhooks. */
    public FeedSettings withWebhooks(List<Webhook> hooks) {
        return new FeedSettings(retentionMs, maxRecords, compactIntervalMs, tailRecords, tailBytes, hooks, writeOrder);
    }

    /** These settings with {@code order} as the write order. */
    public FeedSettings withWriteOrder(WriteOrder order) {
        return new FeedSettings(retentionMs, maxRecords, compactIntervalMs, tailRecords, tailBytes, webhooks, order);
    }

    public FeedSettings {
        webhooks = webhooks == null ? List.of() : List.copyOf(webhooks);
        if (writeOrder == null) throw new ConfigException("feed-write-order: must be check or wait");
        if (tailRecords > MAX_TAIL_RECORDS) throw new ConfigException("feed-tail-records: at most " + MAX_TAIL_RECORDS + ", got " + tailRecords);
        if (tailRecords <= 0) throw new ConfigException("feed-tail-records: must be positive, got " + tailRecords);
        if (tailBytes <= 0) throw new ConfigException("feed-tail-bytes: must be positive, got " + tailBytes);
        if (retentionMs <= 0) throw new ConfigException("feed-retention-ms: must be positive, got " + retentionMs);
        if (maxRecords <= 0) throw new ConfigException("feed-max-records: must be positive, got " + maxRecords);
        if (compactIntervalMs <= 0) throw new ConfigException("feed-compact-interval-ms: must be positive, got " + compactIntervalMs);
    }
}
