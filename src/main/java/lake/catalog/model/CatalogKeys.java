package lake.catalog.model;

/**
 * The catalog's key layout in the MetaStore (compatible with lake's registry for {@code tbl/} and
 * the generation; see specs/catalog.spec.md):
 * <ul>
 *   <li>{@code tbl/<ns>/<name>} → a {@link Registration}, compact JSON;</li>
 *   <li>{@code __lake_internal/catalog-directory-generation} → UUIDv7 text, rewritten in the same
 *       transaction as every table and namespace create and drop, never by a version commit;</li>
 *   <li>{@code __lake_internal/namespaces/<ns>} → {@code {"properties":{…}}}, the namespace index;</li>
 *   <li>{@code __lake_internal/dropping-namespaces/<ns>} → {@code {"started_ms":…,"drop_id":…}} (never the same bytes twice) while a drop of
 *       {@code ns} decides whether it is empty (it exists only while the namespace record does);</li>
 *   <li>{@code __lake_internal/assigned-locations/<sha-256 hex>} → {@code {"location","namespace","name","incarnation_id"}}:
 *       a location the catalog assigned to one table incarnation, never to another;</li>
 *   <li>{@code drop/<ns>/<name>/<incarnation_id or "legacy">} → a drop tombstone (lake keys it
 *       {@code drop/<ns>/<name>}; keying by incarnation keeps every tombstone of a re-created name).</li>
 * </ul>
 * Names are single path segments without {@code /}, so every key splits unambiguously.
 */
public final class CatalogKeys {
    public static final String TABLES = "tbl/";
    public static final String TOMBSTONES = "drop/";
    public static final String INTERNAL = "__lake_internal/";
    public static final String GENERATION = INTERNAL + "catalog-directory-generation";
    public static final String NAMESPACES = INTERNAL + "namespaces/";
    public static final String DROPPING_NAMESPACES = INTERNAL + "dropping-namespaces/";
    /** {@code __lake_internal/idempotency/<key>} → a REST request's idempotency record, written with its mutation. */
    public static final String IDEMPOTENCY = INTERNAL + "idempotency/";
    /**
     * {@code __lake_internal/assigned-locations/<sha-256 of the location, hex>} → a {@link LocationClaim}:
     * the location was assigned to one table incarnation, once (hashed: a location may be longer than a key).
     */
    public static final String ASSIGNED_LOCATIONS = INTERNAL + "assigned-locations/";
    /** Dropped tables whose files are to be deleted ({@link PurgeJob}), keyed as their tombstones. */
    public static final String PURGE_QUEUE = INTERNAL + "purge-queue/";
    /** The key segment of a tombstone whose registration had no incarnation id (a legacy table). */
    public static final String LEGACY = "legacy";

    private CatalogKeys() {}

    public static boolean isCatalogKey(String key) {
        return reservedPrefix(key) != null;
    }

    /** The catalog prefix {@code key} lies under ({@code tbl/}, {@code drop/}, {@code __lake_internal/}), or null. */
    public static String reservedPrefix(String key) {
        if (key == null) return null;
        for (String p : new String[] {TABLES, TOMBSTONES, INTERNAL}) if (key.startsWith(p)) return p;
        return null;
    }

    public static String table(String ns, String name) { return TABLES + ns + '/' + name; }

    public static String tablesOf(String ns) { return TABLES + ns + '/'; }

    public static String namespace(String ns) { return NAMESPACES + ns; }

    public static String droppingMarker(String ns) { return DROPPING_NAMESPACES + ns; }

    public static String assignedLocation(String location) {
        try {
            byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(location.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return ASSIGNED_LOCATIONS + java.util.HexFormat.of().formatHex(h);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The record at {@link #assignedLocation}: which table incarnation the location was assigned to. */
    public static byte[] assignment(String location, String ns, String name, String incarnationId) {
        return CatalogJson.write(CatalogJson.JSON.createObjectNode().put("location", location).put("namespace", ns)
                .put("name", name).put("incarnation_id", incarnationId));
    }

    public static String purgeJob(String ns, String name, String incarnationId) {
        return PURGE_QUEUE + ns + '/' + name + '/' + (incarnationId == null ? LEGACY : incarnationId);
    }

    public static String tombstone(String ns, String name, String incarnationId) {
        return TOMBSTONES + ns + '/' + name + '/' + (incarnationId == null ? LEGACY : incarnationId);
    }

    /** The segments of {@code key} after {@code prefix}, split at {@code /}. */
    public static String[] segments(String prefix, String key) {
        return key.substring(prefix.length()).split("/", -1);
    }
}
