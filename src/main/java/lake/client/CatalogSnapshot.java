package lake.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A consistent cut of the catalog ({@code GET /v1/catalog}): every table at {@link #generation()},
 * or, when asked with the generation the caller already knows and it has not changed,
 * {@code modified == false} and no tables.
 */
public record CatalogSnapshot(boolean modified, String generation, List<Table> tables) {
    public CatalogSnapshot {
        tables = List.copyOf(tables);
    }

    static CatalogSnapshot from(Map<String, Object> o) {
        boolean modified = "snapshot".equals(Json.string(o, "status"));
        List<Table> tables = new ArrayList<>();
        if (modified) for (Map<String, Object> t : Json.objects(o, "tables")) tables.add(Table.from(t));
        return new CatalogSnapshot(modified, Json.stringOrNull(o, "generation"), tables);
    }

    /** The API's JSON. */
    public String toJson() {
        Map<String, Object> o = Json.object("status", modified ? "snapshot" : "not_modified", "generation", generation);
        if (modified) {
            List<Object> a = new ArrayList<>();
            for (Table t : tables) a.add(t.toMap());
            o.put("tables", a);
        }
        return Json.write(o);
    }
}
