package lake.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A namespace and its index record at {@code __lake_internal/namespaces/<ns>}:
 * {@code {"properties":{…string→string},"tables":N}}, where {@code tables} counts the namespace's
 * live tables. Table create and drop rewrite the record conditioned on its exact bytes, so a
 * create racing a namespace drop always makes one of them fail its condition.
 */
public record Namespace(String name, Map<String, String> properties, long tables) {
    public Namespace {
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    byte[] toBytes() {
        ObjectNode json = CatalogJson.JSON.createObjectNode();
        ObjectNode props = json.putObject("properties");
        properties.forEach(props::put);
        json.put("tables", tables);
        return CatalogJson.write(json);
    }

    Namespace withTables(long count) {
        return new Namespace(name, properties, count);
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
        JsonNode count = json.get("tables");
        if (count == null || !count.canConvertToLong() || !count.isIntegralNumber() || count.longValue() < 0) {
            throw CatalogJson.corrupt(what, "has no non-negative table count");
        }
        return new Namespace(name, properties, count.longValue());
    }
}
