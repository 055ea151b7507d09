package lake.wire;

import java.util.Map;

/** A tombstone purge on the event bus, {@code {"namespace","name","incarnation_id"}}; over HTTP all three are the path. */
public record PurgeRequest(String namespace, String name, String incarnationId) {
    public static PurgeRequest from(Map<String, Object> o) {
        return new PurgeRequest(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.string(o, "incarnation_id"));
    }

    public Map<String, Object> toMap() { return Fields.of("namespace", namespace, "name", name, "incarnation_id", incarnationId); }
}
