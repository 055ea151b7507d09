package lake.chaos;

import io.vertx.core.json.JsonObject;
import lake.it.ClusterHarness;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Samples, every {@link #PERIOD}, the lease record in the store (read through a node, in turn)
 * and every node's own view of its role ({@code /v1/leader}), for the fencing checks.
 */
final class LeaseMonitor implements AutoCloseable {
    static final Duration PERIOD = Duration.ofMillis(250);
    /** A short timeout, so a paused node costs one sample, not the monitor's whole period. */
    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    /** The lease record as read from the store between {@code call} and {@code ret}. */
    record LeaseSample(long call, long ret, String holder, long epoch, long expiresAtMs) {}

    /**
     * A node's {@code /v1/leader}: its own belief ({@code role}) and the store's current lease
     * ({@code leader}, {@code epoch}), answered between {@code call} and {@code ret}.
     */
    record RoleSample(long call, long ret, String node, String role, String leader, Long epoch) {}

    final List<LeaseSample> leases = new CopyOnWriteArrayList<>();
    final List<RoleSample> roles = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;
    private final String leaseKey;

    LeaseMonitor(ClusterHarness cluster, String leaseKey) {
        this.leaseKey = leaseKey;
        this.thread = new Thread(() -> run(cluster), "chaos-lease-monitor");
        thread.setDaemon(true);
        thread.start();
    }

    private void run(ClusterHarness cluster) {
        int turn = 0;
        while (!stop.get()) {
            long started = System.nanoTime();
            List<ClusterHarness.Node> nodes = List.copyOf(cluster.nodes);
            ClusterHarness.Node via = nodes.get(turn++ % nodes.size());
            // Short, like the role probes: a paused node in turn costs one sample, not six seconds of them.
            Op read = Workload.get(-1, new Workload.Target(via.id(), via.httpPort()), leaseKey, Duration.ofSeconds(1));
            if (read.outcome() == Op.Outcome.OK && read.read() != null) {
                JsonObject lease = new JsonObject(read.read());
                leases.add(new LeaseSample(read.call(), read.ret(), lease.getString("holder"), lease.getLong("epoch", 0L),
                        lease.getLong("expires_at_ms")));
            }
            for (ClusterHarness.Node n : nodes) {
                long call = System.nanoTime();
                try {
                    HttpResponse<String> r = HTTP.send(java.net.http.HttpRequest.newBuilder(
                                    java.net.URI.create("http://127.0.0.1:" + n.httpPort() + "/v1/leader")).timeout(Duration.ofSeconds(1)).GET().build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        JsonObject v = new JsonObject(r.body());
                        roles.add(new RoleSample(call, System.nanoTime(), n.id(), v.getString("role"), v.getString("leader"), v.getLong("epoch")));
                    }
                } catch (Exception unreachable) {
                    // Paused, killed or restarting: no sample.
                }
            }
            long left = PERIOD.toNanos() - (System.nanoTime() - started);
            if (left > 0) java.util.concurrent.locks.LockSupport.parkNanos(left);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(Duration.ofSeconds(30).toMillis());
    }
}
