package lake.wire.catalog;

import lake.wire.Fields;
import lake.wire.WireException;

import java.util.List;
import java.util.Map;

/**
 * A consistent cut of the catalog ({@code GET /v1/catalog}):
 * {@code {"status":"snapshot","generation","tables":[…]}}, every table at {@link #generation()};
 * or, asked with the generation the caller knows and unchanged since,
 * {@code {"status":"not_modified","generation"}} and no tables. {@code generation} is
 * {@code null} (present in the JSON) while the catalog has never seen a create or drop.
 */
public record CatalogSnapshot(boolean modified, String generation, List<Table> tables) {
    public CatalogSnapshot {
        tables = List.copyOf(tables);
        if (!modified && !tables.isEmpty()) throw new IllegalArgumentException("a snapshot not modified carries no tables");
    }

    public static CatalogSnapshot from(Map<String, Object> o) {
        boolean modified = switch (Fields.string(o, "status")) {
            case "snapshot" -> true;
            case "not_modified" -> false;
            default -> throw new WireException("status", o);
        };
        return new CatalogSnapshot(modified, Fields.stringOrNull(o, "generation"), modified ? Fields.records(o, "tables", Table::from) : List.of());
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("status", modified ? "snapshot" : "not_modified", "generation", generation);
        if (modified) o.put("tables", Fields.maps(tables, Table::toMap));
        return o;
    }
}
