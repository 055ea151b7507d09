package lake.wire.grants;

import lake.wire.Fields;

import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /v1/grants} and {@code POST /v1/grants/revoke} (and their bus
 * messages): {@code {"principal","namespace","name"?,"privileges"?}}; a revoke without
 * {@code privileges} removes all of them.
 */
public record GrantBody(String principal, String namespace, String name, List<String> privileges) {
    public GrantBody {
        privileges = privileges == null ? null : List.copyOf(privileges);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = Fields.of("principal", principal, "namespace", namespace);
        if (name != null) m.put("name", name);
        if (privileges != null) m.put("privileges", privileges);
        return m;
    }
}
