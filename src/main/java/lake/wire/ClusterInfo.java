package lake.wire;

import java.util.List;
import java.util.Map;

/** {@code GET /v1/cluster}, {@code {"node_id","members":[…]}}: the answering node and the members as they announce themselves. */
public record ClusterInfo(String nodeId, List<Member> members) {
    public ClusterInfo {
        members = List.copyOf(members);
    }

    /**
     * One member as it announces itself, {@code {"node_id","role","epoch","http_host","http_port","seen_at_ms"}}
     * (every member present, {@code null} when unknown): its role, the epoch it leads
     * ({@code null} unless it leads), its HTTP address, and when it last refreshed its entry (its
     * own wall clock).
     */
    public record Member(String nodeId, String role, Long epoch, String httpHost, Integer httpPort, Long seenAtMs) {
        public static Member from(Map<String, Object> o) {
            return new Member(Fields.string(o, "node_id"), Fields.string(o, "role"), Fields.u64OrNull(o, "epoch"),
                    Fields.stringOrNull(o, "http_host"), Fields.int32OrNull(o, "http_port"), Fields.u64OrNull(o, "seen_at_ms"));
        }

        public Map<String, Object> toMap() {
            return Fields.of("node_id", nodeId, "role", role, "epoch", epoch == null ? null : Fields.u64Value(epoch),
                    "http_host", httpHost, "http_port", httpPort, "seen_at_ms", seenAtMs);
        }
    }

    public static ClusterInfo from(Map<String, Object> o) {
        return new ClusterInfo(Fields.string(o, "node_id"), Fields.records(o, "members", Member::from));
    }

    public Map<String, Object> toMap() {
        return Fields.of("node_id", nodeId, "members", Fields.maps(members, Member::toMap));
    }
}
