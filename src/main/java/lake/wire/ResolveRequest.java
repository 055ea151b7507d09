package lake.wire;

import java.util.Map;

/**
 * A resolve on the event bus, {@code {"namespace","name","known_version"?,"wait_ms"?}}; over HTTP
 * the names are the path and the rest the query. With {@code knownVersion} (unsigned 64-bit) the
 * answer is a {@link TableChange}, waiting up to {@code waitMs} for one; each is left out when
 * {@code null}.
 */
public record ResolveRequest(String namespace, String name, Long knownVersion, Long waitMs) {
    public static ResolveRequest from(Map<String, Object> o) {
        return new ResolveRequest(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.u64OrNull(o, "known_version"),
                Fields.u64OrNull(o, "wait_ms"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("namespace", namespace, "name", name);
        if (knownVersion != null) o.put("known_version", Fields.u64Value(knownVersion));
        if (waitMs != null) o.put("wait_ms", waitMs);
        return o;
    }
}
