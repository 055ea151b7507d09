package lake.wire;

import java.util.Map;

/**
 * {@code GET /v1/leader}, {@code {"node_id","role","leader","epoch","expires_at_ms"}}: the
 * answering node and its own role, and the unexpired lease record in the store — {@code leader},
 * {@code epoch} and {@code expiresAtMs} are all {@code null} when there is none (present in the
 * JSON as {@code null}). {@code epoch} is unsigned 64-bit.
 */
public record LeaderInfo(String nodeId, String role, String leader, Long epoch, Long expiresAtMs) {
    public static LeaderInfo from(Map<String, Object> o) {
        return new LeaderInfo(Fields.string(o, "node_id"), Fields.string(o, "role"), Fields.stringOrNull(o, "leader"),
                Fields.u64OrNull(o, "epoch"), Fields.u64OrNull(o, "expires_at_ms"));
    }

    public Map<String, Object> toMap() {
        return Fields.of("node_id", nodeId, "role", role, "leader", leader,
                "epoch", epoch == null ? null : Fields.u64Value(epoch), "expires_at_ms", expiresAtMs);
    }
}
