package lake.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The members of a Metasrv cluster as they announce themselves: each node keeps an entry (node
 * id, role, epoch, HTTP address) in a cluster-wide map with a short TTL and refreshes it, so a
 * dead or paused node disappears by itself.
 */
public final class Membership {
    public static final String MAP = "lake.members";
    public static final long ENTRY_TTL_MS = 3_000;

    private final Vertx vertx;

    public Membership(Vertx vertx) {
        this.vertx = vertx;
    }

    private Future<AsyncMap<String, JsonObject>> map() {
        return vertx.sharedData().getAsyncMap(MAP);
    }

    public Future<Void> announce(JsonObject member) {
        return map().compose(m -> m.put(member.getString("node_id"), member, ENTRY_TTL_MS));
    }

    public Future<Void> withdraw(String nodeId) {
        return map().compose(m -> m.remove(nodeId)).mapEmpty();
    }

    /** Members in node-id order. */
    public Future<JsonArray> list() {
        return map().compose(AsyncMap::entries).map(entries -> {
            List<JsonObject> members = new ArrayList<>(entries.values());
            members.sort(Comparator.comparing(o -> o.getString("node_id")));
            return new JsonArray(new ArrayList<>(members));
        });
    }
}
