package lake.protocol;

import java.util.List;
import java.util.Set;

/**
 * Every operation's name: the {@code lake-op} of a request on the bus and of a forwarded write,
 * and the {@code op} label of the request metrics; a catalog operation's name is also its bus
 * address suffix ({@code lake.v1.catalog.<op>}).
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
    /** A page of the change feed after a revision (long poll with {@code wait_ms}). */
    public static final String WATCH = "watch";
    /** The change feed's current revision on this node, for a consistent start. */
    public static final String REVISION = "revision";
    /** A page of the catalog's typed events after a revision (long poll with {@code wait_ms}). */
    public static final String CATALOG_EVENTS = "catalog-events";
    /** The stored grants (of one principal, or of every one). */
    public static final String GRANTS = "grants";
    /** Adds privileges on a catalog object to a principal's stored grants (leader only, forwarded). */
    public static final String GRANT = "grant";
    /** Removes privileges from a principal's stored grants (leader only, forwarded). */
    public static final String REVOKE = "revoke";
    /** An Iceberg REST request (carried as {@code lake.api.IcebergWire} encodes it); a mutation is a write, forwarded by a follower to the leader. */
    public static final String ICEBERG = "iceberg";

    // The catalog's operations.
    public static final String CREATE_NAMESPACE = "create-namespace";
    public static final String LIST_NAMESPACES = "list-namespaces";
    public static final String GET_NAMESPACE = "get-namespace";
    public static final String DROP_NAMESPACE = "drop-namespace";
    public static final String CREATE_TABLE = "create-table";
    public static final String LIST_TABLES = "list-tables";
    public static final String RESOLVE = "resolve";
    public static final String COMMIT_VERSION = "commit-version";
    public static final String DROP_TABLE = "drop-table";
    public static final String SNAPSHOT = "snapshot";
    public static final String LIST_TOMBSTONES = "list-tombstones";
    public static final String PURGE_TOMBSTONE = "purge-tombstone";
    public static final String UNDROP_TABLE = "undrop-table";
    /** Queue the purge of a dropped table now, its retention notwithstanding. */
    public static final String PURGE_TABLE = "purge-table";
    public static final String LIST_PURGES = "list-purges";

    public static final List<String> CATALOG = List.of(CREATE_NAMESPACE, LIST_NAMESPACES, GET_NAMESPACE, DROP_NAMESPACE,
            CREATE_TABLE, LIST_TABLES, RESOLVE, COMMIT_VERSION, DROP_TABLE, SNAPSHOT, LIST_TOMBSTONES, PURGE_TOMBSTONE, UNDROP_TABLE,
            PURGE_TABLE, LIST_PURGES);

    /** The operations that change the catalog: leader only, forwarded by followers, need a read-write token. */
    public static final Set<String> CATALOG_WRITES = Set.of(CREATE_NAMESPACE, DROP_NAMESPACE, CREATE_TABLE, COMMIT_VERSION,
            DROP_TABLE, PURGE_TOMBSTONE, UNDROP_TABLE, PURGE_TABLE);

    /** The longest a catalog long poll may wait. */
    public static final int MAX_WAIT_MS = 60_000;

    /** The public bus address of the catalog operation {@code op}. */
    public static String catalogAddress(String op) {
        return "lake.v1.catalog." + op;
    }
}
