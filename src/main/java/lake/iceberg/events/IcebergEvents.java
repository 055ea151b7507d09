package lake.iceberg.events;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.catalog.events.CatalogEvents;
import lake.feed.ChangeRecord;
import lake.iceberg.IcebergNames;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The catalog's events at the Iceberg face (docs/iceberg.md, "Events"), in the shape of the REST
 * spec's open events proposal (apache/iceberg PR 12584): a {@code QueryEventsRequest} read
 * strictly, each change record's typed event turned into the proposal's {@code Event}s, and the
 * {@code QueryEventsResponse}, or a CloudEvents 1.0 batch of the same events.
 *
 * <p>Only what the Iceberg face can address is shown: Iceberg tables and views, and namespaces
 * an Iceberg namespace maps to. Lake's own tables, their version commits and tombstone purges
 * have no Iceberg operation. One record (one fenced transaction, one revision) gives one event per
 * object it changed: a multi-table commit's events share its {@code request-id}.
 */
public final class IcebergEvents {
    public static final List<String> OPERATION_TYPES = List.of("create-table", "register-table", "drop-table", "update-table",
            "rename-table", "create-view", "drop-view", "update-view", "rename-view", "create-namespace",
            "update-namespace-properties", "drop-namespace", "custom");
    public static final Set<String> OBJECT_TYPES = Set.of("namespace", "table", "view");
    public static final int DEFAULT_PAGE_SIZE = 100;
    public static final int MAX_PAGE_SIZE = 1_000;
    private static final Set<String> FIELDS = Set.of("continuation-token", "page-size", "after-timestamp-ms", "operation-types",
            "catalog-objects-by-name", "catalog-objects-by-id", "object-types", "custom-filters");
    private static final String TOKEN_PREFIX = "lake1:";

    private IcebergEvents() {}

    /** A catalog object named by its UUID and type in a query. */
    public record ObjectId(String uuid, String type) {}

    /**
     * A {@code QueryEventsRequest}: where to resume ({@code after}, the revision a continuation
     * token names, and the timestamp it had processed; {@code null}: from the oldest event held)
     * and the filters, each {@code null} (or empty) when absent.
     */
    public record Query(Long after, long tokenTimestampMs, int pageSize, Long afterTimestampMs, Set<String> operationTypes,
                        List<List<String>> objectsByName, List<ObjectId> objectsById, Set<String> objectTypes) {}

