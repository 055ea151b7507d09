package lake.catalog.events;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The typed events a catalog write's change record carries (docs/watch.md, "Catalog events"):
 * one per applied catalog transaction, {@code {"type", ...}} with the namespace and names it
 * touched. The catalog's own bookkeeping (drop markers, idempotency records) has none.
 */
public final class CatalogEvents {
    public static final String NAMESPACE_CREATED = "namespace_created";
    public static final String NAMESPACE_UPDATED = "namespace_updated";
    public static final String NAMESPACE_DROPPED = "namespace_dropped";
    public static final String TABLE_CREATED = "table_created";
    public static final String TABLE_VERSION_COMMITTED = "table_version_committed";
    public static final String TABLES_COMMITTED = "tables_committed";
    public static final String TABLE_DROPPED = "table_dropped";
    public static final String TABLE_RENAMED = "table_renamed";
    public static final String TABLE_UNDROPPED = "table_undropped";
    public static final String TOMBSTONE_PURGED = "tombstone_purged";

    private CatalogEvents() {}

    public static JsonObject namespaceCreated(String ns, Map<String, String> properties) {
        return new JsonObject().put("type", NAMESPACE_CREATED).put("namespace", ns).put("properties", new JsonObject(Map.copyOf(properties)));
    }

    public static JsonObject namespaceUpdated(String ns, Collection<String> removed, Map<String, String> updated) {
        return new JsonObject().put("type", NAMESPACE_UPDATED).put("namespace", ns)
                .put("removed", new JsonArray(List.copyOf(removed))).put("updated", new JsonObject(Map.copyOf(updated)));
    }

    public static JsonObject namespaceDropped(String ns) {
        return new JsonObject().put("type", NAMESPACE_DROPPED).put("namespace", ns);
    }

    /** A table that is: its engine, incarnation, location and (a pointer table) metadata location. */
    public record TableRef(String namespace, String name, String engine, String incarnationId, String location, String metadataLocation) {}

    public static JsonObject tableCreated(TableRef t, JsonObject detail) {
        JsonObject e = table(TABLE_CREATED, t).put("location", t.location());
        if (t.metadataLocation() != null) e.put("metadata_location", t.metadataLocation());
        return detail == null ? e : e.mergeIn(detail);
    }

    public static JsonObject versionCommitted(TableRef t, long version) {
        return table(TABLE_VERSION_COMMITTED, t).put("version", version);
    }

    /** One event for every table of one commit (a multi-table commit is one transaction, one record). */
    public static JsonObject tablesCommitted(List<JsonObject> tables) {
        return new JsonObject().put("type", TABLES_COMMITTED).put("tables", new JsonArray(List.copyOf(tables)));
    }

    public static JsonObject committedTable(TableRef t, String previousMetadataLocation, JsonObject detail) {
        JsonObject e = new JsonObject().put("namespace", t.namespace()).put("name", t.name()).put("engine", t.engine())
                .put("incarnation_id", t.incarnationId()).put("previous_metadata_location", previousMetadataLocation);
        if (t.metadataLocation() != null) e.put("metadata_location", t.metadataLocation());
        return detail == null ? e : e.mergeIn(detail);
    }

    public static JsonObject tableDropped(TableRef t) {
        return table(TABLE_DROPPED, t);
    }

    public static JsonObject tableRenamed(TableRef t, String toNs, String toName) {
        return table(TABLE_RENAMED, t).put("to_namespace", toNs).put("to_name", toName);
    }

    /** A dropped table restored from its tombstone: {@code t} as it was dropped, {@code to_*} the name it has again (maybe another). */
    public static JsonObject tableUndropped(TableRef t, String toNs, String toName) {
        return table(TABLE_UNDROPPED, t).put("location", t.location()).put("to_namespace", toNs).put("to_name", toName);
    }

    public static JsonObject tombstonePurged(String ns, String name, String incarnationId) {
        return new JsonObject().put("type", TOMBSTONE_PURGED).put("namespace", ns).put("name", name).put("incarnation_id", incarnationId);
    }

    private static JsonObject table(String type, TableRef t) {
        JsonObject e = new JsonObject().put("type", type).put("namespace", t.namespace()).put("name", t.name()).put("engine", t.engine())
                .put("incarnation_id", t.incarnationId());
        if (t.metadataLocation() != null) e.put("metadata_location", t.metadataLocation());
        return e;
    }

    /** The namespaces an event names (a rename names two; a multi-table commit each of its tables'). */
    public static List<String> namespaces(JsonObject event) {
        if (event == null) return List.of();
        if (TABLES_COMMITTED.equals(event.getString("type"))) {
            return event.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("namespace")).distinct().toList();
        }
        String to = event.getString("to_namespace");
        String ns = event.getString("namespace");
        return to == null || to.equals(ns) ? List.of(ns) : List.of(ns, to);
    }
}
