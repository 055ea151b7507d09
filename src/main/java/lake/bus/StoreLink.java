package lake.bus;

import io.vertx.core.Vertx;

import java.util.function.LongSupplier;

/**
 * How one node reaches its store verticle: its address, the timeout of each call, the cluster
 * secret presented on every request ({@code null} without one), and where the verticle lives.
 */
public record StoreLink(String address, long timeoutMs, String secret, Reach reach) {
    /** Where a node's store verticle is, which decides how requests travel to it. */
    public enum Reach {
        /** Registered in this process only (a single node, or a DynamoDB node's own): by reference, never over the cluster. */
        PROCESS_ONLY,
        /** A RocksDB store host's own store, offered to the cluster: JSON, but delivered in-process. */
        HOSTED_HERE,
        /** Another node's store: JSON over the cluster, the calls of one event-loop turn sharing a round trip. */
        REMOTE
    }

    /**
     * The store as this node reaches it: over the bus, presenting the cluster secret if there is
     * one, passing mutations by reference when the store verticle is in this process only, and
     * batching calls that cross the cluster.
     */
    public BusMetaStore open(Vertx vertx, LongSupplier epoch) {
        return new BusMetaStore(vertx, address, epoch, timeoutMs, secret, reach);
    }
}
