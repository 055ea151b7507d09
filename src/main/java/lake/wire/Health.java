package lake.wire;

import java.util.Map;

/** {@code GET /health}, {@code {"status":"up","node_id"}}: the process runs (whether it leads is {@code /ready}'s business). */
public record Health(String status, String nodeId) {
    public static final String UP = "up";

    public static Health from(Map<String, Object> o) {
        return new Health(Fields.string(o, "status"), Fields.string(o, "node_id"));
    }

    public Map<String, Object> toMap() { return Fields.of("status", status, "node_id", nodeId); }
}
