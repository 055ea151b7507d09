package lake.orphans;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.Iterator;
import java.util.Set;

/**
 * A sweep's request body, read strictly: {@code {"older-than-ms"?: long, "delete"?: boolean}}.
 * An empty body sweeps at the floor without deleting. An unknown field, a value of the wrong type,
 * or an age below the floor is the caller's fault ({@link IllegalArgumentException}: 400), named.
 *
 * @param olderThanMs the safety age: only files last modified at least this long ago are reported
 * @param delete      whether the files reported are deleted too
 */
record SweepRequest(long olderThanMs, boolean delete) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("older-than-ms", "delete");

    /**
     * @param floorMs the least safety age ({@link OrphanSweep#floorMs()}), also the default
     */
    static SweepRequest parse(byte[] body, long floorMs) {
        if (body == null || body.length == 0) return new SweepRequest(floorMs, false);
        JsonNode b;
        try {
            b = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("Invalid orphan sweep request: not JSON (" + e.getMessage() + ")");
        }
        if (b == null || !b.isObject()) throw new IllegalArgumentException("Invalid orphan sweep request: the body must be a JSON object");
        for (Iterator<String> it = b.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) throw new IllegalArgumentException("Invalid orphan sweep request: unknown field " + f);
        }
        long olderThan = floorMs;
        JsonNode age = b.get("older-than-ms");
        if (age != null) {
            if (!age.isIntegralNumber() || !age.canConvertToLong()) {
                throw new IllegalArgumentException("Invalid orphan sweep request: older-than-ms must be an integer (milliseconds)");
            }
            olderThan = age.longValue();
            if (olderThan < floorMs) {
                throw new IllegalArgumentException("Invalid orphan sweep request: older-than-ms " + olderThan + " is below the safety minimum "
                        + floorMs + " ms (the larger of the node's orphan_min_age_ms and request_timeout_ms, the longest a commit can take)");
            }
        }
        JsonNode delete = b.get("delete");
        if (delete != null && !delete.isBoolean()) throw new IllegalArgumentException("Invalid orphan sweep request: delete must be true or false");
        return new SweepRequest(olderThan, delete != null && delete.booleanValue());
    }
}
