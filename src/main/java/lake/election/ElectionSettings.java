package lake.election;

/**
 * How one node runs its election.
 *
 * @param renewMs        interval between campaign rounds; 0 turns the timer off (rounds then run
 *                       only on request, which tests use to freeze a node's election)
 * @param safetyMarginMs subtracted from the TTL to get the local authority deadline, covering
 *                       clock-rate drift between nodes and the latency of a write in flight
 */
public record ElectionSettings(String nodeId, String leaseKey, long ttlMs, long renewMs, long safetyMarginMs) {
    public ElectionSettings {
        if (ttlMs <= 0) throw new IllegalArgumentException("lease TTL must be positive, got " + ttlMs);
        if (renewMs < 0 || renewMs >= ttlMs) {
            throw new IllegalArgumentException("lease renewal interval must be shorter than the TTL (" + ttlMs + " ms), got " + renewMs);
        }
        if (safetyMarginMs < 0 || safetyMarginMs >= ttlMs) {
            throw new IllegalArgumentException("lease safety margin must be in [0, TTL), got " + safetyMarginMs);
        }
    }

    /** The authority a winning campaign buys, measured from the moment it started. */
    public long authorityNanos() {
        return (ttlMs - safetyMarginMs) * 1_000_000L;
    }
}
