package lake.config;

/**
 * Retention of the change feed: records older than {@code retentionMs} (by commit time) and
 * records more than {@code maxRecords} revisions below the newest are compacted by the leader,
 * which looks every {@code compactIntervalMs}.
 */
public record FeedSettings(long retentionMs, long maxRecords, long compactIntervalMs) {
    /** A day of history, at most a million records (a few hundred MB at typical sizes), looked at every minute. */
    public static final FeedSettings DEFAULTS = new FeedSettings(24L * 3600 * 1000, 1_000_000, 60_000);

    public FeedSettings {
        if (retentionMs <= 0) throw new ConfigException("feed-retention-ms: must be positive, got " + retentionMs);
        if (maxRecords <= 0) throw new ConfigException("feed-max-records: must be positive, got " + maxRecords);
        if (compactIntervalMs <= 0) throw new ConfigException("feed-compact-interval-ms: must be positive, got " + compactIntervalMs);
    }
}
