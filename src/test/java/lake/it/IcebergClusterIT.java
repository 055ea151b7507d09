package lake.it;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Iceberg catalog on a real three-process cluster (RocksDB host n1, two remote nodes, one
 * shared warehouse on this machine's disk): a commit sent to a follower is forwarded to the
 * leader, and every node loads the committed table; grants apply on every node; and the dropped
 * table's life across a leader's SIGKILL ({@link IcebergLifecycleClusterContract}; on DynamoDB
 * and S3: {@link DynamoIcebergClusterIT}).
 */
class IcebergClusterIT extends IcebergLifecycleClusterContract {
    @Override
    protected List<List<String>> storeArgs() {
        return List.of(List.of("--store", "rocks", "--store-role", "host"), List.of("--store", "rocks", "--store-role", "remote"),
                List.of("--store", "rocks", "--store-role", "remote"));
    }

    @Override
    protected Map<String, String> env() {
        return Map.of();
    }

    @Override
    protected String storeHost() {
        return "n1";
    }

    @Override
    protected List<String> warehouseArgs() {
        return List.of("--catalog-root", dir.resolve("warehouse").toUri().toString());
    }

    /** Hadoop's FileIO on the local disk (it writes a {@code .crc} file beside each file). */
    @Override
    protected Map<String, String> engineOptions() {
        return Map.of();
    }

    @Test
    void icebergCommitForwardedFromFollower() throws Exception {
        String warehouse = dir.resolve("warehouse").toUri().toString();
        List<String> shared = List.of("--catalog-root", warehouse);
        try (ClusterHarness h = ClusterHarness.start(dir, List.of(
                concat(List.of("--store", "rocks", "--store-role", "host"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared)), Map.of())) {
            ClusterHarness.Node leader = h.awaitLeader(Duration.ofSeconds(60), h.nodes, 1);
            ClusterHarness.Node follower = h.others(leader).get(0);
            int port = follower.httpPort();

            HttpResponse<String> ns = MetasrvProcess.post(port, "/iceberg/v1/namespaces", "{\"namespace\":[\"robots\"]}");
            assertThat(ns.statusCode()).as(ns.body()).isEqualTo(200);
            HttpResponse<String> created = MetasrvProcess.post(port, "/iceberg/v1/namespaces/robots/tables",
                    "{\"name\":\"episodes\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            HttpResponse<String> commit = MetasrvProcess.post(port, "/iceberg/v1/namespaces/robots/tables/episodes",
                    "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"owner\":\"lab\"}}]}");
            assertThat(commit.statusCode()).as(commit.body()).isEqualTo(200);
            String location = new JsonObject(commit.body()).getString("metadata-location");

            for (ClusterHarness.Node n : h.nodes) {
                HttpResponse<String> loaded = MetasrvProcess.get(n.httpPort(), "/iceberg/v1/namespaces/robots/tables/episodes");
                assertThat(loaded.statusCode()).as(n.id() + ": " + loaded.body()).isEqualTo(200);
                JsonObject body = new JsonObject(loaded.body());
                assertThat(body.getString("metadata-location")).as(n.id() + " sees the commit").isEqualTo(location);
                assertThat(body.getJsonObject("metadata").getJsonObject("properties").getString("owner")).isEqualTo("lab");
            }
            // The catalog (lake's own API) shows the same table, on the follower too.
            JsonObject snapshot = new JsonObject(MetasrvProcess.get(port, "/v1/catalog").body());
            assertThat(snapshot.getJsonArray("tables").getJsonObject(0).getJsonObject("registration").getString("metadata_location"))
                    .isEqualTo(location);
        }
    }

    /**
     * Grants as data on three processes: a grant sent to one follower is forwarded to the leader,
     * stored there by a fenced write, and followed from the change feed by every node, which then
     * serves the principal as granted; a revoke sent to the other follower reaches every node the
     * same way. No node restarts, and the tokens file never changes.
     */
    @Test
    void grantChangesApplyOnEveryNodeWithoutRestart() throws Exception {
        String admin = "admin-token-0123456789abcdef";
        String team = "team-token-0123456789abcdef";
        Path tokens = dir.resolve("tokens.json");
        java.nio.file.Files.writeString(tokens, "[{\"name\":\"operator\",\"access\":\"admin\",\"token\":\"" + admin + "\"},"
                + "{\"name\":\"team\",\"access\":\"read-write\",\"token\":\"" + team + "\",\"grants\":[]}]");
        java.nio.file.Files.setPosixFilePermissions(tokens, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Path secret = dir.resolve("cluster-secret");
        java.nio.file.Files.writeString(secret, "cluster-secret-0123456789abcdef");
        java.nio.file.Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        List<String> shared = List.of("--catalog-root", dir.resolve("warehouse").toUri().toString(), "--auth-tokens-file", tokens.toString(),
                "--cluster-secret-file", secret.toString());
        try (ClusterHarness h = ClusterHarness.start(dir, List.of(
                concat(List.of("--store", "rocks", "--store-role", "host"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared)), Map.of())) {
            // With access control on, /v1/leader needs a token (the harness asks without one).
            ClusterHarness.Node[] found = new ClusterHarness.Node[1];
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
                for (ClusterHarness.Node n : h.nodes) {
                    JsonObject v = new JsonObject(call(n.httpPort(), "GET", "/v1/leader", null, admin).body());
                    if ("leader".equals(v.getString("role"))) found[0] = n;
                }
                return found[0] != null;
            });
            ClusterHarness.Node leader = found[0];
            List<ClusterHarness.Node> followers = h.others(leader);
            HttpResponse<String> ns = call(leader.httpPort(), "POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"team_ns\"]}", admin);
            assertThat(ns.statusCode()).as(ns.body()).isEqualTo(200);
            HttpResponse<String> created = call(leader.httpPort(), "POST", "/iceberg/v1/namespaces/team_ns/tables",
                    "{\"name\":\"t\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}", admin);
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            String table = "/iceberg/v1/namespaces/team_ns/tables/t";
            for (ClusterHarness.Node n : h.nodes) {
                assertThat(call(n.httpPort(), "GET", table, null, team).statusCode()).as(n.id() + ": nothing granted").isEqualTo(404);
            }

            HttpResponse<String> granted = call(followers.get(0).httpPort(), "POST", "/v1/grants",
                    "{\"principal\":\"team\",\"namespace\":\"team_ns\",\"privileges\":[\"read\"]}", admin);
            assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
            everyNodeAnswers(h, table, team, 200);

            HttpResponse<String> revoked = call(followers.get(1).httpPort(), "POST", "/v1/grants/revoke",
                    "{\"principal\":\"team\",\"namespace\":\"team_ns\"}", admin);
            assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
            everyNodeAnswers(h, table, team, 404);
            for (ClusterHarness.Node n : h.nodes) {
                assertThat(ProcessHandle.of(n.process().pid()).map(ProcessHandle::isAlive)).as(n.id() + ": the same process throughout").contains(true);
            }
        }
    }

    private static Path localPath(String location) {
        return location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    }

    /** Every regular file under {@code location} on the local disk, as the contract asks. */
    @Override
    protected List<String> filesUnder(String location) throws java.io.IOException {
        Path root = localPath(location);
        if (!java.nio.file.Files.exists(root)) return List.of();
        List<String> out = new java.util.ArrayList<>();
        // Tolerates files the worker deletes while this walks (Files.walk would throw NoSuchFileException).
        java.nio.file.Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path p, java.nio.file.attribute.BasicFileAttributes a) {
                if (a.isRegularFile()) out.add(location + "/" + root.relativize(p));
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path p, java.io.IOException e) throws java.io.IOException {
                if (e instanceof java.nio.file.NoSuchFileException) return java.nio.file.FileVisitResult.CONTINUE;
                throw e;
            }
        });
        out.sort(null);
        return out;
    }

    /** Waits until every node answers {@code GET path} with {@code token} by {@code status}. */
    private static void everyNodeAnswers(ClusterHarness h, String path, String token, int status) {
        for (ClusterHarness.Node n : h.nodes) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(call(n.httpPort(), "GET", path, null, token).statusCode()).as(n.id()).isEqualTo(status));
        }
    }

    private static HttpResponse<String> call(int port, String method, String path, String body, String token) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token)
                .method(method, body == null ? java.net.http.HttpRequest.BodyPublishers.noBody() : java.net.http.HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
