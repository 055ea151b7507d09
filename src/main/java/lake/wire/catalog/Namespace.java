package lake.wire.catalog;

import lake.wire.Fields;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A catalog namespace, {@code {"namespace","properties":{string: string},"dropping"?}}: its
 * properties in their stored order, and whether a drop of it is under way ({@code "dropping": true},
 * absent otherwise).
 */
public record Namespace(String name, Map<String, String> properties, boolean dropping) {
    public Namespace {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    public static Namespace from(Map<String, Object> o) {
        boolean dropping = o.get("dropping") != null && Fields.bool(o, "dropping");
        return new Namespace(Fields.string(o, "namespace"), Fields.stringMap(o, "properties"), dropping);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("namespace", name, "properties", properties);
        if (dropping) o.put("dropping", true);
        return o;
    }
}
