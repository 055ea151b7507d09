package lake.catalog.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A namespace and its index record at {@code __lake_internal/namespaces/<ns>}:
 * {@code {"properties":{…string→string}}}. {@code dropping} is not stored in the record: it says a
 * drop's marker ({@code __lake_internal/dropping-namespaces/<ns>}) existed when it was read, i.e.
 * a drop is deciding whether the namespace is empty and table creates are refused meanwhile.
 */
public record Namespace(String name, Map<String, String> properties, boolean dropping) {
    public Namespace {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    public byte[] toBytes() {
        ObjectNode json = CatalogJson.JSON.createObjectNode();
        ObjectNode props = json.putObject("properties");
        properties.forEach(props::put);
        return CatalogJson.write(json);
    }

    public Namespace withDropping(boolean state) {
        return new Namespace(name, properties, state);
    }

    public static Namespace parse(String name, byte[] stored) {
        String what = "namespace record of '" + name + "'";
        ObjectNode json = CatalogJson.parseObject(what, stored);
        JsonNode props = json.get("properties");
        if (props == null || !props.isObject()) throw CatalogJson.corrupt(what, "has no properties object");
        Map<String, String> properties = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : props.properties()) {
            String v = CatalogJson.text(e.getValue());
            if (v == null) throw CatalogJson.corrupt(what, "has a non-string property '" + e.getKey() + "'");
            properties.put(e.getKey(), v);
        }
        return new Namespace(name, properties, false);
    }
}
