package lake.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A namespace and its index record at {@code __lake_internal/namespaces/<ns>}:
 * {@code {"properties":{…string→string}}}, with {@code "dropping":true} while a drop is deciding
 * whether the namespace is empty. Table creates check the record's exact bytes (they never rewrite
 * it, so creates of different tables never conflict with each other); a drop first rewrites it
 * to "dropping", which fails every create decided from the live record, then looks for tables.
 */
public record Namespace(String name, Map<String, String> properties, boolean dropping) {
    public Namespace {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    byte[] toBytes() {
        ObjectNode json = CatalogJson.JSON.createObjectNode();
        ObjectNode props = json.putObject("properties");
        properties.forEach(props::put);
        if (dropping) json.put("dropping", true);
        return CatalogJson.write(json);
    }

    Namespace withDropping(boolean state) {
        return new Namespace(name, properties, state);
    }

    static Namespace parse(String name, byte[] stored) {
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
        JsonNode dropping = json.get("dropping");
        if (dropping != null && !dropping.isBoolean()) throw CatalogJson.corrupt(what, "has a 'dropping' that is not a boolean");
        return new Namespace(name, properties, dropping != null && dropping.booleanValue());
    }
}
