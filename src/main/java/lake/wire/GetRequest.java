package lake.wire;

import java.util.Map;

/** A get on the event bus ({@code lake.v1.kv.get}), {@code {"key"}}; over HTTP the key is the path. */
public record GetRequest(String key) {
    public static GetRequest from(Map<String, Object> o) { return new GetRequest(Fields.string(o, "key")); }

    public Map<String, Object> toMap() { return Fields.of("key", key); }
}
