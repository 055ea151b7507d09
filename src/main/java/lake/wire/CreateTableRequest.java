package lake.wire;

import java.util.List;
import java.util.Map;

/**
 * A table create, {@code {"namespace","name","columns":["name:type",…],"engine"?}} on the event
 * bus; over HTTP ({@code POST /v1/namespaces/{ns}/tables}) the namespace is the path and the body
 * {@link #httpBody()}. {@code engine} {@code null} (left out) is the server's default.
 */
public record CreateTableRequest(String namespace, String name, List<String> columns, String engine) {
    public CreateTableRequest {
        columns = List.copyOf(columns);
    }

    public static CreateTableRequest from(Map<String, Object> o) {
        return new CreateTableRequest(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.strings(o, "columns"),
                Fields.stringOrNull(o, "engine"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("namespace", namespace);
        o.putAll(httpBody());
        return o;
    }

    /** {@code {"name","columns","engine"?}}: {@link #toMap()} without the namespace the path carries. */
    public Map<String, Object> httpBody() {
        Map<String, Object> o = Fields.of("name", name, "columns", columns);
        if (engine != null) o.put("engine", engine);
        return o;
    }
}
