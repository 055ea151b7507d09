package lake.client.model;

import lake.wire.Fields;

import java.util.Map;

/**
 * One endpoint's health as the client sums it up (not a wire shape: the node's own answer is
 * {@link lake.wire.Health}): whether it answered {@code /health} ({@code up}), its node id,
 * whether it can take writes now ({@code ready}: it leads), and why not when it is down (the
 * connection error).
 */
public record NodeHealth(String endpoint, boolean up, String nodeId, boolean ready, String error) {
    /** {@code {"endpoint","status","node_id","ready","error"}}, the form {@code lakectl health -o json} prints. */
    public Map<String, Object> toMap() {
        return Fields.of("endpoint", endpoint, "status", up ? "up" : "down", "node_id", nodeId, "ready", ready, "error", error);
    }
}
