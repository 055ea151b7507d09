package lake.it;

import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.awaitility.Awaitility.await;

/** Three Metasrv fat-jar processes forming a cluster on loopback (also driven by the fault campaign, {@code lake.chaos}). */
public final class ClusterHarness implements AutoCloseable {
    public static final long TTL_MS = 3_000;
    public static final long RENEW_MS = 1_000;
    /**
     * Request and store timeouts for nodes under faults: a request without an answer becomes a
     * 504 (unknown outcome) after 3 s, a store call gives up after 2 s.
     */
    public static final long STORE_TIMEOUT_MS = 2_000;
    public static final List<String> FAULT_TIMEOUTS = List.of("--request-timeout-ms", "3000", "--store-timeout-ms", String.valueOf(STORE_TIMEOUT_MS));

    public record Node(String id, int httpPort, int hzPort, List<String> args, MetasrvProcess process) {
        public boolean alive() {
            return process.process.isAlive();
        }
    }

    public final List<Node> nodes = new ArrayList<>();
    public final String clusterName;

    private final Map<String, String> env;

    private ClusterHarness(String clusterName, Map<String, String> env) {
        this.clusterName = clusterName;
        this.env = env;
    }

    /** Every port {@link #freePort} returned (or tried) in this JVM: none is handed out twice. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A port that is free now, below Linux's ephemeral range (32768-60999): a restarted node binds
     * its old ports again, and a port from the ephemeral range may meanwhile have become the local
     * end of some outgoing connection (seen in the fault campaign: "Port … is already in use").
     * Falls back to an ephemeral port after a bounded number of tries.
     */
    public static int freePort() throws IOException {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = random.nextInt(20_000, 32_000);
            // Free now is not enough: a port handed out before may not be bound yet, and two nodes
            // of one cluster given the same port fail to start (seen in the suite: "Address already in use").
            if (!HANDED_OUT.add(port)) continue;
            try (ServerSocket s = new ServerSocket(port, 50, java.net.InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // Try another.
            }
        }
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts three nodes. {@code storeArgs.get(i)} are node i's store options; {@code env} is given
     * to every process.
     */
    public static ClusterHarness start(Path dir, List<List<String>> storeArgs, Map<String, String> env) throws Exception {
        return start(dir, storeArgs, env, TTL_MS);
    }

    /** As {@link #start(Path, List, Map)}, with leases of {@code ttlMs} (renewed every {@link #RENEW_MS}). */
    public static ClusterHarness start(Path dir, List<List<String>> storeArgs, Map<String, String> env, long ttlMs) throws Exception {
        ClusterHarness h = new ClusterHarness("lake-it-" + freePort(), env);
        int[] hz = {freePort(), freePort(), freePort()};
        String members = "127.0.0.1:" + hz[0] + ",127.0.0.1:" + hz[1] + ",127.0.0.1:" + hz[2];
        for (int i = 0; i < 3; i++) {
            String id = "n" + (i + 1);
            int http = freePort();
            List<String> args = new ArrayList<>(List.of("--node-id", id, "--data-dir", dir.resolve(id).toString(),
                    "--http-port", String.valueOf(http), "--lease-ttl-ms", String.valueOf(ttlMs),
                    "--lease-renew-ms", String.valueOf(RENEW_MS), "--cluster", "--cluster-name", h.clusterName,
                    "--cluster-host", "127.0.0.1", "--cluster-port", String.valueOf(hz[i]), "--cluster-members", members));
            args.addAll(storeArgs.get(i));
            h.nodes.add(new Node(id, http, hz[i], args, MetasrvProcess.start(args, env)));
        }
        try {
            for (Node n : h.nodes) n.process().awaitListening(Duration.ofSeconds(90));
        } catch (Throwable t) {
            // The caller gets no harness to close: stop the nodes that did start (and keep their logs).
            h.close();
            throw t;
        }
        return h;
    }

    /** Kills {@code n} if it still runs (resuming it first if paused) and starts it again on the same data. */
    public Node restart(Node n) throws Exception {
        return restart(n, List.of(), Map.of());
    }

    /**
     * {@link #restart(Node)} under {@code wrapper} (a command that execs the jar, such as
     * {@code faketime -f +5s}) with {@code extraEnv} added to the cluster's environment.
     */
    public Node restart(Node n, List<String> wrapper, Map<String, String> extraEnv) throws Exception {
        Node again = restartNoWait(n, wrapper, extraEnv);
        again.process().awaitListening(Duration.ofSeconds(90));
        return again;
    }

    /** {@link #restart(Node, List, Map)} without waiting for the new process to listen. */
    public Node restartNoWait(Node n, List<String> wrapper, Map<String, String> extraEnv) throws Exception {
        if (n.alive()) {
            n.process().signal("CONT");
            n.process().kill();
        }
        saveLogs(n, "-" + System.nanoTime());
        Map<String, String> processEnv = new java.util.HashMap<>(env);
        processEnv.putAll(extraEnv);
        Node again = new Node(n.id(), n.httpPort(), n.hzPort(), n.args(), MetasrvProcess.start(wrapper, n.args(), processEnv));
        nodes.set(nodes.indexOf(n), again);
        return again;
    }

    public Node node(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
    }

    public static JsonObject leaderView(Node n) {
        try {
            HttpResponse<String> r = MetasrvProcess.get(n.httpPort(), "/v1/leader");
            return r.statusCode() == 200 ? new JsonObject(r.body()) : new JsonObject();
        } catch (Exception unreachable) {
            return new JsonObject();
        }
    }

    /** The leader every answering node among {@code askable} agrees on, once there is one. */
    public Node awaitLeader(Duration limit, List<Node> askable, long minEpoch) {
        String[] leader = new String[1];
        await().atMost(limit).pollInterval(Duration.ofMillis(25)).until(() -> {
            for (Node n : askable) {
                JsonObject v = leaderView(n);
                if (v.getString("leader") != null && v.getLong("epoch") >= minEpoch) {
                    leader[0] = v.getString("leader");
                    return "leader".equals(leaderView(node(leader[0])).getString("role"));
                }
            }
            return false;
        });
        return node(leader[0]);
    }

    public List<Node> others(Node n) {
        return nodes.stream().filter(x -> x != n).toList();
    }

    /**
     * The value at {@code key} read through {@code via}. Reads retry (bounded) while the store is
     * unreachable: after a fault the cluster may take seconds to re-form (a paused Hazelcast master
     * leaves the others re-electing one), and the assertions are about durability, not availability.
     */
    public static Optional<String> value(Node via, String key) throws Exception {
        HttpResponse<String>[] last = new HttpResponse[1];
        await().atMost(Duration.ofSeconds(45)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> {
            last[0] = MetasrvProcess.get(via.httpPort(), "/v1/kv/" + key);
            return last[0].statusCode() == 200 || last[0].statusCode() == 404;
        });
        if (last[0].statusCode() == 404) return Optional.empty();
        return Optional.of(new JsonObject(last[0].body()).getString("value"));
    }

    /** The epoch {@code n} reports in {@code /v1/leader}, asked again (bounded) while it does not answer in time. */
    public static long epochOf(Node n) {
        Long[] epoch = new Long[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> (epoch[0] = leaderView(n).getLong("epoch")) != null);
        return epoch[0];
    }

    /** Every node is up and sees the whole cluster (three members) in its {@code /v1/cluster}. */
    public void awaitThreeMembers(Duration limit) {
        await().atMost(limit).until(() -> {
            for (Node n : nodes) {
                HttpResponse<String> r = MetasrvProcess.get(n.httpPort(), "/v1/cluster");
                if (r.statusCode() != 200 || new JsonObject(r.body()).getJsonArray("members").size() != 3) return false;
            }
            return true;
        });
    }

    /**
     * A stable leader that is not {@code storeHost} (a RocksDB store host's loss takes the store
     * with it, which is not a failover): a store host that leads is asked to resign first.
     */
    public Node faultableLeader(String storeHost) throws Exception {
        Node leader = awaitLeader(Duration.ofSeconds(30), nodes, 1);
        if (leader.id().equals(storeHost)) {
            long epoch = epochOf(leader);
            String resigned = MetasrvProcess.post(leader.httpPort(), "/v1/leader/resign", "{}").body();
            if (!resigned.contains("true")) throw new IllegalStateException("store host " + storeHost + " did not resign: " + resigned);
            leader = awaitLeader(Duration.ofSeconds(10), others(leader), epoch + 1);
        }
        return leader;
    }

    /** Keeps every node's output under target/cluster-it-logs for diagnosis. */
    private void saveLogs(Node n, String suffix) {
        try {
            Path logs = Path.of("target", "cluster-it-logs", clusterName);
            java.nio.file.Files.createDirectories(logs);
            java.nio.file.Files.write(logs.resolve(n.id() + suffix + ".out"), n.process().stdout);
            java.nio.file.Files.write(logs.resolve(n.id() + suffix + ".err"), n.process().stderr);
        } catch (IOException e) {
            System.err.println("could not save logs of " + n.id() + ": " + e);
        }
    }

    @Override
    public void close() throws Exception {
        for (Node n : nodes) saveLogs(n, "");
        for (Node n : nodes) {
            if (n.process().process.isAlive()) {
                try {
                    n.process().signal("CONT");
                } catch (IOException ignored) {
                    // Already gone.
                }
            }
            n.process().close();
        }
    }
}
