package lake.it;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Iceberg catalog on a real three-process cluster (RocksDB host n1, two remote nodes, one
 * shared warehouse on this machine's disk): a commit sent to a follower is forwarded to the
 * leader, and every node loads the committed table.
 */
class IcebergClusterIT {
    @TempDir Path dir;

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

    /**
     * A table dropped under one leader is undropped under the next, after the first was killed
     * with SIGKILL: the Iceberg Java client loads the same table again (its UUID, metadata
     * location and snapshots), through a follower as well as the new leader.
     */
    @Test
    void undropRestoresSameIdentityAfterLeaderFailover() throws Exception {
        List<String> shared = List.of("--catalog-root", dir.resolve("warehouse").toUri().toString());
        try (ClusterHarness h = ClusterHarness.start(dir, List.of(
                concat(List.of("--store", "rocks", "--store-role", "host"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared)), Map.of())) {
            ClusterHarness.Node first = h.faultableLeader("n1");
            long epoch = ClusterHarness.epochOf(first);
            org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
                    org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.LongType.get()));
            org.apache.iceberg.catalog.TableIdentifier id = org.apache.iceberg.catalog.TableIdentifier.of("robots", "episodes");
            String uuid;
            String metadata;
            List<Long> snapshots = new java.util.ArrayList<>();
            try (org.apache.iceberg.rest.RESTCatalog c = client(first)) {
                c.createNamespace(org.apache.iceberg.catalog.Namespace.of("robots"));
                org.apache.iceberg.Table t = c.createTable(id, schema);
                for (int i = 0; i < 2; i++) {
                    String path = t.locationProvider().newDataLocation("part-" + i + ".parquet");
                    try (var out = t.io().newOutputFile(path).createOrOverwrite()) {
                        out.write(new byte[] {1});
                    }
                    t.newFastAppend().appendFile(org.apache.iceberg.DataFiles.builder(org.apache.iceberg.PartitionSpec.unpartitioned())
                            .withPath(path).withFormat(org.apache.iceberg.FileFormat.PARQUET).withFileSizeInBytes(1).withRecordCount(1).build()).commit();
                }
                t.refresh();
                uuid = t.uuid().toString();
                metadata = ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
                t.snapshots().forEach(snap -> snapshots.add(snap.snapshotId()));
                assertThat(c.dropTable(id, false)).isTrue();
            }

            first.process().signal("KILL");
            ClusterHarness.Node next = h.awaitLeader(Duration.ofSeconds(60), h.others(first), epoch + 1);
            ClusterHarness.Node follower = h.others(first).stream().filter(n -> n != next).findFirst().orElseThrow();
            HttpResponse<String> back = MetasrvProcess.post(follower.httpPort(),
                    "/iceberg/management/v1/namespaces/robots/dropped-tables/episodes/undrop", "{}");
            assertThat(back.statusCode()).as("undrop sent to a follower, forwarded to the new leader: " + back.body()).isEqualTo(200);

            for (ClusterHarness.Node n : List.of(next, follower)) {
                try (org.apache.iceberg.rest.RESTCatalog c = client(n)) {
                    org.apache.iceberg.Table t = c.loadTable(id);
                    assertThat(t.uuid().toString()).as(n.id()).isEqualTo(uuid);
                    assertThat(((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation()).isEqualTo(metadata);
                    List<Long> now = new java.util.ArrayList<>();
                    t.snapshots().forEach(snap -> now.add(snap.snapshotId()));
                    assertThat(now).as(n.id() + ": the same snapshots").isEqualTo(snapshots);
                }
            }
        }
    }

    private static org.apache.iceberg.rest.RESTCatalog client(ClusterHarness.Node n) {
        org.apache.iceberg.rest.RESTCatalog c = new org.apache.iceberg.rest.RESTCatalog();
        c.setConf(new org.apache.hadoop.conf.Configuration());
        c.initialize(n.id(), Map.of("uri", "http://127.0.0.1:" + n.httpPort() + "/iceberg"));
        return c;
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

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
