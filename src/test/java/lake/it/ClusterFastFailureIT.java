package lake.it;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import lake.client.MetasrvClient;
import lake.client.model.ClientOptions;
import lake.client.model.MetasrvException;
import lake.it.ClusterHarness.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fast, honest failures of a cluster node, on three fat-jar processes (a RocksDB store host n1 and
 * two remote nodes) with the default 30 s request timeout, so that an answer within seconds can
 * only come from the fast path: a write in flight at a leader that is SIGKILLed answers
 * {@code 504 outcome_unknown} as soon as the leader's member is gone, on HTTP and on the bus; a
 * node whose HTTP port is taken exits before it campaigns.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterFastFailureIT {
    /** The answer's bound after the kill: Hazelcast drops a killed member in about half a second when idle. */
    static final long ANSWER_WITHIN_MS = 2_000;
    static final String LEFT = "which left the cluster before answering";  // by the probe or by Hazelcast

    Path dir;
    ClusterHarness cluster;

    /**
     * Leases of 10 s (renewed every second): the followers' view of the paused leader stays
     * valid while the writes are set in flight, so nobody takes over before the kill.
     */
    static final long TTL_MS = 10_000;
    @BeforeAll
    void startCluster() throws Exception {
        dir = Files.createTempDirectory("lake-fast-failure-it");
        cluster = ClusterHarness.start(dir, List.of(List.of("--store", "rocks", "--store-role", "host"),
                List.of("--store", "rocks", "--store-role", "remote"),
                List.of("--store", "rocks", "--store-role", "remote")), Map.of(), TTL_MS);
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) cluster.close();
        if (dir != null) {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** A bus request's end: its reply or failure, and when it came. */
    record BusAnswer(JsonObject body, Throwable failure, long doneNanos) {}

    /**
     * The leader is paused (SIGSTOP) so writes are truly in flight at it: two sent over HTTP to
     * the followers (each forwards its own), three sent on the public bus address by a clustered
     * application (round robin: two reach the followers, which forward them, one reaches the
     * leader itself), and one sent by the Java client straight to the leader's HTTP port. Once
     * the followers count four forwarded writes awaiting the leader and the direct write's bytes
     * wait unread in the leader's socket, the leader is SIGKILLed. Every forwarded write answers
     * {@code 504 outcome_unknown} naming the leader's departure within 2 s of the kill; the
     * direct one is the client's, which reports {@code OutcomeUnknown} as fast (its connection is
     * reset); the bus request that reached the leader itself waits for the application's own
     * timeout. None of them applied (the leader never read them), and a new leader takes writes.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void inFlightWriteAtLeaderDeathAnswersWithinTwoSeconds() throws Exception {
        Node leader = cluster.faultableLeader("n1");
        long epoch = ClusterHarness.epochOf(leader);
        List<Node> followers = cluster.others(leader);
        int leaderBus = busPortOf(leader);
        List<String> members = cluster.nodes.stream().map(n -> "127.0.0.1:" + n.hzPort()).toList();
        Vertx app = ClusterFailoverContract.join(ClusteredClientExample.join(cluster.clusterName, members, "127.0.0.1",
                ClusterHarness.freePort()));
        Vertx clientVertx = Vertx.vertx();
        String prefix = "inflight-" + System.nanoTime() + "/";
        try (MetasrvClient direct = MetasrvClient.http(clientVertx, ClientOptions.defaults()
                .withEndpoints(List.of(URI.create("http://127.0.0.1:" + leader.httpPort()))).withCallTimeout(Duration.ofSeconds(30)))) {
            // Warm-up, while the leader runs: each follower forwards a write, and the application
            // writes on the bus, so every sender knows where the addresses live. (A first send to
            // an address looks its handlers up in Hazelcast, whose answer would wait on the paused
            // leader if it owns that entry: the write would then never leave the follower.)
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                java.util.Set<String> answered = new java.util.HashSet<>();
                for (int i = 0; i < 3; i++) {
                    answered.add(ClusterFailoverContract.join(app.eventBus().<JsonObject>request("lake.v1.leader", new JsonObject(),
                            new DeliveryOptions().setSendTimeout(5_000))).body().getString("node_id"));
                }
                return answered.size() == 3;
            });
            for (int i = 0; i < 3; i++) {
                JsonObject warm = new JsonObject().put("key", prefix + "warm-bus-" + i).putNull("expected").put("value", "d2FybQ==");
                assertThat(ClusterFailoverContract.join(app.eventBus().<JsonObject>request("lake.v1.kv.cas", warm,
                        new DeliveryOptions().setSendTimeout(10_000))).body().getBoolean("applied")).isTrue();
            }
            for (Node f : followers) assertThat(WriteLoad.write(prefix + "warm-" + f.id(), f.httpPort(), null).acknowledged()).isTrue();

            // Paused: what reaches the leader now waits unread in its sockets. One write at a time
            // per follower, so each leaves alone (as a lone message, on the address it already knows).
            leader.process().signal("STOP");
            List<CompletableFuture<WriteLoad.Write>> http = new ArrayList<>();
            for (Node f : followers) {
                http.add(CompletableFuture.supplyAsync(() -> WriteLoad.write(prefix + "http-" + f.id(), f.httpPort(), null)));
            }
            CompletableFuture<Long> directDone = new CompletableFuture<>();
            CompletableFuture<Throwable> directFailure = new CompletableFuture<>();
            direct.create(prefix + "direct", "v").onComplete(ar -> {
                directFailure.complete(ar.failed() ? ar.cause() : null);
                directDone.complete(System.nanoTime());
            });
            awaitInFlight(followers, 2, leaderBus, 2, leader.httpPort(), 1);
            // The application's three writes: the bus's round robin takes one to each node.
            List<CompletableFuture<BusAnswer>> bus = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                CompletableFuture<BusAnswer> answer = new CompletableFuture<>();
                JsonObject cas = new JsonObject().put("key", prefix + "bus-" + i).putNull("expected").put("value", "YnVz");
                app.eventBus().<JsonObject>request("lake.v1.kv.cas", cas, new DeliveryOptions().setSendTimeout(8_000))
                        .onComplete(ar -> answer.complete(new BusAnswer(ar.succeeded() ? ar.result().body() : null,
                                ar.failed() ? ar.cause() : null, System.nanoTime())));
                bus.add(answer);
            }
            awaitInFlight(followers, 4, leaderBus, 3, leader.httpPort(), 1);

            long killedAt = System.nanoTime();
            leader.process().kill();

            for (CompletableFuture<WriteLoad.Write> h : http) {
                WriteLoad.Write w = h.get(60, TimeUnit.SECONDS);
                assertThat(w.status()).as("%s: %s", w.key(), w.body()).isEqualTo(504);
                assertThat(new JsonObject(w.body()).getJsonObject("error").getString("code")).isEqualTo("outcome_unknown");
                assertThat(w.body()).contains("forwarded to " + leader.id() + ", " + LEFT);
                assertThat(msAfter(killedAt, w.doneNanos())).as("HTTP %s answered after the kill (ms)", w.key()).isLessThanOrEqualTo(ANSWER_WITHIN_MS);
            }
            List<BusAnswer> busAnswers = new ArrayList<>();
            for (CompletableFuture<BusAnswer> b : bus) busAnswers.add(b.get(60, TimeUnit.SECONDS));
            List<BusAnswer> forwarded = busAnswers.stream().filter(a -> a.failure() instanceof ReplyException re
                    && re.failureType() == ReplyFailure.RECIPIENT_FAILURE).toList();
            assertThat(forwarded).as("bus answers: %s", busAnswers).hasSize(2);
            for (BusAnswer a : forwarded) {
                ReplyException e = (ReplyException) a.failure();
                assertThat(e.failureCode()).isEqualTo(504);
                assertThat(e.getMessage()).contains("outcome_unknown").contains(LEFT);
                assertThat(msAfter(killedAt, a.doneNanos())).as("bus answer after the kill (ms)").isLessThanOrEqualTo(ANSWER_WITHIN_MS);
            }
            assertThat(busAnswers).as("the one the bus routed to the leader itself: the application's own timeout")
                    .filteredOn(a -> a.failure() instanceof ReplyException re && re.failureType() == ReplyFailure.TIMEOUT).hasSize(1);
            assertThat(directFailure.get(60, TimeUnit.SECONDS)).isInstanceOf(MetasrvException.OutcomeUnknown.class);
            assertThat(msAfter(killedAt, directDone.get())).as("the client's own write to the leader (ms)").isLessThanOrEqualTo(ANSWER_WITHIN_MS);
            System.out.printf("in flight at the leader's kill: HTTP answered %s ms, bus %s ms, direct client %d ms after it; learnt by %s%n",
                    http.stream().map(h -> msAfter(killedAt, h.join().doneNanos())).toList(),
                    forwarded.stream().map(a -> msAfter(killedAt, a.doneNanos())).toList(), msAfter(killedAt, directDone.get()),
                    java.util.stream.Stream.concat(http.stream().map(h -> h.join().body()), forwarded.stream().map(a -> a.failure().getMessage()))
                            .map(m -> m.contains(lake.cluster.Liveness.PROBED) ? "probe" : "hazelcast").toList());

            Node next = cluster.awaitLeader(Duration.ofSeconds(30), followers, epoch + 1);
            for (Node f : followers) assertThat(ClusterHarness.value(next, prefix + "http-" + f.id())).as("never read by the stopped leader").isEmpty();
            WriteLoad.Write after = WriteLoad.write(prefix + "after", followers.get(0).httpPort(), null);
            assertThat(after.acknowledged()).as(after.body()).isTrue();
            assertThat(after.epoch()).isGreaterThanOrEqualTo(epoch + 1);
            assertThat(forwardsInFlight(followers)).as("nothing left awaiting").isZero();
        } finally {
            ClusterFailoverContract.join(app.close());
            ClusterFailoverContract.join(clientVertx.close());
        }
    }

    /**
     * A fourth node configured to join the cluster, whose HTTP port another node holds, exits 1
     * before it joins or campaigns: one line on stderr naming the address, nothing on stdout, no
     * data directory, and the cluster's leadership untouched.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void portInUseIsOneLineNamingTheAddress() throws Exception {
        List<Node> alive = cluster.nodes.stream().filter(Node::alive).toList();
        Node leader = cluster.awaitLeader(Duration.ofSeconds(30), alive, 1);
        long epoch = ClusterHarness.epochOf(leader);
        Node holder = alive.get(0);
        Path data = dir.resolve("n4");
        List<String> members = cluster.nodes.stream().map(n -> "127.0.0.1:" + n.hzPort()).toList();
        List<String> args = List.of("--node-id", "n4", "--data-dir", data.toString(), "--http-port", String.valueOf(holder.httpPort()),
                "--lease-ttl-ms", String.valueOf(ClusterHarness.TTL_MS), "--cluster", "--cluster-name", cluster.clusterName,
                "--cluster-host", "127.0.0.1", "--cluster-port", String.valueOf(ClusterHarness.freePort()),
                "--cluster-members", String.join(",", members), "--store", "rocks", "--store-role", "remote");
        try (MetasrvProcess p = MetasrvProcess.start(args)) {
            assertThat(p.process.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
            assertThat(p.process.exitValue()).isEqualTo(1);
            assertThat(p.stderr).containsExactly("lake-metasrv: cannot listen on 127.0.0.1:" + holder.httpPort()
                    + " (http-port): the address is already in use (another node, or another program, listens there)");
            assertThat(p.stdout).isEmpty();
        }
        assertThat(Files.exists(data)).as("no data directory left behind").isFalse();
        assertThat(ClusterHarness.epochOf(leader)).as("nobody campaigned").isEqualTo(epoch);
        assertThat(ClusterHarness.leaderView(leader).getString("role")).isEqualTo("leader");
    }

    static long msAfter(long startNanos, long nanos) {
        return (nanos - startNanos) / 1_000_000;
    }

    private static final java.net.http.HttpClient HTTP1 = java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    /**
     * GET over HTTP/1.1. (The JDK client's default, an h2c upgrade, now and then misreads a large
     * answer from the node: "Frame type(48) … exceeds MAX_FRAME_SIZE", seen on /metrics.)
     */
    static java.net.http.HttpResponse<String> get11(int port, String path) throws Exception {
        return HTTP1.send(java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }
    private static final Pattern IN_FLIGHT = Pattern.compile("^lake_forward_in_flight\\{node=\"[^\"]+\"\\} ([0-9.]+)$", Pattern.MULTILINE);

    /** The node's {@code lake_forward_in_flight}: writes it forwarded that await the leader's answer. */
    static int forwardsInFlight(Node n) throws Exception {
        Matcher m = IN_FLIGHT.matcher(get11(n.httpPort(), "/metrics").body());
        if (!m.find()) throw new AssertionError("no lake_forward_in_flight on " + n.id());
        return (int) Double.parseDouble(m.group(1));
    }

    /**
     * Until the followers count {@code forwards} forwarded writes awaiting the leader, and
     * unread bytes wait in at least {@code busSenders} connections to the leader's bus port and
     * {@code httpSenders} to its HTTP port; says what it saw if that does not happen in time.
     */
    static void awaitInFlight(List<Node> followers, int forwards, int busPort, int busSenders, int httpPort, int httpSenders) throws Exception {
        try {
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> forwardsInFlight(followers) == forwards
                    && sendersWithUnreadBytesAt(busPort) >= busSenders && sendersWithUnreadBytesAt(httpPort) >= httpSenders);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("not in flight as expected: forwarded " + forwardsInFlight(followers) + " (want " + forwards
                    + "), senders with unread bytes at the leader's bus port " + sendersWithUnreadBytesAt(busPort) + " (want " + busSenders
                    + "), at its HTTP port " + sendersWithUnreadBytesAt(httpPort) + " (want " + httpSenders + ")", e);
        }
    }

    /**
     * The port {@code n}'s event bus listens on (a free one it picked): the one of its process's
     * listening sockets that is neither its HTTP nor its Hazelcast port.
     */
    static int busPortOf(Node n) throws Exception {
        java.util.Set<String> inodes = new java.util.HashSet<>();
        try (var fds = Files.list(Path.of("/proc", String.valueOf(n.process().pid()), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) inodes.add(target.substring(8, target.length() - 1));
                } catch (java.io.IOException closedMeanwhile) {
                    // Not a socket any more.
                }
            }
        }
        List<Integer> listening = sockets().stream()
                .filter(f -> f[3].equals("0A") && inodes.contains(f[9]))
                .map(f -> Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16))
                .filter(port -> port != n.httpPort() && port != n.hzPort()).distinct().toList();
        if (listening.size() != 1) throw new AssertionError("cannot tell " + n.id() + "'s bus port among " + listening);
        return listening.get(0);
    }

    /**
     * This machine's TCP sockets, IPv4 and IPv6 (a JVM's sockets are IPv6 ones, also when bound
     * to 127.0.0.1), one row of /proc/net/tcp or tcp6 each, split into its fields.
     */
    static List<String[]> sockets() throws Exception {
        List<String[]> rows = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) rows.add(line.trim().split("\\s+"));
        }
        return rows;
    }

    /** The followers' {@code lake_forward_in_flight}, added up. */
    static int forwardsInFlight(List<Node> followers) throws Exception {
        int sum = 0;
        for (Node f : followers) sum += forwardsInFlight(f);
        return sum;
    }

    /**
     * How many connections to {@code port} on loopback hold bytes that its server (the stopped
     * leader) has not read: requests that reached the leader's kernel, which the leader never
     * read. From /proc/net/tcp and tcp6: established sockets with that local port and a receive queue.
     */
    static long sendersWithUnreadBytesAt(int port) throws Exception {
        String localPort = String.format(":%04X", port);
        return sockets().stream().filter(f -> f[1].endsWith(localPort) && f[3].equals("01") && Long.parseLong(f[4].split(":")[1], 16) > 0)
                .count();
    }
}
