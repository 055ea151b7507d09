package lake.protocol;

/**
 * The key-value and node operations: one name each, the {@code lake-op} of a request on the bus
 * and of a forwarded write, and the {@code op} label of the request metrics. The catalog's are
 * {@link CatalogOps}.
 */
public final class Ops {
    private Ops() {}

    public static final String GET = "get";
    public static final String SCAN = "scan";
    public static final String CAS = "cas";
    public static final String DELETE = "delete";
    public static final String TXN = "txn";
    public static final String LEADER = "leader";
    public static final String RESIGN = "resign";
    public static final String READY = "ready";
    public static final String CLUSTER = "cluster";
    /** An Iceberg REST request (carried as {@code lake.api.IcebergWire} encodes it); a mutation is a write, forwarded by a follower to the leader. */
    public static final String ICEBERG = "iceberg";
}
