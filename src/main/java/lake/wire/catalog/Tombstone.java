package lake.wire.catalog;

import lake.wire.Fields;

import java.util.Map;

/**
 * A dropped table's tombstone, {@code {"namespace","name","incarnation_id","dropped_ms","registration"}}:
 * its incarnation ({@code null}, present in the JSON, for one lake itself wrote), when it was
 * dropped (unix ms; {@code null} for a drop before drops were timed) and its last registration;
 * in a listing also {@code "expires_ms"}: when its retention ends and it is queued for purge
 * (absent, not {@code null}, for a drop before drops were timed, which never expires by itself).
 */
public record Tombstone(String namespace, String name, String incarnationId, Long droppedMs, Registration registration, Long expiresMs) {
    /** A tombstone as a drop answers it (no expiry: that is for listings). */
    public Tombstone(String namespace, String name, String incarnationId, Long droppedMs, Registration registration) {
        this(namespace, name, incarnationId, droppedMs, registration, null);
    }

    public static Tombstone from(Map<String, Object> o) {
        return new Tombstone(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.stringOrNull(o, "incarnation_id"),
                Fields.u64OrNull(o, "dropped_ms"), Registration.from(Fields.object(o, "registration")), Fields.u64OrNull(o, "expires_ms"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = Fields.of("namespace", namespace, "name", name, "incarnation_id", incarnationId, "dropped_ms", droppedMs,
                "registration", registration.toMap());
        if (expiresMs != null) m.put("expires_ms", expiresMs);
        return m;
    }
}
