package lake.catalog;

import lake.catalog.model.Registration;

import java.nio.charset.StandardCharsets;

/** The catalog's records read from stored bytes, for tests outside the package (the wire tests render them as a node does). */
public final class StoredRecords {
    private StoredRecords() {}

    /** The registration stored as {@code json} (its exact bytes). */
    public static Registration registration(String json) {
        return Registration.parse("test registration", json.getBytes(StandardCharsets.UTF_8));
    }
}
