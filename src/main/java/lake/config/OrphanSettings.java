package lake.config;

/**
 * Iceberg tables' orphan sweeps (docs/iceberg.md, "Orphan files"): the least safety age a sweep
 * accepts ({@code orphan_min_age_ms}), how often the leader sweeps every table on its own
 * ({@code orphan_sweep_interval_ms}; 0: never), and whether those periodic sweeps delete what they
 * find ({@code orphan_sweep_delete}; by default they only report).
 */
public record OrphanSettings(long minAgeMs, long sweepIntervalMs, boolean sweepDelete) {
    /** 3 days (Iceberg's own default for {@code DeleteOrphanFiles}), no periodic sweep. */
    public static final OrphanSettings DEFAULTS = new OrphanSettings(3L * 24 * 3600 * 1000, 0, false);

    public OrphanSettings {
        if (minAgeMs <= 0) throw new ConfigException("orphan-min-age-ms: must be positive, got " + minAgeMs);
        if (sweepIntervalMs < 0) throw new ConfigException("orphan-sweep-interval-ms: must be 0 (no periodic sweep) or positive, got " + sweepIntervalMs);
        if (sweepDelete && sweepIntervalMs == 0) {
            throw new ConfigException("orphan-sweep-delete: needs orphan-sweep-interval-ms (there is no periodic sweep to delete with)");
        }
    }
}
