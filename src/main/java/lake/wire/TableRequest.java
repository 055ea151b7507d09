package lake.wire;

import java.util.Map;

/** A table drop on the event bus, {@code {"namespace","name"}}; over HTTP both are the path. */
public record TableRequest(String namespace, String name) {
    public static TableRequest from(Map<String, Object> o) {
        return new TableRequest(Fields.string(o, "namespace"), Fields.string(o, "name"));
    }

    public Map<String, Object> toMap() { return Fields.of("namespace", namespace, "name", name); }
}
