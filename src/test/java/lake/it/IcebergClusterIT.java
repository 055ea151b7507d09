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

    /**
     * A purge the leader's worker is in the middle of when the leader is killed with SIGKILL is
     * finished by the next leader: every file under the dropped table's location goes, the job and
     * the tombstone go, and another live table's files stay.
     *
     * <p>What "no file deleted twice or left behind" can be proved to be, exactly. Let {@code N} be
     * the files under the location before the drop. The worker deletes in batches, each one
     * <em>claimed</em> (a fenced compare-and-set on the job that names the claiming epoch) before a
     * file of it is deleted, and <em>recorded</em> ({@code after} = its last file, {@code deleted}
     * += its count) after. So at the kill at most one batch is between claim and record: its files
     * may be deleted in part or in whole without the job saying so. The killed leader's count is
     * therefore not readable exactly (neither from its last {@code /metrics} scrape nor from the
     * job); instead the test counts the files left on disk, {@code R}, once the killed process has
     * exited, and then reads the job from the store: if the job still names the killed leader's
     * epoch, the next leader had claimed nothing yet, so it had deleted nothing, and {@code R} is
     * exactly what it found when it took over (the dead process deletes nothing more). Then:
     * <ul>
     *   <li>the killed leader deleted exactly {@code N - R}, and the job it left records
     *       {@code deleted} with {@code deleted <= N - R <= deleted + purge_batch_files} (one batch
     *       in flight at most); its last scrape is at most {@code N - R};</li>
     *   <li>every file left sorts after the job's {@code after}: the next leader, which lists only
     *       after it, can leave none behind;</li>
     *   <li>the surviving nodes' {@code lake_purge_files_deleted_total} sums to exactly {@code R}:
     *       the new leader deleted each file it found once, and none the killed one had deleted
     *       (the warehouse's {@code deleteIfExists} would count a file already gone, so a repeat
     *       shows as a sum above {@code R}; a file skipped shows as one left on disk);</li>
     *   <li>the new leader's "purged … D file(s) deleted" log line (the job's count at its finish)
     *       has {@code N - purge_batch_files <= D <= N} and {@code D - R >= } the job's
     *       {@code deleted} read after the kill: the job counted no file twice, and lost at most the
     *       uncounted part of the one batch that was in flight.</li>
     * </ul>
     */
    @Test
    void purgeWorkerResumesAfterLeaderKill() throws Exception {
        int batchFiles = 5;
        List<String> shared = List.of("--catalog-root", dir.resolve("warehouse").toUri().toString(),
                "--purge-interval-ms", "200", "--purge-batch-files", String.valueOf(batchFiles));
        try (ClusterHarness h = ClusterHarness.start(dir, List.of(
                concat(List.of("--store", "rocks", "--store-role", "host"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared),
                concat(List.of("--store", "rocks", "--store-role", "remote"), shared)), Map.of())) {
            ClusterHarness.Node first = h.faultableLeader("n1");
            long epoch = ClusterHarness.epochOf(first);
            org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
                    org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.LongType.get()));
            org.apache.iceberg.catalog.TableIdentifier id = org.apache.iceberg.catalog.TableIdentifier.of("robots", "episodes");
            org.apache.iceberg.catalog.TableIdentifier keptId = org.apache.iceberg.catalog.TableIdentifier.of("robots", "kept");
            String location;
            String keptLocation;
            try (org.apache.iceberg.rest.RESTCatalog c = client(first)) {
                c.createNamespace(org.apache.iceberg.catalog.Namespace.of("robots"));
                org.apache.iceberg.Table t = c.createTable(id, schema);
                org.apache.iceberg.Table kept = c.createTable(keptId, schema);
                for (int commit = 0; commit < 8; commit++) {
                    List<String> names = new java.util.ArrayList<>();
                    for (int i = 0; i < 50; i++) names.add("part-" + commit + "-" + i + ".parquet");
                    appendFiles(t, names);
                }
                appendFiles(kept, List.of("keep.parquet"));
                location = t.location();
                keptLocation = kept.location();
            }
            List<String> before = filesUnder(location);
            List<String> keptBefore = filesUnder(keptLocation);
            int total = before.size();
            // The client writes through Hadoop's local file system, which adds a .crc file beside each file it writes.
            assertThat(total).as("400 data files, 8 manifests and manifest lists, the metadata files (and checksums): " + before.size())
                    .isGreaterThanOrEqualTo(400 + 8 + 8 + 1);

            HttpResponse<String> dropped = send(first.httpPort(), "DELETE", "/iceberg/v1/namespaces/robots/tables/episodes?purgeRequested=true");
            assertThat(dropped.statusCode()).as(dropped.body()).isEqualTo(204);
            JsonObject[] job = new JsonObject[1];
            double[] scraped = new double[1];
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        scraped[0] = metric(first, "lake_purge_files_deleted_total");
                        job[0] = purgeJob(first, "episodes");
                        return job[0] != null && "purging".equals(job[0].getString("state")) && job[0].getLong("deleted") > 0
                                && filesUnder(location).stream().filter(IcebergClusterIT::isDataFile).count() > 10 * batchFiles;
                    });
            first.process().signal("KILL");
            first.process().process.waitFor();

            // The files the next leader will find: nothing deletes between this count and its first claim.
            List<String> left = filesUnder(location);
            ClusterHarness.Node survivor = h.others(first).get(0);
            String key = "__lake_internal/purge-queue/robots/episodes/" + job[0].getString("incarnation_id");
            JsonObject stored = new JsonObject(new String(java.util.Base64.getDecoder().decode(ClusterHarness.value(survivor, key).orElseThrow()),
                    java.nio.charset.StandardCharsets.UTF_8));
            assertThat(Long.parseLong(String.valueOf(stored.getValue("epoch"))))
                    .as("no claim by the next leader yet, so it had deleted nothing when the files left were counted: " + stored)
                    .isEqualTo(epoch);
            int remaining = left.size();
            long recorded = stored.getLong("deleted");
            String after = stored.getString("after");
            assertThat((long) (total - remaining)).as("the killed leader deleted; the job records " + recorded + " (at most one batch in flight)")
                    .isBetween(recorded, recorded + batchFiles);
            assertThat(scraped[0]).as("the killed leader's last scrape").isLessThanOrEqualTo(total - remaining);
            // Data files go first, named by the manifests, in order; the rest waits for later phases.
            assertThat(stored.getString("phase")).as("the killed leader was deleting data files: " + stored).isEqualTo("data");
            List<String> data = before.stream().filter(IcebergClusterIT::isDataFile).toList();
            List<String> gone = before.stream().filter(f -> !left.contains(f)).toList();
            assertThat(gone).as("the killed leader deleted the first data files, in order, and nothing else").isEqualTo(data.subList(0, gone.size()));
            assertThat(left).as("every data file left sorts after the job's resume point " + after)
                    .allSatisfy(f -> assertThat(!isDataFile(f) || f.compareTo(after) > 0).as(f).isTrue());

            ClusterHarness.Node next = h.awaitLeader(Duration.ofSeconds(60), h.others(first), epoch + 1);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> filesUnder(location).isEmpty() && purgeJob(next, "episodes") == null);
            JsonObject purges = new JsonObject(MetasrvProcess.get(next.httpPort(), "/v1/catalog/purges").body());
            assertThat(purges.getJsonArray("purges")).as("the queue is empty").isEmpty();
            JsonObject tombstones = new JsonObject(MetasrvProcess.get(next.httpPort(), "/v1/catalog/tombstones").body());
            assertThat(tombstones.getJsonArray("tombstones").stream().map(o -> ((JsonObject) o).getString("incarnation_id")))
                    .as("the tombstone went with the job").doesNotContain(job[0].getString("incarnation_id"));

            double survivorsDeleted = 0;
            for (ClusterHarness.Node n : h.others(first)) survivorsDeleted += metric(n, "lake_purge_files_deleted_total");
            assertThat(survivorsDeleted).as("the new leader deleted exactly the files it found, each once").isEqualTo((double) remaining);
            java.util.regex.Pattern purged = java.util.regex.Pattern.compile("purged robots\\.episodes \\(incarnation "
                    + java.util.regex.Pattern.quote(job[0].getString("incarnation_id")) + "\\): (\\d+) file\\(s\\) deleted");
            long logged = h.others(first).stream().flatMap(n -> n.process().stderr.stream()).map(purged::matcher)
                    .filter(java.util.regex.Matcher::find).mapToLong(m -> Long.parseLong(m.group(1))).findFirst().orElseThrow();
            assertThat(logged).as("the job's final count: no file counted twice, at most one batch uncounted").isBetween((long) total - batchFiles, (long) total);
            assertThat(logged - remaining).as("the killed leader's batches the job recorded").isGreaterThanOrEqualTo(recorded);

            System.out.printf("purgeWorkerResumesAfterLeaderKill: %d files before the drop; killed leader %s deleted %d (job recorded %d,"
                    + " its last scrape %.0f); %d left for new leader %s, which deleted %.0f; the job's final count %d%n",
                    total, first.id(), total - remaining, recorded, scraped[0], remaining, next.id(), survivorsDeleted, logged);
            assertThat(filesUnder(keptLocation)).as("another live table's files").isEqualTo(keptBefore);
            try (org.apache.iceberg.rest.RESTCatalog c = client(next)) {
                assertThat(c.tableExists(id)).isFalse();
                org.apache.iceberg.Table kept = c.loadTable(keptId);
                assertThat(kept.currentSnapshot().addedDataFiles(kept.io())).hasSize(1);
            }
        }
    }

    /** Whether {@code file} is one of the data files {@link #appendFiles} wrote (not its {@code .crc} beside it). */
    private static boolean isDataFile(String file) {
        return file.endsWith(".parquet");
    }

    /** Data files of three bytes written to {@code t}'s data directory and appended in one commit. */
    private static void appendFiles(org.apache.iceberg.Table t, List<String> names) throws Exception {
        var append = t.newFastAppend();
        for (String name : names) {
            String path = t.locationProvider().newDataLocation(name);
            try (var out = t.io().newOutputFile(path).createOrOverwrite()) {
                out.write(new byte[] {1, 2, 3});
            }
            append.appendFile(org.apache.iceberg.DataFiles.builder(org.apache.iceberg.PartitionSpec.unpartitioned()).withPath(path)
                    .withFormat(org.apache.iceberg.FileFormat.PARQUET).withFileSizeInBytes(3).withRecordCount(1).build());
        }
        append.commit();
    }

    private static Path localPath(String location) {
        return location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    }

    /**
     * Every regular file under the table location {@code location}, spelled as the worker lists
     * them ({@code location + "/" + relative path}, so comparable with a job's {@code after}), sorted.
     */
    private static List<String> filesUnder(String location) throws java.io.IOException {
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

    /** The queue's entry for table {@code name} as {@code n} lists it, or {@code null}. */
    private static JsonObject purgeJob(ClusterHarness.Node n, String name) throws Exception {
        HttpResponse<String> r = MetasrvProcess.get(n.httpPort(), "/v1/catalog/purges");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new JsonObject(r.body()).getJsonArray("purges").stream().map(o -> (JsonObject) o)
                .filter(o -> name.equals(o.getString("name"))).findFirst().orElse(null);
    }

    /** The sum of a meter's samples in {@code n}'s {@code /metrics} (0 while it has none). */
    private static double metric(ClusterHarness.Node n, String name) throws Exception {
        double sum = 0;
        for (String line : MetasrvProcess.get(n.httpPort(), "/metrics").body().split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return sum;
    }

    private static HttpResponse<String> send(int port, String method, String path) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).method(method, java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
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
