package lake.config;

import java.util.List;

/**
 * How a node joins a Metasrv cluster over Hazelcast (TCP-IP join on the listed members, never
 * multicast).
 *
 * @param enabled   cluster mode on; off means a single node on a local event bus
 * @param members   {@code host:port} of the Hazelcast members to join (may include this node)
 * @param storeRole for RocksDB: {@code HOST} serves the store to the cluster, {@code REMOTE}
 *                  reaches the host's store over the clustered event bus. DynamoDB nodes each run
 *                  their own store verticle against the shared table and ignore it.
 */
public record ClusterSettings(boolean enabled, String name, String host, int port, List<String> members,
                              StoreRole storeRole) {
    public enum StoreRole { HOST, REMOTE }

    public ClusterSettings {
        members = List.copyOf(members);
    }

    public static ClusterSettings single() {
        return new ClusterSettings(false, "lake", "127.0.0.1", 5701, List.of(), StoreRole.HOST);
    }
}
