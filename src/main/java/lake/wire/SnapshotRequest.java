package lake.wire;

import java.util.Map;

/**
 * A catalog snapshot on the event bus, {@code {"known_generation"?,"wait_ms"?}}; over HTTP the
 * query. With {@code knownGeneration} the answer may be not modified, after waiting up to
 * {@code waitMs} for a change; each is left out when {@code null}.
 */
public record SnapshotRequest(String knownGeneration, Long waitMs) {
    public static SnapshotRequest from(Map<String, Object> o) {
        return new SnapshotRequest(Fields.stringOrNull(o, "known_generation"), Fields.u64OrNull(o, "wait_ms"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of();
        if (knownGeneration != null) o.put("known_generation", knownGeneration);
        if (waitMs != null) o.put("wait_ms", waitMs);
        return o;
    }
}
