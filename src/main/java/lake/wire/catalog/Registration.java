package lake.wire.catalog;

import lake.wire.Fields;
import lake.wire.WireException;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A table's registration as stored, {@code {"location","engine","current_version","incarnation_id","columns"}}
 * then any members this version does not know, kept in {@link #raw()} in their order. The record
 * is the parsed object itself, not a copy: the accessors read it, {@link #toMap()} is it (so a
 * registration renders exactly as stored), and the constructor checks it — {@code location} a
 * string, {@code current_version} unsigned 64-bit, and where present {@code engine} and
 * {@code incarnation_id} strings and {@code columns} a list of {@code {"name","type"}} strings.
 * Whoever hands the map in gives it up: nobody changes it afterwards.
 *
 * <p>Without {@code engine} the engine is {@value #DEFAULT_ENGINE}; without {@code incarnation_id}
 * it is a legacy table ({@code null}); without {@code columns} the columns are unknown (empty).
 * Two registrations are equal when they are the same JSON, whichever integer types parsed them.
 */
public record Registration(Map<String, Object> raw) {
    public static final String DEFAULT_ENGINE = "lance";

    public Registration {
        Fields.string(raw, "location");
        Fields.stringOrNull(raw, "engine");
        Fields.u64(raw, "current_version");
        Fields.stringOrNull(raw, "incarnation_id");
        if (raw.get("columns") != null) {
            // Checked in place, allocating nothing: a snapshot checks every table's registration.
            for (Object c : Fields.array(raw, "columns")) {
                if (!(c instanceof Map<?, ?> column)) throw new WireException("columns", raw);
                Fields.string(Fields.cast(column), "name");
                Fields.string(Fields.cast(column), "type");
            }
        }
        raw = Collections.unmodifiableMap(raw);
    }

    /** A column: its name and type ({@code i64}, {@code f64}, {@code utf8}, {@code bool}, {@code file}). */
    public record Column(String name, String type) {
        static Column from(Map<String, Object> o) { return new Column(Fields.string(o, "name"), Fields.string(o, "type")); }

        /** {@code "name:type"}, as a create takes it. */
        @Override public String toString() { return name + ":" + type; }
    }

    public static Registration from(Map<String, Object> o) { return new Registration(o); }

    public String location() { return (String) raw.get("location"); }

    public String engine() {
        String e = (String) raw.get("engine");
        return e == null ? DEFAULT_ENGINE : e;
    }

    /** Unsigned 64-bit ({@link Long#toUnsignedString} to print it). */
    public long currentVersion() { return Fields.u64(raw, "current_version"); }

    /** {@code null} for a legacy table. */
    public String incarnationId() { return (String) raw.get("incarnation_id"); }

    /** The columns; empty when the registration does not list them. */
    public List<Column> columns() {
        if (raw.get("columns") == null) return List.of();
        List<Column> out = new ArrayList<>();
        for (Map<String, Object> c : Fields.objects(raw, "columns")) out.add(Column.from(c));
        return List.copyOf(out);
    }

    /** The registration exactly as it was read. */
    public Map<String, Object> toMap() { return raw; }

    @Override public boolean equals(Object o) { return o instanceof Registration r && Fields.sameJson(raw, r.raw); }
    @Override public int hashCode() { return Fields.jsonHash(raw); }
    @Override public String toString() { return "Registration" + raw; }
}
