package lake.it;

import io.vertx.core.json.JsonObject;
import lake.meta.dynamo.MotoServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code scripts/cluster-demo} as a user runs it: three nodes and a local DynamoDB-protocol server
 * started by the script, the addresses and pids it prints, {@code kill -9} of the leader by the
 * pid it printed, a write through a surviving node under the new leader, and a stop that leaves
 * no process of the script's behind.
 */
class ClusterDemoIT {
    private static final Pattern NODE = Pattern.compile("^cluster-demo: node (n\\d) (http://\\S+) console (\\S+) \\(pid (\\d+), log (\\S+)\\)$");
    private static final Pattern LEADER = Pattern.compile("^cluster-demo: leader (n\\d) \\(epoch (\\d+), pid (\\d+)\\)");

    record Printed(String id, String url, String console, long pid, Path log) {}

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void clusterDemoSurvivesKillingItsLeader() throws Exception {
        MotoServer.endpoint(); // the script needs moto as the tests do: skipped (or failed on CI) without it
        Path home = Path.of(System.getProperty("lake.home"));
        int http = consecutiveFreePorts();
        int hazelcast = consecutiveFreePorts();
        Process demo = new ProcessBuilder(home.resolve("scripts/cluster-demo").toString(), "--http-port", String.valueOf(http),
                "--cluster-port", String.valueOf(hazelcast)).directory(home.toFile()).redirectErrorStream(true).start();
        List<String> out = new CopyOnWriteArrayList<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(demo.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) out.add(line);
            } catch (IOException ended) {
                // The script ended.
            }
        }, "cluster-demo-output");
        pump.setDaemon(true);
        pump.start();
        List<ProcessHandle> started = List.of();
        try {
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (!demo.isAlive()) throw new AssertionError("cluster-demo exited " + demo.exitValue() + ": " + out);
                return nodes(out).size() == 3 && leader(out, 1).isPresent();
            });
            List<Printed> nodes = nodes(out);
            assertThat(nodes).extracting(Printed::url).containsExactly("http://127.0.0.1:" + http, "http://127.0.0.1:" + (http + 1),
                    "http://127.0.0.1:" + (http + 2));
            for (Printed n : nodes) {
                assertThat(n.console()).isEqualTo(n.url() + "/ui/");
                assertThat(ClusterFastFailureIT.get11(port(n), "/ui/").statusCode()).as("%s's console", n.id()).isEqualTo(200);
            }
            assertThat(out).anyMatch(l -> l.matches("cluster-demo: DynamoDB-protocol server \\(moto, in memory\\) on http://127\\.0\\.0\\.1:\\d+ \\(pid \\d+\\)"));
            Matcher first = leader(out, 1).orElseThrow();
            String leaderId = first.group(1);
            long epoch = Long.parseLong(first.group(2));
            long leaderPid = Long.parseLong(first.group(3));
            Printed leader = nodes.stream().filter(n -> n.id().equals(leaderId)).findFirst().orElseThrow();
            assertThat(leader.pid()).as("the leader line names the leader node's pid").isEqualTo(leaderPid);
            List<Printed> survivors = nodes.stream().filter(n -> n != leader).toList();

            WriteLoad.Write before = WriteLoad.write("demo/before-" + System.nanoTime(), port(survivors.get(0)), null);
            assertThat(before.acknowledged()).as(before.body()).isTrue();
            assertThat(before.epoch()).isEqualTo(epoch);

            started = demo.toHandle().descendants().toList();
            assertThat(started).extracting(ProcessHandle::pid).as("the script's own children: the nodes and moto")
                    .containsAll(nodes.stream().map(Printed::pid).toList());
            assertThat(ProcessHandle.of(leaderPid).orElseThrow().destroyForcibly()).isTrue();  // kill -9 <pid it printed>
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() ->
                    out.contains("cluster-demo: node " + leaderId + " (pid " + leaderPid + ") exited (status 137); the others carry on")
                            && leader(out, epoch + 1).isPresent());
            Matcher next = leader(out, epoch + 1).orElseThrow();
            assertThat(next.group(1)).isNotEqualTo(leaderId);

            for (Printed s : survivors) {
                WriteLoad.Write after = WriteLoad.write("demo/after-" + s.id() + "-" + System.nanoTime(), port(s), null);
                assertThat(after.acknowledged()).as("through %s: %s", s.id(), after.body()).isTrue();
                assertThat(after.epoch()).isGreaterThan(epoch);
                HttpResponse<String> read = ClusterFastFailureIT.get11(port(s), "/v1/kv/" + before.key());
                assertThat(new JsonObject(read.body()).getString("value")).as("the write from before the kill").isEqualTo(before.value());
            }

            demo.toHandle().destroy();  // SIGTERM, as Ctrl-C's SIGINT is handled (a background job ignores SIGINT)
            assertThat(demo.waitFor(60, TimeUnit.SECONDS)).as("the script stops").isTrue();
            assertThat(demo.exitValue()).as("%s", out).isZero();
            pump.join(Duration.ofSeconds(10).toMillis());
            assertThat(out).contains("cluster-demo: stopped");
            assertThat(started).as("no process the script started is left").noneMatch(ProcessHandle::isAlive);
            assertThat(Files.exists(nodes.get(0).log().getParent())).as("its working directory is removed").isFalse();
        } finally {
            if (demo.isAlive()) {
                for (ProcessHandle p : demo.toHandle().descendants().toList()) p.destroyForcibly();
                demo.destroyForcibly();
            }
            for (ProcessHandle p : started) p.destroyForcibly();
        }
    }

    static int port(Printed n) {
        return Integer.parseInt(n.url().substring(n.url().lastIndexOf(':') + 1));
    }

    static List<Printed> nodes(List<String> out) {
        return out.stream().map(NODE::matcher).filter(Matcher::matches)
                .map(m -> new Printed(m.group(1), m.group(2), m.group(3), Long.parseLong(m.group(4)), Path.of(m.group(5)))).toList();
    }

    /** The first leader line with an epoch of at least {@code minEpoch}. */
    static Optional<Matcher> leader(List<String> out, long minEpoch) {
        return out.stream().map(LEADER::matcher).filter(m -> m.find() && Long.parseLong(m.group(2)) >= minEpoch).findFirst();
    }

    /** The first of three consecutive ports that are free now (below the ephemeral range, like {@link ClusterHarness#freePort}). */
    static int consecutiveFreePorts() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = ClusterHarness.freePort();
            if (base + 2 >= 32_768) continue;
            if (free(base + 1) && free(base + 2)) return base;
        }
        throw new IOException("no three consecutive free ports found");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
