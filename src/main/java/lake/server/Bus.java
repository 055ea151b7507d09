package lake.server;

/** Event-bus addresses and headers. Every address and body is documented in docs/event-bus.md. */
public final class Bus {
    private Bus() {}

    /** The fencing epoch the sender acts under; on every message to the store and on API replies. */
    public static final String EPOCH_HEADER = "lake-epoch";
    /** The operation a store message asks for. */
    public static final String OP_HEADER = "lake-op";

    /** The store verticle's address (configurable per deployment; this is the default). */
    public static final String STORE = "lake.internal.store";

    // Public API: any clustered verticle may call these; every node answers.
    public static final String KV_GET = "lake.v1.kv.get";
    public static final String KV_SCAN = "lake.v1.kv.scan";
    public static final String KV_CAS = "lake.v1.kv.cas";
    public static final String KV_DELETE = "lake.v1.kv.delete";
    public static final String LEADER = "lake.v1.leader";
    public static final String LEADER_RESIGN = "lake.v1.leader.resign";

    /** The address of one node's API handler, used by its own HTTP ingress and for forwarding. */
    public static String nodeApi(String nodeId) {
        return "lake.node." + nodeId + ".api";
    }

    /** Leadership changes of one node, published by its election verticle. */
    public static String leadership(String nodeId) {
        return "lake.node." + nodeId + ".leadership";
    }

    /** Control requests to one node's election verticle (campaign now, step down, resign, status). */
    public static String election(String nodeId) {
        return "lake.node." + nodeId + ".election";
    }
}
