package lake.catalogapi;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.protocol.ApiError;
import lake.protocol.ApiRequests;
import lake.protocol.Ops;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The strict decoder of catalog requests (the same rules as {@link ApiRequests}: exact names and
 * types, {@code null} nowhere unless documented, every refusal naming the field). Bodies are
 * the bus form; HTTP routes build the same bodies from their paths, queries and bodies
 * ({@link CatalogRoutes}). Names themselves are checked by the catalog, which owns their rule.
 */
final class CatalogRequests {
    private CatalogRequests() {}

    static final int MAX_NAMESPACE_PAGE = 1000;
    static final int MAX_TABLE_PAGE = 256;
    static final int MAX_TOMBSTONE_PAGE = 1000;
    static final int DEFAULT_PAGE = 100;

    record Page(String continuation, int limit) {}
    record Named(String namespace, String name) {}
    record CreateNamespace(String namespace, Map<String, String> properties) {}
    record CreateTable(String namespace, String name, List<String> columns, String engine) {}
    record Resolve(String namespace, String name, Long knownVersion, long waitMs) {}
    record CommitVersion(String namespace, String name, long expectedVersion, long version, String incarnationId) {}
    record Snapshot(String knownGeneration, long waitMs) {}
    record Purge(String namespace, String name, String incarnationId) {}

    static CreateNamespace createNamespace(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "properties"));
        Map<String, String> properties = new LinkedHashMap<>();
        if (b.containsKey("properties")) {
            if (!(b.getValue("properties") instanceof JsonObject p)) {
                throw ApiError.invalid("field 'properties' must be an object of strings, got " + ApiRequests.typeOf(b.getValue("properties")));
            }
            for (String k : p.fieldNames()) {
                if (!(p.getValue(k) instanceof String v)) {
                    throw ApiError.invalid("property '" + k + "' must be a string, got " + ApiRequests.typeOf(p.getValue(k)));
                }
                properties.put(k, v);
            }
        }
        return new CreateNamespace(ApiRequests.string(b, "namespace"), properties);
    }

    static String namespace(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace"));
        return ApiRequests.string(b, "namespace");
    }

    /** A drop; with {@code "purge": true} its incarnation is queued for purge in the drop's transaction. */
    record Drop(String namespace, String name, boolean purge) {}

    static Drop drop(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "name", "purge"));
        Object purge = b.getValue("purge");
        if (purge != null && !(purge instanceof Boolean)) throw ApiError.invalid("'purge' must be a boolean, got " + ApiRequests.typeOf(purge));
        return new Drop(ApiRequests.string(b, "namespace"), ApiRequests.string(b, "name"), Boolean.TRUE.equals(purge));
    }

    static Named table(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "name"));
        return new Named(ApiRequests.string(b, "namespace"), ApiRequests.string(b, "name"));
    }

    static Page page(JsonObject b, int max, Set<String> others) {
        Set<String> allowed = new java.util.HashSet<>(others);
        allowed.add("limit");
        allowed.add("continuation");
        ApiRequests.allowOnly(b, allowed);
        String continuation = b.getValue("continuation") == null ? null : ApiRequests.string(b, "continuation");
        int limit = Math.min(DEFAULT_PAGE, max);
        if (b.containsKey("limit")) limit = (int) unsigned(b, "limit", 1, max);
        return new Page(continuation, limit);
    }

    static CreateTable createTable(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "name", "columns", "engine"));
        if (!b.containsKey("columns")) throw ApiError.invalid("missing field 'columns' (a list of \"name:type\")");
        if (!(b.getValue("columns") instanceof JsonArray a)) {
            throw ApiError.invalid("field 'columns' must be an array of \"name:type\" strings, got " + ApiRequests.typeOf(b.getValue("columns")));
        }
        List<String> columns = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            if (!(a.getValue(i) instanceof String c)) {
                throw ApiError.invalid("columns[" + i + "] must be a \"name:type\" string, got " + ApiRequests.typeOf(a.getValue(i)));
            }
            columns.add(c);
        }
        String engine = b.containsKey("engine") ? ApiRequests.string(b, "engine") : null;
        return new CreateTable(ApiRequests.string(b, "namespace"), ApiRequests.string(b, "name"), columns, engine);
    }

    static Resolve resolve(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "name", "known_version", "wait_ms"));
        Long known = b.containsKey("known_version") ? u64(b, "known_version") : null;
        long waitMs = waitMs(b);
        if (waitMs > 0 && known == null) throw ApiError.invalid("field 'wait_ms' needs 'known_version': a long poll waits for a change from it");
        return new Resolve(ApiRequests.string(b, "namespace"), ApiRequests.string(b, "name"), known, waitMs);
    }

    static CommitVersion commitVersion(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "name", "expected_version", "version", "incarnation_id"));
        long expected = u64(b, "expected_version");
        long version = u64(b, "version");
        String incarnation = b.containsKey("incarnation_id") ? ApiRequests.string(b, "incarnation_id") : null;
        return new CommitVersion(ApiRequests.string(b, "namespace"), ApiRequests.string(b, "name"), expected, version, incarnation);
    }

    static Snapshot snapshot(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("known_generation", "wait_ms"));
        String known = b.containsKey("known_generation") ? ApiRequests.string(b, "known_generation") : null;
        long waitMs = waitMs(b);
        if (waitMs > 0 && known == null) throw ApiError.invalid("field 'wait_ms' needs 'known_generation': a long poll waits for a change from it");
        return new Snapshot(known, waitMs);
    }

    static Purge purge(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "name", "incarnation_id"));
        return new Purge(ApiRequests.string(b, "namespace"), ApiRequests.string(b, "name"), ApiRequests.string(b, "incarnation_id"));
    }

    /** An undrop: the tombstone (its incarnation optional on the bus), and the name it goes back to (its own by default). */
    record Undrop(String namespace, String name, String incarnationId, String toNamespace, String toName) {}

    static Undrop undrop(JsonObject b) {
        ApiRequests.allowOnly(b, Set.of("namespace", "name", "incarnation_id", "to_namespace", "to_name"));
        String ns = ApiRequests.string(b, "namespace");
        String name = ApiRequests.string(b, "name");
        String incarnation = b.containsKey("incarnation_id") ? ApiRequests.string(b, "incarnation_id") : null;
        return new Undrop(ns, name, incarnation, b.containsKey("to_namespace") ? ApiRequests.string(b, "to_namespace") : ns,
                b.containsKey("to_name") ? ApiRequests.string(b, "to_name") : name);
    }

    private static long waitMs(JsonObject b) {
        return b.containsKey("wait_ms") ? unsigned(b, "wait_ms", 0, Ops.MAX_WAIT_MS) : 0;
    }

    private static long unsigned(JsonObject b, String field, long min, long max) {
        Object v = b.getValue(field);
        if (!(v instanceof Integer || v instanceof Long)) throw ApiError.invalid("'" + field + "' must be an integer, got " + ApiRequests.typeOf(v));
        long n = ((Number) v).longValue();
        if (n < min || n > max) throw ApiError.invalid("'" + field + "' must be between " + min + " and " + max + ", got " + n);
        return n;
    }

    /** A required unsigned 64-bit integer field (a version). */
    private static long u64(JsonObject b, String field) {
        if (!b.containsKey(field)) throw ApiError.invalid("missing field '" + field + "'");
        return ApiRequests.u64(b, field, "");
    }
}
