package lake.wire.catalog;

import lake.wire.Fields;

import java.util.Map;

/**
 * A dropped table's tombstone, {@code {"namespace","name","incarnation_id","dropped_ms","registration"}}:
 * its incarnation ({@code null}, present in the JSON, for one lake itself wrote), when it was
 * dropped (unix ms; {@code null} for a drop before drops were timed) and its last registration.
 */
public record Tombstone(String namespace, String name, String incarnationId, Long droppedMs, Registration registration) {
    public static Tombstone from(Map<String, Object> o) {
        return new Tombstone(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.stringOrNull(o, "incarnation_id"),
                Fields.u64OrNull(o, "dropped_ms"), Registration.from(Fields.object(o, "registration")));
    }

    public Map<String, Object> toMap() {
        return Fields.of("namespace", namespace, "name", name, "incarnation_id", incarnationId, "dropped_ms", droppedMs,
                "registration", registration.toMap());
    }
}
