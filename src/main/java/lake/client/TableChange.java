package lake.client;

import java.util.Map;

/**
 * A resolve asked with the version the caller knows: {@code modified} with the table as it is now,
 * or not modified with its (unchanged) {@code currentVersion} and no table.
 */
public record TableChange(boolean modified, String namespace, String name, long currentVersion, Table table) {
    static TableChange from(Map<String, Object> o) {
        if ("modified".equals(Json.string(o, "status"))) {
            Table t = Table.from(o);
            return new TableChange(true, t.namespace(), t.name(), t.registration().currentVersion(), t);
        }
        return new TableChange(false, Json.string(o, "namespace"), Json.string(o, "name"), Json.u64(o, "current_version"), null);
    }

    /** The API's JSON. */
    public String toJson() {
        if (modified) {
            Map<String, Object> o = table.toMap();
            o.put("status", "modified");
            return Json.write(o);
        }
        return Json.write(Json.object("status", "not_modified", "namespace", namespace, "name", name,
                "current_version", Json.u64Value(currentVersion)));
    }
}
