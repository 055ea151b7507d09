package lake.wire.catalog;

import lake.wire.Fields;
import lake.wire.WireException;

import java.util.Map;

/**
 * A resolve asked with the version the caller knows: {@code {"status":"modified",…the table}}
 * with the table as it is now, or {@code {"status":"not_modified","namespace","name","current_version"}}
 * with its unchanged version and no table. {@code table} is present exactly when {@code modified}.
 */
public record TableChange(boolean modified, String namespace, String name, long currentVersion, Table table) {
    public TableChange {
        if (modified != (table != null)) throw new IllegalArgumentException("a table change carries the table exactly when modified");
    }

    public static TableChange modified(Table t) {
        return new TableChange(true, t.namespace(), t.name(), t.registration().currentVersion(), t);
    }

    public static TableChange notModified(String namespace, String name, long currentVersion) {
        return new TableChange(false, namespace, name, currentVersion, null);
    }

    public static TableChange from(Map<String, Object> o) {
        return switch (Fields.string(o, "status")) {
            case "modified" -> modified(Table.from(o));
            case "not_modified" -> notModified(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.u64(o, "current_version"));
            default -> throw new WireException("status", o);
        };
    }

    public Map<String, Object> toMap() {
        if (modified) {
            Map<String, Object> o = table.toMap();
            o.put("status", "modified");
            return o;
        }
        return Fields.of("status", "not_modified", "namespace", namespace, "name", name, "current_version", Fields.u64Value(currentVersion));
    }
}
