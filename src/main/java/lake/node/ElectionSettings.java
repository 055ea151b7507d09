package lake.node;

import lake.bus.BusMetaStore;

/**
 * How one node runs its election.
 *
 * @param renewMs        interval between campaign rounds; 0 turns the timer off (rounds then run
 *                       only on request, which tests use to freeze a node's election)
 * @param storeReach     where the store verticle this node calls lives
 * @param safetyMarginMs subtracted from the TTL to get the local authority deadline, covering
 *                       clock-rate drift between nodes and the latency of a write in flight
 */
public record ElectionSettings(String nodeId, String leaseKey, long ttlMs, long renewMs,
                               long safetyMarginMs, String storeAddress, long storeTimeoutMs, String storeSecret,
                               StoreReach storeReach) {
    /** Where a node's store verticle is, which decides how requests travel to it. */
    public enum StoreReach {
        /** Registered in this process only (a single node, or a DynamoDB node's own): by reference, never over the cluster. */
        PROCESS_ONLY,
        /** A RocksDB store host's own store, offered to the cluster: JSON, but delivered in-process. */
        HOSTED_HERE,
        /** Another node's store: JSON over the cluster, the calls of one event-loop turn sharing a round trip. */
        REMOTE
    }

    public ElectionSettings {
        if (ttlMs <= 0) throw new IllegalArgumentException("lease TTL must be positive, got " + ttlMs);
        if (renewMs < 0 || renewMs >= ttlMs) {
            throw new IllegalArgumentException("lease renewal interval must be shorter than the TTL (" + ttlMs + " ms), got " + renewMs);
        }
        if (safetyMarginMs < 0 || safetyMarginMs >= ttlMs) {
            throw new IllegalArgumentException("lease safety margin must be in [0, TTL), got " + safetyMarginMs);
        }
    }

    /**
     * The store as this node reaches it: over the bus, presenting the cluster secret if there is
     * one, passing mutations by reference when the store verticle is in this process only, and
     * batching calls that cross the cluster.
     */
    public BusMetaStore store(io.vertx.core.Vertx vertx, java.util.function.LongSupplier epoch) {
        return new BusMetaStore(vertx, storeAddress, epoch, storeTimeoutMs, storeSecret, storeReach);
    }

    /** The authority a winning campaign buys, measured from the moment it started. */
    public long authorityNanos() {
        return (ttlMs - safetyMarginMs) * 1_000_000L;
    }
}
