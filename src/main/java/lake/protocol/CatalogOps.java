package lake.protocol;

import java.util.List;
import java.util.Set;

/**
 * The catalog's operations: one name each, used as the bus address suffix
 * ({@code lake.v1.catalog.<op>}), the {@code lake-op} of a forwarded write and the {@code op}
 * label of the request metrics.
 */
public final class CatalogOps {
    private CatalogOps() {}

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

    public static final List<String> ALL = List.of(CREATE_NAMESPACE, LIST_NAMESPACES, GET_NAMESPACE, DROP_NAMESPACE,
            CREATE_TABLE, LIST_TABLES, RESOLVE, COMMIT_VERSION, DROP_TABLE, SNAPSHOT, LIST_TOMBSTONES, PURGE_TOMBSTONE);

    /** The operations that change the catalog: leader only, forwarded by followers, need a read-write token. */
    public static final Set<String> WRITES = Set.of(CREATE_NAMESPACE, DROP_NAMESPACE, CREATE_TABLE, COMMIT_VERSION,
            DROP_TABLE, PURGE_TOMBSTONE);

    /** The longest a long poll may wait. */
    public static final int MAX_WAIT_MS = 60_000;

    /** The public bus address of {@code op}. */
    public static String address(String op) {
        return "lake.v1.catalog." + op;
    }
}
