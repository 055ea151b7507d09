package lake.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code GET /v1/cluster}: the answering node and the members as they announce themselves. */
public record ClusterInfo(String nodeId, List<Member> members) {
    public ClusterInfo {
        members = List.copyOf(members);
    }

    /** One member: its id, role, the epoch it knows ({@code null} if none) and its HTTP port ({@code null} if not announced). */
    public record Member(String nodeId, String role, Long epoch, Integer httpPort) {}

    static ClusterInfo from(Map<String, Object> o) {
        List<Member> members = new ArrayList<>();
        for (Map<String, Object> m : Json.objects(o, "members")) {
            members.add(new Member(Json.string(m, "node_id"), Json.stringOrNull(m, "role"), Json.u64OrNull(m, "epoch"),
                    m.get("http_port") instanceof Long n ? n.intValue() : null));
        }
        return new ClusterInfo(Json.string(o, "node_id"), members);
    }

    /** The API's JSON. */
    public String toJson() {
        List<Object> a = new ArrayList<>();
        for (Member m : members) {
            a.add(Json.object("node_id", m.nodeId(), "role", m.role(),
                    "epoch", m.epoch() == null ? null : Json.u64Value(m.epoch()), "http_port", m.httpPort()));
        }
        return Json.write(Json.object("node_id", nodeId, "members", a));
    }
}
