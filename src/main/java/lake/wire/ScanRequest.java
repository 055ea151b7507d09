package lake.wire;

import java.util.Map;

/**
 * One page of a prefix scan on the event bus ({@code lake.v1.kv.scan}),
 * {@code {"prefix","continuation"?,"limit","hide_system"?}}; over HTTP the same fields are the query.
 * {@code continuation} {@code null} (left out) asks for the first page. {@code hide_system} (left
 * out: false) leaves out Metasrv's own keys — the catalog's and the lease key — unless the prefix
 * names their range; a page may then be short, or empty with a continuation.
 */
public record ScanRequest(String prefix, String continuation, int limit, boolean hideSystem) {
    public ScanRequest(String prefix, String continuation, int limit) {
        this(prefix, continuation, limit, false);
    }

    public static ScanRequest from(Map<String, Object> o) {
        return new ScanRequest(Fields.string(o, "prefix"), Fields.stringOrNull(o, "continuation"), Fields.int32(o, "limit"),
                o.get("hide_system") != null && Fields.bool(o, "hide_system"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("prefix", prefix);
        if (continuation != null) o.put("continuation", continuation);
        o.put("limit", (long) limit);
        // Sent only when asked: a server from before hide_system refuses fields it does not know.
        if (hideSystem) o.put("hide_system", true);
        return o;
    }
}
