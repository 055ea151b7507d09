package lake.wire;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /v1/namespaces}, {@code {"namespace","properties"?}}: the properties (string to
 * string) in the order given; none are left out of the JSON.
 */
public record CreateNamespaceRequest(String namespace, Map<String, String> properties) {
    public CreateNamespaceRequest {
        properties = properties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    public static CreateNamespaceRequest from(Map<String, Object> o) {
        return new CreateNamespaceRequest(Fields.string(o, "namespace"),
                o.get("properties") == null ? Map.of() : Fields.stringMap(o, "properties"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("namespace", namespace);
        if (!properties.isEmpty()) o.put("properties", properties);
        return o;
    }
}
