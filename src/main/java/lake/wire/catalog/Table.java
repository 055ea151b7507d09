package lake.wire.catalog;

import lake.wire.Fields;

import java.util.Map;

/** A table of the catalog, {@code {"namespace","name","registration"}}. */
public record Table(String namespace, String name, Registration registration) {
    public static Table from(Map<String, Object> o) {
        return new Table(Fields.string(o, "namespace"), Fields.string(o, "name"), Registration.from(Fields.object(o, "registration")));
    }

    public Map<String, Object> toMap() {
        return Fields.of("namespace", namespace, "name", name, "registration", registration.toMap());
    }
}