    /** Reads a request body strictly: {@link IllegalArgumentException} naming the first thing wrong. */
    public static Query parse(byte[] body) {
        JsonObject o;
        try {
            o = body.length == 0 ? new JsonObject() : new JsonObject(new String(body, StandardCharsets.UTF_8));
        } catch (DecodeException | ClassCastException e) {
            throw new IllegalArgumentException("the body is not a JSON object (a QueryEventsRequest)");
        }
        for (String field : o.fieldNames()) {
            if (!FIELDS.contains(field)) throw new IllegalArgumentException("unknown field '" + field + "' in QueryEventsRequest");
        }
        Long after = null;
        long tokenTs = 0;
        Object token = o.getValue("continuation-token");
        if (token != null) {
            if (!(token instanceof String t)) throw new IllegalArgumentException("continuation-token must be a string");
            long[] read = readToken(t);
            after = read[0];
            tokenTs = read[1];
        }
        int pageSize = DEFAULT_PAGE_SIZE;
        Object size = o.getValue("page-size");
        if (size != null) {
            if (!(size instanceof Integer n) || n < 1) throw new IllegalArgumentException("page-size must be a positive integer");
            pageSize = Math.min(n, MAX_PAGE_SIZE);
        }
        Long afterTs = null;
        Object ts = o.getValue("after-timestamp-ms");
        if (ts != null) {
            if (!(ts instanceof Integer || ts instanceof Long) || ((Number) ts).longValue() < 0) {
                throw new IllegalArgumentException("after-timestamp-ms must be a non-negative integer (milliseconds since the epoch)");
            }
            afterTs = ((Number) ts).longValue();
        }
        Set<String> ops = strings(o, "operation-types", OPERATION_TYPES);
        Set<String> types = strings(o, "object-types", OBJECT_TYPES);
        List<List<String>> byName = null;
        Object names = o.getValue("catalog-objects-by-name");
        if (names != null) {
            if (!(names instanceof JsonArray a)) throw new IllegalArgumentException("catalog-objects-by-name must be an array of name arrays");
            byName = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                if (!(a.getValue(i) instanceof JsonArray parts) || parts.isEmpty()) {
                    throw new IllegalArgumentException("catalog-objects-by-name[" + i + "] must be a non-empty array of strings");
                }
                List<String> path = new ArrayList<>();
                for (Object p : parts) {
                    if (!(p instanceof String s) || s.isEmpty()) {
                        throw new IllegalArgumentException("catalog-objects-by-name[" + i + "] must hold only non-empty strings");
                    }
                    path.add(s);
                }
                byName.add(List.copyOf(path));
            }
        }
        List<ObjectId> byId = null;
        Object ids = o.getValue("catalog-objects-by-id");
        if (ids != null) {
            if (!(ids instanceof JsonArray a)) throw new IllegalArgumentException("catalog-objects-by-id must be an array of {uuid, type}");
            byId = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                if (!(a.getValue(i) instanceof JsonObject id) || !(id.getValue("uuid") instanceof String uuid)
                        || !(id.getValue("type") instanceof String type) || id.size() != 2) {
                    throw new IllegalArgumentException("catalog-objects-by-id[" + i + "] must be {\"uuid\": string, \"type\": string}");
                }
                if (!OBJECT_TYPES.contains(type)) {
                    throw new IllegalArgumentException("catalog-objects-by-id[" + i + "].type must be one of " + sorted(OBJECT_TYPES));
                }
                byId.add(new ObjectId(uuid, type));
            }
        }
        Object custom = o.getValue("custom-filters");
        if (custom != null && !(custom instanceof JsonObject)) throw new IllegalArgumentException("custom-filters must be an object");
        if (custom instanceof JsonObject c && !c.isEmpty()) {
            // A filter silently ignored would answer events the caller asked not to see.
            throw new IllegalArgumentException("custom-filters " + sorted(c.fieldNames()) + " are not supported: this catalog defines none");
        }
        return new Query(after, tokenTs, pageSize, afterTs, ops, byName, byId, types);
    }

    private static Set<String> strings(JsonObject o, String field, java.util.Collection<String> allowed) {
        Object v = o.getValue(field);
        if (v == null) return null;
        if (!(v instanceof JsonArray a)) throw new IllegalArgumentException(field + " must be an array of strings");
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < a.size(); i++) {
            if (!(a.getValue(i) instanceof String s) || !allowed.contains(s)) {
                throw new IllegalArgumentException(field + "[" + i + "] must be one of " + sorted(allowed));
            }
            out.add(s);
        }
        return out;
    }

    private static List<String> sorted(java.util.Collection<String> c) {
        return c.stream().sorted().toList();
    }

    /** The continuation token that resumes after revision {@code after}, having processed up to {@code timestampMs}. */
    public static String token(long after, long timestampMs) {
        String raw = TOKEN_PREFIX + Long.toUnsignedString(after) + ":" + timestampMs;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.US_ASCII));
    }

    private static long[] readToken(String token) {
        try {
            String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.US_ASCII);
            if (!raw.startsWith(TOKEN_PREFIX)) throw new IllegalArgumentException("not one of ours");
            String[] parts = raw.substring(TOKEN_PREFIX.length()).split(":", -1);
            if (parts.length != 2) throw new IllegalArgumentException("malformed");
            return new long[] {Long.parseUnsignedLong(parts[0]), Long.parseLong(parts[1])};
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("continuation-token is not one this catalog issued");
        }
    }

    /** The proposal's events for one change record: none when it changed nothing the Iceberg face shows. */
    public static List<JsonObject> events(ChangeRecord r) {
        JsonObject e = r.event();
        if (e == null) return List.of();
        List<JsonObject> operations = new ArrayList<>();
        String type = e.getString("type", "");
        String ns = e.getString("namespace");
        switch (type) {
            case CatalogEvents.NAMESPACE_CREATED -> {
                if (IcebergNames.addressable(ns)) {
                    operations.add(operation("create-namespace").put("namespace", levels(ns))
                            .put("properties", e.getJsonObject("properties", new JsonObject())));
                }
            }
            case CatalogEvents.NAMESPACE_UPDATED -> {
                if (IcebergNames.addressable(ns)) {
                    operations.add(operation("update-namespace-properties").put("namespace", levels(ns))
                            .put("updated", new JsonArray(sorted(e.getJsonObject("updated", new JsonObject()).fieldNames())))
                            .put("removed", e.getJsonArray("removed", new JsonArray())));
                }
            }
            case CatalogEvents.NAMESPACE_DROPPED -> {
                if (IcebergNames.addressable(ns)) operations.add(operation("drop-namespace").put("namespace", levels(ns)));
            }
            case CatalogEvents.TABLE_CREATED -> {
                Kind k = kind(e);
                if (k != null && addressable(ns, e.getString("name"))) {
                    boolean registered = e.getBoolean("registered", false);
                    JsonObject op = operation(k.view ? "create-view" : registered ? "register-table" : "create-table")
                            .put("identifier", identifier(ns, e.getString("name")));
                    operations.add(withUpdates(k.identify(op, e), e, !registered));
                }
            }
            case CatalogEvents.TABLES_COMMITTED -> {
                for (Object t : e.getJsonArray("tables", new JsonArray())) {
                    JsonObject table = (JsonObject) t;
                    Kind k = kind(table);
                    if (k == null || !addressable(table.getString("namespace"), table.getString("name"))) continue;
                    JsonObject op = operation(k.view ? "update-view" : "update-table")
                            .put("identifier", identifier(table.getString("namespace"), table.getString("name")));
                    operations.add(withUpdates(k.identify(op, table), table, true));
                }
            }
            case CatalogEvents.TABLE_DROPPED -> {
                Kind k = kind(e);
                if (k != null && addressable(ns, e.getString("name"))) {
                    operations.add(k.identify(operation(k.view ? "drop-view" : "drop-table").put("identifier", identifier(ns, e.getString("name"))), e));
                }
            }
            case CatalogEvents.TABLE_RENAMED -> {
                Kind k = kind(e);
                String toNs = e.getString("to_namespace");
                String toName = e.getString("to_name");
                if (k != null && addressable(ns, e.getString("name")) && addressable(toNs, toName)) {
                    operations.add(k.identify(operation(k.view ? "rename-view" : "rename-table")
                            .put("source", identifier(ns, e.getString("name"))).put("destination", identifier(toNs, toName)), e));
                }
            }
            case CatalogEvents.TABLE_UNDROPPED -> {
                // Back from its tombstone, the same table (UUID, metadata): at the face, registered at its name again.
                Kind k = kind(e);
                String toNs = e.getString("to_namespace");
                String toName = e.getString("to_name");
                if (k != null && addressable(toNs, toName)) {
                    operations.add(k.identify(operation(k.view ? "create-view" : "register-table").put("identifier", identifier(toNs, toName)), e));
                }
            }
            default -> { }
        }
        List<JsonObject> events = new ArrayList<>(operations.size());
        String request = Long.toUnsignedString(r.revision());
        for (int i = 0; i < operations.size(); i++) {
            events.add(new JsonObject().put("event-id", request + "-" + i).put("request-id", request)
                    .put("request-event-count", operations.size()).put("timestamp-ms", r.atMs()).put("operation", operations.get(i)));
        }
        return events;
    }

    /** Iceberg tables and views; {@code null} for lake's own tables, which the Iceberg face does not show. */
    private enum Kind {
        TABLE(false), VIEW(true);
        final boolean view;

        Kind(boolean view) { this.view = view; }

        JsonObject identify(JsonObject op, JsonObject from) {
            String uuid = from.getString(view ? "view_uuid" : "table_uuid");
            if (uuid != null) op.put(view ? "view-uuid" : "table-uuid", uuid);
            return op;
        }
    }

    private static Kind kind(JsonObject e) {
        String engine = e.getString("engine");
        return "iceberg".equals(engine) ? Kind.TABLE : "iceberg-view".equals(engine) ? Kind.VIEW : null;
    }

    private static JsonObject withUpdates(JsonObject op, JsonObject from, boolean required) {
        JsonArray updates = from.getJsonArray("updates");
        if (updates != null) op.put("updates", updates);
        else if (required) op.put("updates", new JsonArray());
        // Lake's own fields (Iceberg's parsers ignore unknown ones): where the metadata now is, and
        // whether a wide commit's updates were left out (read the metadata file then).
        if (from.getString("metadata_location") != null) op.put("metadata-location", from.getString("metadata_location"));
        if (from.getString("previous_metadata_location") != null) op.put("previous-metadata-location", from.getString("previous_metadata_location"));
        if (from.getBoolean("updates_omitted", false)) op.put("updates-omitted", true);
        return op;
    }

    private static JsonObject operation(String type) {
        return new JsonObject().put("operation-type", type);
    }

    private static boolean addressable(String ns, String name) {
        return ns != null && name != null && IcebergNames.addressable(ns) && IcebergNames.addressableName(name);
    }

    private static JsonArray levels(String ns) {
        return new JsonArray(List.of(IcebergNames.fromCatalog(ns).levels()));
    }

    private static JsonObject identifier(String ns, String name) {
        return new JsonObject().put("namespace", levels(ns)).put("name", IcebergNames.nameFromCatalog(name));
    }

    /** Whether {@code event} passes every filter of {@code q}. */
    public static boolean matches(Query q, JsonObject event) {
        JsonObject op = event.getJsonObject("operation");
        String type = op.getString("operation-type");
        if (q.afterTimestampMs() != null && event.getLong("timestamp-ms") <= q.afterTimestampMs()) return false;
        if (q.operationTypes() != null && !q.operationTypes().isEmpty() && !q.operationTypes().contains(type)) return false;
        String objectType = type.endsWith("-namespace") || type.equals("update-namespace-properties") ? "namespace"
                : type.endsWith("-view") ? "view" : "table";
        if (q.objectTypes() != null && !q.objectTypes().isEmpty() && !q.objectTypes().contains(objectType)) return false;
        if (q.objectsById() != null && !q.objectsById().isEmpty()) {
            String uuid = op.getString(objectType.equals("view") ? "view-uuid" : "table-uuid");
            if (uuid == null || q.objectsById().stream().noneMatch(id -> id.type().equals(objectType) && id.uuid().equalsIgnoreCase(uuid))) {
                return false;
            }
        }
        if (q.objectsByName() != null && !q.objectsByName().isEmpty()) {
            List<List<String>> paths = paths(op);
            return q.objectsByName().stream().anyMatch(wanted -> paths.stream().anyMatch(p -> p.size() >= wanted.size()
                    && p.subList(0, wanted.size()).equals(wanted)));
        }
        return true;
    }

    /** The full names an operation touches (a namespace's levels; a table's levels and name; a rename's both ends). */
    private static List<List<String>> paths(JsonObject op) {
        List<List<String>> out = new ArrayList<>();
        if (op.getJsonArray("namespace") != null) out.add(strings(op.getJsonArray("namespace")));
        for (String f : List.of("identifier", "source", "destination")) {
            JsonObject id = op.getJsonObject(f);
            if (id == null) continue;
            List<String> p = new ArrayList<>(strings(id.getJsonArray("namespace")));
            p.add(id.getString("name"));
            out.add(p);
        }
        return out;
    }

    private static List<String> strings(JsonArray a) {
        List<String> out = new ArrayList<>(a.size());
        for (Object o : a) out.add((String) o);
        return out;
    }

    /** The proposal's {@code QueryEventsResponse}. */
    public static JsonObject response(String continuationToken, long highestProcessedTimestampMs, List<JsonObject> events) {
        return new JsonObject().put("continuation-token", continuationToken)
                .put("highest-processed-timestamp-ms", highestProcessedTimestampMs).put("events", new JsonArray(new ArrayList<>(events)));
    }

    /**
     * The same events as a CloudEvents 1.0 batch (JSON format): {@code id} the event's id,
     * {@code type} {@code org.apache.iceberg.catalog.<operation-type>}, {@code subject} the dotted
     * object name, {@code data} the proposal's event.
     */
    public static JsonArray cloudEvents(List<JsonObject> events, String source) {
        JsonArray out = new JsonArray();
        for (JsonObject e : events) {
            JsonObject op = e.getJsonObject("operation");
            List<List<String>> paths = paths(op);
            JsonObject ce = new JsonObject().put("specversion", "1.0").put("id", e.getString("event-id")).put("source", source)
                    .put("type", "org.apache.iceberg.catalog." + op.getString("operation-type"))
                    .put("time", java.time.Instant.ofEpochMilli(e.getLong("timestamp-ms")).toString())
                    .put("datacontenttype", "application/json");
            if (!paths.isEmpty()) ce.put("subject", String.join(".", paths.get(0)));
            out.add(ce.put("data", e));
        }
        return out;
    }

    /** Response headers of the CloudEvents form, which has no envelope of its own. */
    public static Map<String, String> cloudEventsHeaders(String continuationToken, long highestProcessedTimestampMs) {
        return Map.of("Iceberg-Continuation-Token", continuationToken,
                "Iceberg-Highest-Processed-Timestamp-Ms", Long.toString(highestProcessedTimestampMs));
    }
}
