package lake.wire;

import java.util.Map;

/**
 * A version commit, {@code {"namespace","name","expected_version","version","incarnation_id"?}}
 * on the event bus; over HTTP ({@code POST …/tables/{name}/versions}) the names are the path and
 * the body {@link #httpBody()}. Versions are unsigned 64-bit; {@code incarnationId} {@code null}
 * (left out) accepts any incarnation.
 */
public record CommitVersionRequest(String namespace, String name, long expectedVersion, long version, String incarnationId) {
    public static CommitVersionRequest from(Map<String, Object> o) {
        return new CommitVersionRequest(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.u64(o, "expected_version"),
                Fields.u64(o, "version"), Fields.stringOrNull(o, "incarnation_id"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("namespace", namespace, "name", name);
        o.putAll(httpBody());
        return o;
    }

    /** {@code {"expected_version","version","incarnation_id"?}}: {@link #toMap()} without the names the path carries. */
    public Map<String, Object> httpBody() {
        Map<String, Object> o = Fields.of("expected_version", Fields.u64Value(expectedVersion), "version", Fields.u64Value(version));
        if (incarnationId != null) o.put("incarnation_id", incarnationId);
        return o;
    }
}
