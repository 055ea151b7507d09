package lake.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The fat jar as a user runs it: a real process, real HTTP, real SIGKILL. */
class FatJarIT {
    @TempDir Path data;

    @Test
    void acknowledgedCasSurvivesSigkillAndRestart() throws Exception {
        List<String> args = List.of("--data-dir", data.toString(), "--http-port", "0", "--lease-ttl-ms", "3000");
        String value = Base64.getEncoder().encodeToString("survives kill -9".getBytes());
        String nodeId;
        try (MetasrvProcess first = MetasrvProcess.start(args)) {
            int port = first.awaitListening(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(20)).until(() -> MetasrvProcess.get(port, "/ready").statusCode() == 200);
            HttpResponse<String> cas = MetasrvProcess.post(port, "/v1/kv/cas",
                    "{\"key\":\"kv/durable\",\"expected\":null,\"value\":\"" + value + "\"}");
            assertThat(cas.statusCode()).isEqualTo(200);
            assertThat(cas.body()).contains("\"applied\":true");
            nodeId = new io.vertx.core.json.JsonObject(MetasrvProcess.get(port, "/v1/leader").body()).getString("node_id");
            first.kill();
            assertThat(first.process.exitValue()).as("killed by SIGKILL").isEqualTo(137);
        }
        try (MetasrvProcess second = MetasrvProcess.start(args)) {
            int port = second.awaitListening(Duration.ofSeconds(60));
            HttpResponse<String> read = MetasrvProcess.get(port, "/v1/kv/kv/durable");
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat(read.body()).contains(value);
            // The same node (its id is kept in the data directory) renews its own lease at once.
            await().atMost(Duration.ofSeconds(20)).until(() -> MetasrvProcess.get(port, "/ready").statusCode() == 200);
            assertThat(MetasrvProcess.get(port, "/v1/leader").body()).contains("\"node_id\":\"" + nodeId + "\"");
        }
    }

    @Test
    void sigtermDrainsResignsAndExitsZeroWithinFiveSeconds() throws Exception {
        // A long TTL: only a resigned lease lets the standby below take over within the wait.
        List<String> first = List.of("--data-dir", data.toString(), "--http-port", "0", "--lease-ttl-ms", "60000");
        String value = Base64.getEncoder().encodeToString("before sigterm".getBytes());
        String nodeId;
        try (MetasrvProcess p = MetasrvProcess.start(first)) {
            int port = p.awaitListening(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(20)).until(() -> MetasrvProcess.get(port, "/ready").statusCode() == 200);
            assertThat(MetasrvProcess.post(port, "/v1/kv/cas", "{\"key\":\"kv/t\",\"expected\":null,\"value\":\"" + value + "\"}")
                    .body()).contains("\"applied\":true");
            nodeId = new io.vertx.core.json.JsonObject(MetasrvProcess.get(port, "/v1/leader").body()).getString("node_id");

            p.process.destroy(); // SIGTERM
            assertThat(p.process.waitFor(5, TimeUnit.SECONDS)).as("exited within 5 s of SIGTERM").isTrue();
            assertThat(p.process.exitValue()).as("exit status after SIGTERM; stderr: " + p.stderr).isZero();
            assertThat(String.join("\n", p.stderr)).contains("node " + nodeId + " stopped");
            assertThat(String.join("\n", p.stderr)).contains("leadership node=" + nodeId + " role=follower epoch=1 leader=- reason=resigned");
        }
        List<String> standby = List.of("--data-dir", data.toString(), "--http-port", "0", "--lease-ttl-ms", "60000",
                "--node-id", "standby");
        try (MetasrvProcess p = MetasrvProcess.start(standby)) {
            int port = p.awaitListening(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(15)).until(() -> MetasrvProcess.get(port, "/ready").statusCode() == 200);
            io.vertx.core.json.JsonObject leader = new io.vertx.core.json.JsonObject(MetasrvProcess.get(port, "/v1/leader").body());
            assertThat(leader.getString("leader")).isEqualTo("standby");
            assertThat(leader.getLong("epoch")).as("took over from the resigned lease").isEqualTo(2L);
            assertThat(MetasrvProcess.get(port, "/v1/kv/kv/t").body()).contains(value);
        }
    }

    @Test
    void invalidConfigurationExitsTwoNamingTheSetting() throws Exception {
        java.nio.file.Path malformed = java.nio.file.Files.writeString(data.resolve("malformed.json"), "{\"http_port\": 80,");
        java.nio.file.Path notADirectory = java.nio.file.Files.writeString(data.resolve("a-file"), "x");
        java.nio.file.Path unreadableNodeId = java.nio.file.Files.createDirectories(data.resolve("bad-data").resolve("node-id"));
        record Case(List<String> args, String names) {}
        for (Case c : List.of(
                new Case(List.of("--config", malformed.toString()), "config: config file " + malformed),
                new Case(List.of("--data-dir", notADirectory.toString()), "data-dir: is a file, not a directory: " + notADirectory),
                new Case(List.of("--data-dir", unreadableNodeId.getParent().toString()), "data-dir: is a directory, not a file: " + unreadableNodeId),
                new Case(List.of("--no-such-option", "1"), "--no-such-option"),
                new Case(List.of("--store", "cassandra"), "store"),
                new Case(List.of("--lease-ttl-ms", "-5"), "lease-ttl-ms"),
                new Case(List.of("--lease-ttl-ms", "3000", "--lease-renew-ms", "3000"), "lease-renew-ms"),
                new Case(List.of("--http-port", "eighty"), "option --http-port: must be an int, got 'eighty'"))) {
            // Cases that name their own data directory use it; the rest point at one that must never appear.
            List<String> args = c.args().contains("--data-dir") ? c.args()
                    : concat(c.args(), "--data-dir", data.resolve("never").toString());
            try (MetasrvProcess p = MetasrvProcess.start(args)) {
                assertThat(p.process.waitFor(60, TimeUnit.SECONDS)).as(c + " exits; stderr: " + p.stderr).isTrue();
                assertThat(p.process.exitValue()).as(c.toString()).isEqualTo(2);
                await().atMost(Duration.ofSeconds(5)).until(() -> String.join("\n", p.stderr).contains(c.names()));
                assertThat(p.stdout).as("never started listening").noneMatch(l -> l.contains("listening on"));
            }
        }
        assertThat(data.resolve("never")).as("nothing was written").doesNotExist();
        assertThat(data.resolve("bad-data").resolve("rocksdb")).as("no store was opened").doesNotExist();
    }

    @Test
    void helpListsEveryOption() throws Exception {
        try (MetasrvProcess p = MetasrvProcess.start(List.of("--help"))) {
            assertThat(p.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.process.exitValue()).isZero();
            await().atMost(Duration.ofSeconds(5)).until(() -> String.join("\n", p.stdout).contains("--lease-renew-ms"));
            String help = String.join("\n", p.stdout);
            for (String option : List.of("--config", "--node-id", "--http-host", "--http-port", "--data-dir", "--store",
                    "--dynamo-endpoint", "--dynamo-region", "--dynamo-table", "--dynamo-create-table", "--lease-ttl-ms",
                    "LAKE_HTTP_PORT")) {
                assertThat(help).contains(option);
            }
        }
    }

    private static List<String> concat(List<String> a, String... b) {
        java.util.ArrayList<String> out = new java.util.ArrayList<>(a);
        out.addAll(List.of(b));
        return out;
    }
}
