package lake.client;

import java.util.LinkedHashMap;
import java.util.Map;

/** A catalog namespace: its name, properties, and whether a drop of it is under way. */
public record Namespace(String name, Map<String, String> properties, boolean dropping) {
    public Namespace {
        properties = Map.copyOf(properties);
    }

    static Namespace from(Map<String, Object> o) {
        Map<String, String> props = new LinkedHashMap<>();
        Map<String, Object> p = o.get("properties") == null ? Map.of() : Json.object(o, "properties");
        for (String k : p.keySet()) props.put(k, Json.string(p, k));
        return new Namespace(Json.string(o, "namespace"), props, Boolean.TRUE.equals(o.get("dropping")));
    }

    /** The API's JSON: {@code {"namespace","properties","dropping"?}}. */
    public String toJson() {
        Map<String, Object> o = Json.object("namespace", name, "properties", new java.util.TreeMap<>(properties));
        if (dropping) o.put("dropping", true);
        return Json.write(o);
    }
}
