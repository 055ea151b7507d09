package lake.client;

import java.util.Map;

/**
 * {@code GET /v1/leader}: the answering node and its own role, and the unexpired lease record in
 * the store — {@code leader}, {@code epoch} and {@code expiresAtMs} are all {@code null} when there
 * is none. {@code epoch} is unsigned 64-bit.
 */
public record LeaderInfo(String nodeId, String role, String leader, Long epoch, Long expiresAtMs) {
    static LeaderInfo from(Map<String, Object> o) {
        return new LeaderInfo(Json.string(o, "node_id"), Json.string(o, "role"), Json.stringOrNull(o, "leader"),
                Json.u64OrNull(o, "epoch"), Json.u64OrNull(o, "expires_at_ms"));
    }

    /** The API's JSON. */
    public String toJson() {
        return Json.write(Json.object("node_id", nodeId, "role", role, "leader", leader,
                "epoch", epoch == null ? null : Json.u64Value(epoch), "expires_at_ms", expiresAtMs));
    }
}
