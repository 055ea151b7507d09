package lake.client.model;

import lake.wire.Fields;
import lake.wire.WireException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An Iceberg table as the node's Iceberg REST catalog loads it ({@code GET
 * /iceberg/v1/namespaces/{ns}/tables/{t}}, docs/iceberg.md): the metadata file that is its current
 * state and that file's content. Not a {@code lake.wire} shape — the server renders it with
 * iceberg-core, in the Iceberg spec's JSON — so this reads only what a person asks first: the
 * metadata location, format version, current snapshot and the current schema's columns.
 * {@link #metadata()} is the whole metadata object as received.
 */
public record IcebergTable(String metadataLocation, Map<String, Object> metadata) {
    /** A column of the current schema; {@code type} is Iceberg's type, nested types written out ({@code struct<a: int>}, {@code list<string>}, {@code map<string, long>}). */
    public record Column(int id, String name, String type, boolean required) {}

    /** The load response {@code {"metadata-location","metadata",…}}; a {@link WireException} names a member that is missing or of another type. */
    public static IcebergTable from(Map<String, Object> load) {
        IcebergTable t = new IcebergTable(Fields.string(load, "metadata-location"), Fields.object(load, "metadata"));
        t.columns();                        // checked now: a bad reply fails where it is read, naming the member
        return t;
    }

    public int formatVersion() { return Fields.int32(metadata, "format-version"); }

    /** The current snapshot's id; {@code null} before the first (absent, null, or -1 in format 1). */
    public Long currentSnapshotId() {
        return metadata.get("current-snapshot-id") instanceof Number n && n.longValue() >= 0 ? n.longValue() : null;
    }

    /** The current schema's id (format 1 without schemas: that of its one {@code schema}, else 0). */
    public int currentSchemaId() {
        Integer id = Fields.int32OrNull(metadata, "current-schema-id");
        if (id != null) return id;
        Integer only = metadata.get("schema") instanceof Map<?, ?> s ? Fields.int32OrNull(Fields.cast(s), "schema-id") : null;
        return only == null ? 0 : only;
    }

    /** The current schema's top-level columns, in order. */
    public List<Column> columns() {
        Map<String, Object> schema = currentSchema();
        List<Column> out = new ArrayList<>();
        for (Map<String, Object> f : Fields.objects(schema, "fields")) {
            out.add(new Column(Fields.int32(f, "id"), Fields.string(f, "name"), type(f.get("type"), f), Fields.bool(f, "required")));
        }
        return out;
    }

    private Map<String, Object> currentSchema() {
        if (metadata.get("schemas") == null) return Fields.object(metadata, "schema");
        int id = currentSchemaId();
        for (Map<String, Object> s : Fields.objects(metadata, "schemas")) {
            Integer sid = Fields.int32OrNull(s, "schema-id");
            if (sid != null && sid == id) return s;
        }
        throw new WireException("current-schema-id", metadata);
    }

    /** Iceberg's JSON type as text: a primitive is its name, a nested type written out. */
    private static String type(Object t, Map<String, Object> where) {
        if (t instanceof String s) return s;
        if (!(t instanceof Map<?, ?> m)) throw new WireException("type", where);
        Map<String, Object> n = Fields.cast(m);
        return switch (Fields.string(n, "type")) {
            case "struct" -> Fields.objects(n, "fields").stream().map(f -> Fields.string(f, "name") + ": " + type(f.get("type"), f))
                    .collect(Collectors.joining(", ", "struct<", ">"));
            case "list" -> "list<" + type(n.get("element"), n) + ">";
            case "map" -> "map<" + type(n.get("key"), n) + ", " + type(n.get("value"), n) + ">";
            default -> throw new WireException("type", n);
        };
    }

    /** {@code {"metadata-location","metadata"}}: the load response without its per-client config. */
    public Map<String, Object> toMap() {
        return Fields.of("metadata-location", metadataLocation, "metadata", metadata);
    }
}
