package lake.wire;

import java.util.Map;

/**
 * A page of a catalog listing on the event bus — namespaces and tombstones ({@code namespace}
 * {@code null}), or the tables of {@code namespace}: {@code {"namespace"?,"limit","continuation"?}};
 * over HTTP the namespace is the path and the rest the query. {@code continuation} {@code null}
 * (left out) asks for the first page.
 */
public record PageRequest(String namespace, int limit, String continuation) {
    public static PageRequest from(Map<String, Object> o) {
        return new PageRequest(Fields.stringOrNull(o, "namespace"), Fields.int32(o, "limit"), Fields.stringOrNull(o, "continuation"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of();
        if (namespace != null) o.put("namespace", namespace);
        o.put("limit", (long) limit);
        if (continuation != null) o.put("continuation", continuation);
        return o;
    }
}
