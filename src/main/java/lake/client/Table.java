package lake.client;

import java.util.Map;

/** A table of the catalog: its namespace, name and registration. */
public record Table(String namespace, String name, Registration registration) {
    static Table from(Map<String, Object> o) {
        return new Table(Json.string(o, "namespace"), Json.string(o, "name"), Registration.from(Json.object(o, "registration")));
    }

    /** The API's JSON: {@code {"namespace","name","registration"}}. */
    public String toJson() { return Json.write(toMap()); }

    Map<String, Object> toMap() { return Json.object("namespace", namespace, "name", name, "registration", registration.raw()); }
}
