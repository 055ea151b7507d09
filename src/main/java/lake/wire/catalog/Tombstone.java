package lake.wire.catalog;

import lake.wire.Fields;

import java.util.Map;

/**
 * A dropped table's tombstone, {@code {"namespace","name","incarnation_id","registration"}}: its
 * incarnation ({@code null}, present in the JSON, for one lake itself wrote) and its last registration.
 */
public record Tombstone(String namespace, String name, String incarnationId, Registration registration) {
    public static Tombstone from(Map<String, Object> o) {
        return new Tombstone(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.stringOrNull(o, "incarnation_id"),
                Registration.from(Fields.object(o, "registration")));
    }

    public Map<String, Object> toMap() {
        return Fields.of("namespace", namespace, "name", name, "incarnation_id", incarnationId, "registration", registration.toMap());
    }
}
