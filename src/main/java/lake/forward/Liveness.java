package lake.forward;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;

import java.net.ConnectException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Learns within a fraction of a second that a node holding forwarded writes has died, without
 * waiting for Hazelcast to drop it (about a second on an idle host, several on a loaded one).
 *
 * <p>While writes sent to a node are unanswered, every {@value #PROBE_MS} ms it opens a TCP
 * connection to that node's HTTP address (as the node announced it in the cluster's membership)
 * and closes it at once. "Connection refused" means nothing listens there any more: the process
 * is gone (the kernel closed its listening socket) or it stopped serving; either way no answer
 * will come, and the writes are reported lost. A connection that opens, or an attempt that times
 * out (a paused node), proves nothing: Hazelcast's departure still covers those.
 *
 * <p>A refusal counts only from an address that accepted a probe before, so an address that does
 * not lead to the node (a wildcard bind address announced as is, a host that means something else
 * from here) can never make a live node look dead; such an address is never probed at all when it
 * is a wildcard. The first write to a node not yet reached is probed at once, while the node most
 * likely lives.
 */
final class Liveness {
    static final long PROBE_MS = 250;
    private static final int CONNECT_TIMEOUT_MS = 1_000;

    private final Vertx vertx;
    private final NetClient net;
    private final Predicate<String> awaited;
    private final Consumer<String> dead;
    /** HTTP address ({@code host:port}) of each node, from the latest membership listing. */
    private final Map<String, String> addresses = new ConcurrentHashMap<>();
    private final Map<String, Long> probes = new ConcurrentHashMap<>();
    /** Addresses that accepted a probe: only their refusals mean anything. */
    private final java.util.Set<String> reached = ConcurrentHashMap.newKeySet();

    /**
     * @param awaited whether writes sent to the node are still unanswered
     * @param dead    told the node that refused a probe (once per refusal)
     */
    Liveness(Vertx vertx, Predicate<String> awaited, Consumer<String> dead) {
        this.vertx = vertx;
        this.net = vertx.createNetClient(new NetClientOptions().setConnectTimeout(CONNECT_TIMEOUT_MS));
        this.awaited = awaited;
        this.dead = dead;
    }

    /** The nodes' HTTP addresses as they announce them; a node not listed keeps its last known one. */
    void learn(Map<String, String> httpAddresses) {
        httpAddresses.forEach((node, address) -> {
            if (isWildcard(address)) addresses.remove(node);
            else addresses.put(node, address);
        });
    }

    private static boolean isWildcard(String address) {
        String host = address.substring(0, address.lastIndexOf(':'));
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.equals("0:0:0:0:0:0:0:0");
    }

    /** Writes were sent to {@code node}: probe it until none is awaited. */
    void watch(String node) {
        probes.computeIfAbsent(node, n -> {
            String address = addresses.get(n);
            if (address != null && !reached.contains(address)) connect(n, address);
            return vertx.setPeriodic(PROBE_MS, id -> probe(n, id));
        });
    }

    private void probe(String node, long timer) {
        if (!awaited.test(node)) {
            vertx.cancelTimer(timer);
            probes.remove(node, timer);
            return;
        }
        String address = addresses.get(node);
        if (address != null) connect(node, address);
    }

    private void connect(String node, String address) {
        int colon = address.lastIndexOf(':');
        net.connect(Integer.parseInt(address.substring(colon + 1)), address.substring(0, colon))
                .onSuccess(socket -> {
                    reached.add(address);
                    socket.close();
                })
                .onFailure(t -> {
                    if (refused(t) && reached.contains(address)) dead.accept(node);
                });
    }

    static boolean refused(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ConnectException && c.getMessage() != null && c.getMessage().contains("refused")) return true;
        }
        return false;
    }

    void close() {
        for (Long timer : probes.values()) vertx.cancelTimer(timer);
        probes.clear();
        net.close();
    }
}
