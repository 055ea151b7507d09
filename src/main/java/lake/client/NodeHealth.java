package lake.client;

/**
 * One endpoint's health: whether it answered {@code /health} ({@code up}), its node id, whether it
 * can take writes now ({@code ready}: it leads), and why not when it is down (the connection error).
 */
public record NodeHealth(String endpoint, boolean up, String nodeId, boolean ready, String error) {
    /** The form {@code lakectl health -o json} prints. */
    public String toJson() {
        return Json.write(Json.object("endpoint", endpoint, "status", up ? "up" : "down", "node_id", nodeId,
                "ready", ready, "error", error));
    }
}
