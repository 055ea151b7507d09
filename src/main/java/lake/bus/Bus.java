package lake.bus;

/** Event-bus addresses and headers. Every address and body is documented in docs/event-bus.md. */
public final class Bus {
    private Bus() {}

    /** The fencing epoch the sender acts under; on every message to the store and on API replies. */
    public static final String EPOCH_HEADER = "lake-epoch";
    /** The operation a store message asks for. */
    public static final String OP_HEADER = "lake-op";

    /**
     * On a write a follower forwards: the epoch of the lease the follower saw, so the receiving node
     * refuses (certainly without applying) unless it leads exactly that epoch. A forwarded
     * request is never forwarded again.
     */
    public static final String FORWARDED_EPOCH_HEADER = "lake-forwarded-epoch";
    /** On a forwarded write: the node that forwarded it. */
    public static final String FORWARDED_BY_HEADER = "lake-forwarded-by";

    /** The token on a {@code lake.v1.*} request, and on a forwarded write: the client's own, passed on. */
    public static final String TOKEN_HEADER = "lake-token";

    /** On store requests in a cluster with a secret: proves the sender is one of the cluster's nodes. */
    public static final String SECRET_HEADER = "lake-cluster-secret";
    /**
     * On a forwarded write only: the principal a follower authenticated by other means than a
     * token (a client certificate), vouched for by the cluster secret in {@link #SECRET_HEADER}.
     */
    public static final String PRINCIPAL_HEADER = "lake-principal";

    /** Published cluster-wide by the leader after every acknowledged catalog write: long polls look again. */
    public static final String CATALOG_CHANGED = "lake.cluster.catalog-changed";

    /**
     * Published cluster-wide by the leader: each run of the change feed its watermark passed
     * ({@link lake.feed.Published} as JSON), with {@link #SECRET_HEADER} when the cluster has one.
     * Every node's tail is fed from it.
     */
    public static final String FEED_RUNS = "lake.cluster.feed-runs";

    /** Published cluster-wide when a leader resigns, so standbys campaign at once. */
    public static final String LEASE_RELEASED = "lake.cluster.lease-released";
    public static final String CLUSTER = "lake.v1.cluster";

    /** The store verticle's address (configurable per deployment; this is the default). */
    public static final String STORE = "lake.internal.store";

    // Public API: any clustered verticle may call these; every node answers.
    public static final String KV_GET = "lake.v1.kv.get";
    public static final String KV_SCAN = "lake.v1.kv.scan";
    public static final String KV_CAS = "lake.v1.kv.cas";
    public static final String KV_DELETE = "lake.v1.kv.delete";
    public static final String KV_TXN = "lake.v1.kv.txn";
    public static final String LEADER = "lake.v1.leader";
    /** A page of the change feed ({@code {"prefix","after","limit","wait_ms"}}), as {@code GET /v1/watch}'s long poll. */
    public static final String WATCH = "lake.v1.watch";
    /** The change feed's current revision on the node that answers. */
    public static final String REVISION = "lake.v1.revision";
    /** A page of the catalog's typed events ({@code {"after","limit","wait_ms"}}), as {@code GET /v1/catalog/events}. */
    public static final String CATALOG_EVENTS = "lake.v1.catalog.events";
    public static final String LEADER_RESIGN = "lake.v1.leader.resign";
    /** The stored grants (body {@code {"principal"?}}); admin, or a principal asking for its own. */
    public static final String GRANTS = "lake.v1.grants";
    /** Adds privileges to a principal's stored grants (body as {@code POST /v1/grants}). */
    public static final String GRANT = "lake.v1.grants.grant";
    /** Removes privileges from a principal's stored grants (body as {@code POST /v1/grants/revoke}). */
    public static final String REVOKE = "lake.v1.grants.revoke";

    /** The address of one node's API handler, used by its own HTTP ingress and for forwarding. */
    public static String nodeApi(String nodeId) {
        return "lake.node." + nodeId + ".api";
    }

    /**
     * One node's clustered address for writes forwarded by followers. Unlike {@link #nodeApi}, it
     * is reachable from the cluster, so every request on it presents a token like the public API.
     */
    public static String nodeForward(String nodeId) {
        return "lake.node." + nodeId + ".forward";
    }

    /** Leadership changes of one node, published by its election verticle. */
    public static String leadership(String nodeId) {
        return "lake.node." + nodeId + ".leadership";
    }

    /** One node's epoch timeline (local): any request is answered with the timeline's JSON (docs/console.md). */
    public static String timeline(String nodeId) {
        return "lake.node." + nodeId + ".timeline";
    }

    /** Control requests to one node's election verticle (campaign now, step down, resign, status). */
    public static String election(String nodeId) {
        return "lake.node." + nodeId + ".election";
    }
}
