package lake.config;

/**
 * The life of dropped tables and of files no table references (docs/operations.md, "Dropped
 * tables, purges and orphan files"): a dropped table is kept, undroppable, for
 * {@code tableRetentionMs} (a namespace's {@value #RETENTION_PROPERTY} property overrides it for
 * its tables), then queued for purge; the leader's purge worker looks for work every
 * {@code purgeIntervalMs} and deletes at most {@code purgeBatchFiles} files per fenced batch.
 * {@code orphans}: Iceberg tables' orphan sweeps (docs/iceberg.md, "Orphan files").
 */
public record LifecycleSettings(long tableRetentionMs, long purgeIntervalMs, int purgeBatchFiles, Orphans orphans) {
    /** The namespace property that overrides {@code table_retention_ms} for the tables dropped from it. */
    public static final String RETENTION_PROPERTY = "lake.dropped-table-retention-ms"; // lake.catalog.model.CatalogNames reads it
    public static final LifecycleSettings DEFAULTS = new LifecycleSettings(7L * 24 * 3_600_000, 10_000, 1_000);
    /** S3 {@code DeleteObjects} takes at most this many keys; a batch is one call. */
    public static final int MAX_BATCH_FILES = 1_000;

    /**
     * Orphan sweeps: the least safety age a sweep accepts ({@code orphan_min_age_ms}), how often the
     * leader sweeps every table on its own ({@code orphan_sweep_interval_ms}; 0: never), and whether
     * those periodic sweeps delete what they find ({@code orphan_sweep_delete}; by default they only report).
     */
    public record Orphans(long minAgeMs, long sweepIntervalMs, boolean sweepDelete) {
        /** 3 days (Iceberg's own default for {@code DeleteOrphanFiles}), no periodic sweep. */
        public static final Orphans DEFAULTS = new Orphans(3L * 24 * 3600 * 1000, 0, false);

        public Orphans {
            if (minAgeMs <= 0) throw new ConfigException("orphan-min-age-ms: must be positive, got " + minAgeMs);
            if (sweepIntervalMs < 0) throw new ConfigException("orphan-sweep-interval-ms: must be 0 (no periodic sweep) or positive, got " + sweepIntervalMs);
            if (sweepDelete && sweepIntervalMs == 0) {
                throw new ConfigException("orphan-sweep-delete: needs orphan-sweep-interval-ms (there is no periodic sweep to delete with)");
            }
        }
    }

    /** With the default orphan sweeps. */
    public LifecycleSettings(long tableRetentionMs, long purgeIntervalMs, int purgeBatchFiles) {
        this(tableRetentionMs, purgeIntervalMs, purgeBatchFiles, Orphans.DEFAULTS);
    }

    public LifecycleSettings {
        if (tableRetentionMs < 0) throw new ConfigException("table-retention-ms: must not be negative, got " + tableRetentionMs);
        if (purgeIntervalMs <= 0) throw new ConfigException("purge-interval-ms: must be positive, got " + purgeIntervalMs);
        if (purgeBatchFiles < 1 || purgeBatchFiles > MAX_BATCH_FILES) {
            throw new ConfigException("purge-batch-files: must be 1 to " + MAX_BATCH_FILES + ", got " + purgeBatchFiles);
        }
        if (orphans == null) orphans = Orphans.DEFAULTS;
    }

    public LifecycleSettings withOrphans(Orphans o) {
        return new LifecycleSettings(tableRetentionMs, purgeIntervalMs, purgeBatchFiles, o);
    }
}
