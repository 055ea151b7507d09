package lake.config;

import java.util.List;

/**
 * How a node joins a Metasrv cluster over Hazelcast (TCP-IP join on the listed members, never
 * multicast).
 *
 * @param enabled   cluster mode on; off means a single node on a local event bus
 * @param members   {@code host:port} of the Hazelcast members to join (may include this node)
 * @param secret    shared by the nodes of a cluster and presented on every store request, so a
 *                  RocksDB store host serves its store only to them; {@code null} when not set
 * @param storeRole for RocksDB: {@code HOST} serves the store to the cluster, {@code REMOTE}
 *                  reaches the host's store over the clustered event bus. DynamoDB nodes each run
 *                  their own store verticle against the shared table and ignore it.
 * @param busPort       the port the clustered event bus listens on; 0 picks a free one at start
 * @param busPublicPort the event-bus port this node advertises to the others (they connect to
 *                      {@code host:busPublicPort}); 0 advertises the port it listens on. Set it when
 *                      something in between (a proxy, a NAT) forwards the advertised port to
 *                      {@code busPort}: it is only non-zero with a fixed {@code busPort}.
 */
public record ClusterSettings(boolean enabled, String name, String host, int port, List<String> members,
                              StoreRole storeRole, String secret, int busPort, int busPublicPort) {
    public enum StoreRole { HOST, REMOTE }

    public ClusterSettings {
        members = List.copyOf(members);
    }

    public ClusterSettings(boolean enabled, String name, String host, int port, List<String> members, StoreRole storeRole) {
        this(enabled, name, host, port, members, storeRole, null);
    }

    /** With the event bus on a free port, advertised as it is. */
    public ClusterSettings(boolean enabled, String name, String host, int port, List<String> members, StoreRole storeRole,
                           String secret) {
        this(enabled, name, host, port, members, storeRole, secret, 0, 0);
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
        return "ClusterSettings[enabled=" + enabled + ", name=" + name + ", host=" + host + ", port=" + port
                + ", members=" + members + ", storeRole=" + storeRole + ", busPort=" + busPort + ", busPublicPort=" + busPublicPort + ", secret=" + (secret == null ? "none" : "****") + "]";
    }

    public static ClusterSettings single() {
        return new ClusterSettings(false, "lake", "127.0.0.1", 5701, List.of(), StoreRole.HOST);
    }
}
