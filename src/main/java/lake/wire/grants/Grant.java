package lake.wire.grants;

import lake.wire.Fields;

import java.util.List;
import java.util.Map;

/**
 * One stored grant, as {@code GET /v1/grants} lists it:
 * {@code {"principal","namespace","name","privileges","by","at_ms"}} — {@code name} is
 * {@code null} for a grant on the namespace (and everything beneath it), {@code privileges} their
 * labels sorted, {@code by} the principal that last changed it, {@code at_ms} when.
 */
public record Grant(String principal, String namespace, String name, List<String> privileges, String by, long atMs) {
    public Grant {
        privileges = List.copyOf(privileges);
    }

    public static Grant from(Map<String, Object> o) {
        return new Grant(Fields.string(o, "principal"), Fields.string(o, "namespace"), Fields.stringOrNull(o, "name"),
                Fields.strings(o, "privileges"), Fields.stringOrNull(o, "by"), Fields.u64(o, "at_ms"));
    }

    public Map<String, Object> toMap() {
        return Fields.of("principal", principal, "namespace", namespace, "name", name, "privileges", privileges, "by", by, "at_ms", atMs);
    }

    /** {@code {"grants":[...]}}. */
    public static List<Grant> listFrom(Map<String, Object> o) {
        return Fields.records(o, "grants", Grant::from);
    }

    public static Map<String, Object> listToMap(List<Grant> grants) {
        return Fields.of("grants", Fields.maps(grants, Grant::toMap));
    }
}
