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
 * A dropped table's life on a real three-process cluster, per backend (issue 39): an undrop and a
 * purge carried across a leader's SIGKILL. {@link IcebergClusterIT}: a RocksDB store host (n1) and
 * two remote nodes over a {@code file:} warehouse; {@link DynamoIcebergClusterIT}: every node its
 * own DynamoDB client to one table on moto, the warehouse on moto's S3.
 */
abstract class IcebergLifecycleClusterContract {
    @TempDir Path dir;

    /** Nodes n1, n2, n3's store options. */
    protected abstract List<List<String>> storeArgs() throws Exception;

    /** The environment of every node. */
    protected abstract Map<String, String> env();

    /** The node whose loss takes the store with it (a RocksDB store host), or {@code null}. */
    protected abstract String storeHost();

    /** The warehouse every node shares: its {@code --catalog-root} (and endpoint) options. */
    protected abstract List<String> warehouseArgs() throws Exception;

    /** The engine's catalog options besides {@code uri}: its FileIO. */
    protected abstract Map<String, String> engineOptions();

    /**
     * Every file under the table location {@code location}, spelled as the worker lists them
     * ({@code location + "/" + relative path}, so comparable with a job's {@code after}), sorted;
     * files deleted while it lists are left out, never an error.
     */
    protected abstract List<String> filesUnder(String location) throws Exception;

    /** A cluster of three nodes with {@code extra} options on each. */
    ClusterHarness cluster(List<String> extra) throws Exception {
        List<String> shared = concat(warehouseArgs(), extra);
        List<List<String>> args = new java.util.ArrayList<>();
        for (List<String> store : storeArgs()) args.add(concat(store, shared));
        return ClusterHarness.start(dir, args, env());
    }

    /**
     * A table dropped under one leader is undropped under the next, after the first was killed
     * with SIGKILL: the Iceberg Java client loads the same table again (its UUID, metadata
     * location and snapshots), through a follower as well as the new leader.
     */
    @Test
    void undropRestoresSameIdentityAfterLeaderFailover() throws Exception {
        try (ClusterHarness h = cluster(List.of())) {
            ClusterHarness.Node first = h.faultableLeader(storeHost());
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
     * += its count) after, in the transaction that claims the batch after next: one batch is
     * deleted while the one before it is recorded. So at the kill at most two batches are between
     * claim and record: their files may be deleted in part or in whole without the job saying so. The killed leader's count is
     * therefore not readable exactly (neither from its last {@code /metrics} scrape nor from the
     * job); instead the test counts the files left in the warehouse, {@code R}, once the killed
     * process has exited, and then reads the job from the store: if the job still names the killed leader's
     * epoch, the next leader had claimed nothing yet, so it had deleted nothing, and {@code R} is
     * exactly what it found when it took over (the dead process deletes nothing more). Then:
     * <ul>
     *   <li>the killed leader deleted exactly {@code N - R}, and the job it left records
     *       {@code deleted} with {@code deleted <= N - R <= deleted + 2 * purge_batch_files} (two
     *       batches unrecorded at most); its last scrape is at most {@code N - R};</li>
     *   <li>every file left sorts after the job's {@code after}: the next leader, which lists only
     *       after it, can leave none behind;</li>
     *   <li>the surviving nodes' {@code lake_purge_files_deleted_total} sums to exactly {@code R}:
     *       the new leader deleted each file it found once, and none the killed one had deleted
     *       (a delete of a file already gone is counted as deleted on both warehouses, so a repeat
     *       shows as a sum above {@code R}; a file skipped shows as one left in the warehouse);</li>
     *   <li>the new leader's "purged … D file(s) deleted" log line (the job's count at its finish)
     *       has {@code N - 2 * purge_batch_files <= D <= N} and {@code D - R >= } the job's
     *       {@code deleted} read after the kill: the job counted no file twice, and lost at most the
     *       uncounted part of the two batches that were unrecorded.</li>
     * </ul>
     *
     * <p>On S3 ({@link DynamoIcebergClusterIT}) the same bounds hold, for these reasons. A
     * {@code DeleteObjects} of a key that is not there answers it deleted, not failed (S3 and
     * moto alike; in the quiet mode {@code QuietS3Deletes} asks for, only failures are named), so
     * {@code PurgeIO} counts a repeated delete as a deletion, as {@code deleteIfExists} does on
     * disk: the survivors' sum above {@code R} is still how a file sent twice shows, and the
     * worker's look-before-send of the unrecorded batch (a {@code HEAD} per file) is what keeps it
     * at {@code R}. A file "left behind" is one the bucket's listing still returns. {@code R} is
     * exact only if no delete of the killed process lands after the listing that counts it: moto
     * serves one request at a time, one per connection (HTTP/1.0), in the order the connections
     * were accepted, so a {@code DeleteObjects} the killed process had sent in full is served before
     * the test's listing (opened after the process exited), and one cut off mid-send is never
     * served. (Against real S3 a request in flight could still apply after the listing; this test
     * does not claim that case.) No bound is looser than on disk; the counts differ only in that S3
     * has no checksum files.</p>
     */
    @Test
    void purgeWorkerResumesAfterLeaderKill() throws Exception {
        int batchFiles = 5;
        try (ClusterHarness h = cluster(List.of("--purge-interval-ms", "200", "--purge-batch-files", String.valueOf(batchFiles)))) {
            ClusterHarness.Node first = h.faultableLeader(storeHost());
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
            assertThat(before.stream().filter(IcebergLifecycleClusterContract::isDataFile).count()).as("the 400 data files").isEqualTo(400);
            // On the local disk Hadoop's file system adds a .crc file beside each file the client writes; S3 has none.
            assertThat(total).as("400 data files, 8 manifests and manifest lists, the metadata files (and any checksums): " + before.size())
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
                                && filesUnder(location).stream().filter(IcebergLifecycleClusterContract::isDataFile).count() > 10 * batchFiles;
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
            assertThat((long) (total - remaining)).as("the killed leader deleted; the job records " + recorded + " (at most two batches unrecorded)")
                    .isBetween(recorded, recorded + 2L * batchFiles);
            assertThat(scraped[0]).as("the killed leader's last scrape").isLessThanOrEqualTo(total - remaining);
            // Data files go first, named by the manifests, in order; the rest waits for later phases.
            assertThat(stored.getString("phase")).as("the killed leader was deleting data files: " + stored).isEqualTo("data");
            List<String> data = before.stream().filter(IcebergLifecycleClusterContract::isDataFile).toList();
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
            assertThat(logged).as("the job's final count: no file counted twice, at most two batches uncounted").isBetween((long) total - 2L * batchFiles, (long) total);
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

    /** An engine's catalog client on {@code n}, with the backend's {@link #engineOptions}. */
    org.apache.iceberg.rest.RESTCatalog client(ClusterHarness.Node n) {
        org.apache.iceberg.rest.RESTCatalog c = new org.apache.iceberg.rest.RESTCatalog();
        c.setConf(new org.apache.hadoop.conf.Configuration());
        Map<String, String> options = new java.util.HashMap<>(engineOptions());
        options.put("uri", "http://127.0.0.1:" + n.httpPort() + "/iceberg");
        c.initialize(n.id(), options);
        return c;
    }

    static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
