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

/** Three Metasrv fat-jar processes forming a cluster on loopback. */
final class ClusterHarness implements AutoCloseable {
    static final long TTL_MS = 3_000;
    static final long RENEW_MS = 1_000;

    record Node(String id, int httpPort, int hzPort, List<String> args, MetasrvProcess process) {
        boolean alive() {
            return process.process.isAlive();
        }
    }

    final List<Node> nodes = new ArrayList<>();
    final String clusterName;

    private final Map<String, String> env;

    private ClusterHarness(String clusterName, Map<String, String> env) {
        this.clusterName = clusterName;
        this.env = env;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts three nodes. {@code storeArgs.get(i)} are node i's store options; {@code env} is given
     * to every process.
     */
    static ClusterHarness start(Path dir, List<List<String>> storeArgs, Map<String, String> env) throws Exception {
        ClusterHarness h = new ClusterHarness("lake-it-" + freePort(), env);
        int[] hz = {freePort(), freePort(), freePort()};
        String members = "127.0.0.1:" + hz[0] + ",127.0.0.1:" + hz[1] + ",127.0.0.1:" + hz[2];
        for (int i = 0; i < 3; i++) {
            String id = "n" + (i + 1);
            int http = freePort();
            List<String> args = new ArrayList<>(List.of("--node-id", id, "--data-dir", dir.resolve(id).toString(),
                    "--http-port", String.valueOf(http), "--lease-ttl-ms", String.valueOf(TTL_MS),
                    "--lease-renew-ms", String.valueOf(RENEW_MS), "--cluster", "--cluster-name", h.clusterName,
                    "--cluster-host", "127.0.0.1", "--cluster-port", String.valueOf(hz[i]), "--cluster-members", members));
            args.addAll(storeArgs.get(i));
            h.nodes.add(new Node(id, http, hz[i], args, MetasrvProcess.start(args, env)));
        }
        for (Node n : h.nodes) n.process().awaitListening(Duration.ofSeconds(90));
        return h;
    }

    /** Kills {@code n} if it still runs (resuming it first if paused) and starts it again on the same data. */
    Node restart(Node n) throws Exception {
        if (n.alive()) {
            n.process().signal("CONT");
            n.process().kill();
        }
        saveLogs(n, "-" + System.nanoTime());
        Node again = new Node(n.id(), n.httpPort(), n.hzPort(), n.args(), MetasrvProcess.start(n.args(), env));
        nodes.set(nodes.indexOf(n), again);
        again.process().awaitListening(Duration.ofSeconds(90));
        return again;
    }

    Node node(String id) {
        return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
    }

    static JsonObject leaderView(Node n) {
        try {
            HttpResponse<String> r = MetasrvProcess.get(n.httpPort(), "/v1/leader");
            return r.statusCode() == 200 ? new JsonObject(r.body()) : new JsonObject();
        } catch (Exception unreachable) {
            return new JsonObject();
        }
    }

    /** The leader every answering node among {@code askable} agrees on, once there is one. */
    Node awaitLeader(Duration limit, List<Node> askable, long minEpoch) {
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

    List<Node> others(Node n) {
        return nodes.stream().filter(x -> x != n).toList();
    }

    /**
     * The value at {@code key} read through {@code via}. Reads retry (bounded) while the store is
     * unreachable: after a fault the cluster may take seconds to re-form (a paused Hazelcast master
     * leaves the others re-electing one), and the assertions are about durability, not availability.
     */
    static Optional<String> value(Node via, String key) throws Exception {
        HttpResponse<String>[] last = new HttpResponse[1];
        await().atMost(Duration.ofSeconds(45)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> {
            last[0] = MetasrvProcess.get(via.httpPort(), "/v1/kv/" + key);
            return last[0].statusCode() == 200 || last[0].statusCode() == 404;
        });
        if (last[0].statusCode() == 404) return Optional.empty();
        return Optional.of(new JsonObject(last[0].body()).getString("value"));
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
