package lake.cluster;

import com.hazelcast.cluster.Member;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.spi.cluster.NodeInfo;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.net.ConnectException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Learns within a fraction of a second that a node holding this node's forwarded writes died,
 * without waiting for Hazelcast to drop it (0.4 s on an idle host, 4 s seen on a loaded one).
 *
 * <p>One per node. While writes sent to a node are unanswered ({@link #sent}/{@link #answered}),
 * every {@value #PROBE_MS} ms it opens a TCP connection to that node's <em>clustered event-bus</em>
 * address (where the writes went; it must be reachable from every member, and it closes only
 * when the node's Vert.x closes, after a graceful stop has answered its writes, or when the
 * process dies) and closes it at once. "Connection refused" from an address that accepted a probe before means the process is
 * gone: the node id is published on {@link Clustering#MEMBER_LEFT} with the header
 * {@value #REASON_HEADER}, and each forwarder answers its writes to that node. An accepted
 * connection or a timeout (a paused node) proves nothing: Hazelcast's departure covers those.
 *
 * <p>Addresses are kept per Vert.x node id (new at every start, so a restarted node is a new
 * member with a new address), looked up from Vert.x's node registry at the first write to it;
 * a member is probed at once when a write is sent to it while its address is known and it was
 * not reached yet, otherwise at the next round. Only "connection refused" counts (ECONNREFUSED:
 * a live process behind a firewall REJECT rule looks the same); any other connect error (no
 * route, local port exhaustion, a timeout) proves nothing. A lost host, a partition or a paused
 * node are left to Hazelcast.
 */
public final class Liveness {
    public static final long PROBE_MS = 250;
    /** Why a member was published as gone: {@link #PROBED} or {@link #DROPPED}. */
    public static final String REASON_HEADER = "lake-reason";
    public static final String PROBED = "nothing listens at its event-bus address any more";
    public static final String DROPPED = "Hazelcast dropped it";
    private static final int CONNECT_TIMEOUT_MS = 1_000;

    /** A member as this node can reach it: its Vert.x node id and its event-bus address. */
    record Target(String member, String host, int port) {}

    /** Where a node's writes went: its current member and event-bus address, when known. */
    interface AddressBook {
        /** The node's member now, and its address once known (a lookup may be started). */
        Optional<Target> target(String node);
    }

    private final Vertx vertx;
    private final AddressBook book;
    private final NetClient net;
    private final Map<String, AtomicInteger> unanswered = new ConcurrentHashMap<>();
    /** Members (by Vert.x node id) whose address accepted a probe: only their refusals count. */
    private final Set<String> reached = ConcurrentHashMap.newKeySet();
    private final long timer;

    Liveness(Vertx vertx, AddressBook book) {
        this.vertx = vertx;
        this.book = book;
        this.net = vertx.createNetClient(new NetClientOptions().setConnectTimeout(CONNECT_TIMEOUT_MS));
        this.timer = vertx.setPeriodic(PROBE_MS, id -> probeAll());
    }

    /** For a clustered node over Hazelcast; empty when {@code vertx} is not one. */
    public static Optional<Liveness> of(Vertx vertx) {
        if (!(vertx instanceof VertxInternal vi) || !(vi.clusterManager() instanceof HazelcastClusterManager hz)) return Optional.empty();
        return Optional.of(new Liveness(vertx, new HazelcastBook(hz)));
    }

    /** A write was sent to {@code node}. */
    public void sent(String node) {
        int now = unanswered.computeIfAbsent(node, n -> new AtomicInteger()).incrementAndGet();
        if (now == 1) target(node).filter(t -> !reached.contains(t.member())).ifPresent(t -> probe(node, t));
    }

    /** A write sent to {@code node} was answered (or given up). */
    public void answered(String node) {
        AtomicInteger n = unanswered.get(node);
        if (n != null) n.decrementAndGet();
    }

    private void probeAll() {
        unanswered.forEach((node, n) -> {
            if (n.get() > 0) target(node).ifPresent(t -> probe(node, t));
        });
    }

    /** The book's answer; a failing book (Hazelcast shutting down) proves nothing. */
    Optional<Target> target(String node) {
        try {
            return book.target(node);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private void probe(String node, Target t) {
        if (t.port() <= 0) return;
        net.connect(t.port(), t.host()).onComplete(ar -> {
            if (ar.succeeded()) {
                reached.add(t.member());
                ar.result().close();
            } else if (refused(ar.cause()) && reached.remove(t.member())) {
                vertx.eventBus().publish(Clustering.MEMBER_LEFT, node,
                        new DeliveryOptions().setLocalOnly(true).addHeader(REASON_HEADER, PROBED));
            }
        });
    }

    /**
     * ECONNREFUSED only: the JDK's transport says "Connection refused"; Netty's epoll transport the
     * same (strerror) or, for errors it does not name, "error(-111)". Any other connect failure
     * (including a timeout, whose exception is a ConnectException too) is not a refusal.
     */
    static boolean refused(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ConnectException && !(c instanceof io.netty.channel.ConnectTimeoutException) && c.getMessage() != null
                    && (c.getMessage().contains("Connection refused") || c.getMessage().contains("error(-111)"))) {
                return true;
            }
        }
        return false;
    }

    public void close() {
        vertx.cancelTimer(timer);
        net.close();
    }

    /**
     * Members from Hazelcast's local member list (no remote call), each with the node id it carries
     * ({@link Clustering#NODE_ATTRIBUTE}); event-bus addresses from Vert.x's node registry, looked
     * up once per member and cached.
     */
    private static final class HazelcastBook implements AddressBook {
        /** The member attribute in which vertx-hazelcast keeps a member's Vert.x node id. */
        private static final String VERTX_NODE_ID = "__vertx.nodeId";
        private final HazelcastClusterManager hz;
        private final Map<String, Target> known = new ConcurrentHashMap<>();
        private final Set<String> looking = ConcurrentHashMap.newKeySet();

        HazelcastBook(HazelcastClusterManager hz) {
            this.hz = hz;
        }

        @Override
        public Optional<Target> target(String node) {
            for (Member m : hz.getHazelcastInstance().getCluster().getMembers()) {
                if (!node.equals(m.getAttribute(Clustering.NODE_ATTRIBUTE))) continue;
                // Vert.x's node id is a member attribute of its own, not Hazelcast's member UUID.
                String id = m.getAttribute(VERTX_NODE_ID);
                if (id == null) return Optional.empty();
                Target t = known.get(id);
                if (t == null && looking.add(id)) {
                    Promise<NodeInfo> info = Promise.promise();
                    hz.getNodeInfo(id, info);
                    info.future().onComplete(ar -> {
                        if (ar.succeeded() && ar.result() != null) known.put(id, new Target(id, ar.result().host(), ar.result().port()));
                        looking.remove(id);
                    });
                }
                return Optional.ofNullable(t);
            }
            return Optional.empty();
        }
    }
}
