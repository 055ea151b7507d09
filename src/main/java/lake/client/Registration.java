package lake.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A table's registration as stored: where its data lives, its engine, its current version
 * (unsigned 64-bit), its incarnation ({@code null} for a legacy table) and its columns. Members
 * this client does not know are kept in {@link #toJson()}.
 */
public record Registration(String location, String engine, long currentVersion, String incarnationId,
                           List<Column> columns, Map<String, Object> raw) {
    public Registration {
        columns = List.copyOf(columns);
        raw = Collections.unmodifiableMap(raw);
    }

    /** A column: its name and type ({@code i64}, {@code f64}, {@code utf8}, {@code bool}, {@code file}). */
    public record Column(String name, String type) {
        /** {@code "name:type"}, as a create takes it. */
        @Override public String toString() { return name + ":" + type; }
    }

    /** The registration exactly as the server rendered it. */
    public String toJson() { return Json.write(raw); }

    static Registration from(Map<String, Object> o) {
        List<Column> columns = new ArrayList<>();
        if (o.get("columns") != null) {
            for (Map<String, Object> c : Json.objects(o, "columns")) columns.add(new Column(Json.string(c, "name"), Json.string(c, "type")));
        }
        return new Registration(Json.string(o, "location"), Json.string(o, "engine"), Json.u64(o, "current_version"),
                Json.stringOrNull(o, "incarnation_id"), columns, o);
    }
}
