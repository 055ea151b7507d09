package lake.wire;

import java.util.Map;

/** A get or drop of a namespace on the event bus, {@code {"namespace"}}; over HTTP the name is the path. */
public record NamespaceRequest(String namespace) {
    public static NamespaceRequest from(Map<String, Object> o) { return new NamespaceRequest(Fields.string(o, "namespace")); }

    public Map<String, Object> toMap() { return Fields.of("namespace", namespace); }
}
