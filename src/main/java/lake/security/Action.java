package lake.security;

import java.util.List;

/**
 * What a decoded request would do, as far as access control cares: the operation and the keys,
 * prefix or namespace it touches. Built by the API after decoding and before anything is read,
 * written or forwarded, so a refusal always writes nothing.
 */
public sealed interface Action {
    String op();

    /** A read ({@code write=false}) or write of one key. */
    record Key(String op, String key, boolean write) implements Action {}

    /** A transaction: a write touching every one of {@code keys}; refused whole if any is outside. */
    record Keys(String op, List<String> keys) implements Action {
        public Keys {
            keys = List.copyOf(keys);
        }
    }

    /** A scan of every key under {@code prefix} ({@code ""}: the whole keyspace). */
    record Scan(String op, String prefix) implements Action {}

    /** An admin action (resign, tombstone purge); {@code namespace} may be {@code null}. Namespace create/drop: {@link NamespaceChange}. */
    record Admin(String op, String namespace) implements Action {}

    /**
     * A catalog operation on one object: table {@code name} of {@code namespace}, or the namespace
     * itself ({@code name == null}); {@code need} is the privilege it takes ({@code null}: only
     * seeing the object). Decided by {@link Authorizer#catalogRefusal}: an object the principal
     * may not see is refused as absent (404), one it sees without the privilege as forbidden.
     */
    record CatalogObject(String op, String namespace, String name, lake.config.access.CatalogGrant.Privilege need) implements Action {}

    /** A catalog read spanning every namespace (snapshot, tombstones): only for principals without grants. */
    record WholeCatalog(String op) implements Action {}

    /**
     * A request to the Iceberg REST catalog ({@code /iceberg}): {@code write} needs read-write; the
     * router then asks {@link Authorizer#catalogRefusal} for every object the route touches.
     */
    record IcebergCatalog(String op, boolean write) implements Action {}

    /**
     * Creating ({@code CREATE}) or dropping ({@code DROP}) namespace {@code namespace}: decided by
     * {@link Authorizer#namespaceChangeRefusal} on every face.
     */
    record NamespaceChange(String op, String namespace, lake.config.access.CatalogGrant.Privilege need) implements Action {}

    /**
     * Listing the stored grants of {@code principal} ({@code null}: of everyone) on
     * {@code namespace} and beneath it ({@code null}: on everything).
     */
    record Grants(String op, String principal, String namespace) implements Action {}

    /**
     * Granting ({@code grant}) or revoking {@code privileges} ({@code null}: all) on a catalog object
     * ({@code name == null}: the namespace) to or from {@code principal}.
     */
    record GrantChange(String op, String principal, String namespace, String name, java.util.Set<lake.config.access.CatalogGrant.Privilege> privileges,
                       boolean grant) implements Action {
        public GrantChange {
            privileges = privileges == null ? null : java.util.Set.copyOf(privileges);
        }
    }

    /** Needs only an authenticated principal (leader, cluster, ready, the filtered namespace listing). */
    record Open(String op) implements Action {}
}
