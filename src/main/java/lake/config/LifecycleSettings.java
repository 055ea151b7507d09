package lake.config;

/**
 * The life of dropped tables (docs/operations.md, "Dropped tables and purges"): a dropped table is
 * kept, undroppable, for {@code tableRetentionMs} (a namespace's {@value #RETENTION_PROPERTY}
 * property overrides it for its tables), then queued for purge; the leader's purge worker looks
 * for work every {@code purgeIntervalMs} and deletes at most {@code purgeBatchFiles} files per
 * fenced batch.
 */
public record LifecycleSettings(long tableRetentionMs, long purgeIntervalMs, int purgeBatchFiles) {
    /** The namespace property that overrides {@code table_retention_ms} for the tables dropped from it. */
    public static final String RETENTION_PROPERTY = "lake.dropped-table-retention-ms"; // lake.catalog.model.CatalogNames reads it
    public static final LifecycleSettings DEFAULTS = new LifecycleSettings(7L * 24 * 3_600_000, 10_000, 1_000);
    /** S3 {@code DeleteObjects} takes at most this many keys; a batch is one call. */
    public static final int MAX_BATCH_FILES = 1_000;

    public LifecycleSettings {
        if (tableRetentionMs < 0) throw new ConfigException("table-retention-ms: must not be negative, got " + tableRetentionMs);
        if (purgeIntervalMs <= 0) throw new ConfigException("purge-interval-ms: must be positive, got " + purgeIntervalMs);
        if (purgeBatchFiles < 1 || purgeBatchFiles > MAX_BATCH_FILES) {
            throw new ConfigException("purge-batch-files: must be 1 to " + MAX_BATCH_FILES + ", got " + purgeBatchFiles);
        }
    }
}
