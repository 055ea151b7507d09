package lake.wire;

import java.util.Map;

/**
 * One page of a prefix scan on the event bus ({@code lake.v1.kv.scan}),
 * {@code {"prefix","continuation"?,"limit"}}; over HTTP the same fields are the query.
 * {@code continuation} {@code null} (left out) asks for the first page.
 */
public record ScanRequest(String prefix, String continuation, int limit) {
    public static ScanRequest from(Map<String, Object> o) {
        return new ScanRequest(Fields.string(o, "prefix"), Fields.stringOrNull(o, "continuation"), Fields.int32(o, "limit"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("prefix", prefix);
        if (continuation != null) o.put("continuation", continuation);
        o.put("limit", (long) limit);
        return o;
    }
}
