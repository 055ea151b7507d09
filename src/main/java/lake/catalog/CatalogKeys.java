package lake.catalog;

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
 *   <li>{@code drop/<ns>/<name>/<incarnation_id or "legacy">} → a drop tombstone (lake keys it
 *       {@code drop/<ns>/<name>}; keying by incarnation keeps every tombstone of a re-created name).</li>
 * </ul>
 * Names are single path segments without {@code /}, so every key splits unambiguously.
 */
final class CatalogKeys {
    static final String TABLES = "tbl/";
    static final String TOMBSTONES = "drop/";
    static final String INTERNAL = "__lake_internal/";
    static final String GENERATION = INTERNAL + "catalog-directory-generation";
    static final String NAMESPACES = INTERNAL + "namespaces/";
    static final String DROPPING_NAMESPACES = INTERNAL + "dropping-namespaces/";
    /** {@code __lake_internal/idempotency/<key>} → a REST request's idempotency record, written with its mutation. */
    static final String IDEMPOTENCY = INTERNAL + "idempotency/";
    /** The key segment of a tombstone whose registration had no incarnation id (a legacy table). */
    static final String LEGACY = "legacy";

    private CatalogKeys() {}

    static boolean isCatalogKey(String key) {
        return reservedPrefix(key) != null;
    }

    /** The catalog prefix {@code key} lies under ({@code tbl/}, {@code drop/}, {@code __lake_internal/}), or null. */
    static String reservedPrefix(String key) {
        if (key == null) return null;
        for (String p : new String[] {TABLES, TOMBSTONES, INTERNAL}) if (key.startsWith(p)) return p;
        return null;
    }

    static String table(String ns, String name) { return TABLES + ns + '/' + name; }

    static String tablesOf(String ns) { return TABLES + ns + '/'; }

    static String namespace(String ns) { return NAMESPACES + ns; }

    static String droppingMarker(String ns) { return DROPPING_NAMESPACES + ns; }

    static String tombstone(String ns, String name, String incarnationId) {
        return TOMBSTONES + ns + '/' + name + '/' + (incarnationId == null ? LEGACY : incarnationId);
    }

    /** The segments of {@code key} after {@code prefix}, split at {@code /}. */
    static String[] segments(String prefix, String key) {
        return key.substring(prefix.length()).split("/", -1);
    }
}
