package lake.client;

import java.util.Map;

/** A dropped table's tombstone: its table, its incarnation ({@code null} if lake wrote it) and its last registration. */
public record Tombstone(String namespace, String name, String incarnationId, Registration registration) {
    static Tombstone from(Map<String, Object> o) {
        return new Tombstone(Json.string(o, "namespace"), Json.string(o, "name"), Json.stringOrNull(o, "incarnation_id"),
                Registration.from(Json.object(o, "registration")));
    }

    /** The API's JSON. */
    public String toJson() { return Json.write(toMap()); }

    Map<String, Object> toMap() {
        return Json.object("namespace", namespace, "name", name, "incarnation_id", incarnationId, "registration", registration.raw());
    }
}
