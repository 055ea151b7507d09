package lake.purge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import lake.catalog.model.CatalogKeys;
import lake.catalog.model.PurgeJob;
import lake.catalog.model.PurgeJob.Phase;
import lake.config.LifecycleSettings;
import lake.config.Settings;
import lake.meta.GuardedMutation;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;
import lake.meta.dynamo.MotoServer;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.ImmutableGenericPartitionStatisticsFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.BaseView;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The life of a dropped table's files on one backend (docs/catalog.md, "The life of a dropped
 * table"): retention, the purge queue and its fenced worker, an undrop that cancels a purge, a
 * location another table shares. Real nodes, the Iceberg Java client, the warehouse on moto's S3.
 */
public abstract class PurgeContract {
    static final long T0 = 1_700_000_000_000L;
    static final long HOUR = 3_600_000L;
    static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    static final Map<String, String> NODE_KEYS = Map.of("aws.accessKeyId", "test", "aws.secretAccessKey", "test", "aws.region", "us-east-1");
    static S3Client s3;
    static String bucket;
    static int run;

    @TempDir Path dir;
    NodeHarness h;
    ManualClock clock;
    MetasrvNode node;
    String warehouse;

    /** The backend the nodes' store is: RocksDB under {@code dir}, or a fresh DynamoDB table on moto. */
    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @BeforeAll
    static void bucket() {
        // The node's S3FileIO takes its credentials from the SDK's default chain, as in production.
        NODE_KEYS.forEach(System::setProperty);
        s3 = S3Client.builder().endpointOverride(MotoServer.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build();
        bucket = "lake-purge-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        s3.createBucket(b -> b.bucket(bucket));
    }

    @AfterAll
    static void closeS3() {
        NODE_KEYS.keySet().forEach(System::clearProperty);
        s3.close();
    }

    @BeforeEach
    void start() throws Exception {
        h = new NodeHarness();
        clock = new ManualClock(T0);
        warehouse = "s3://" + bucket + "/wh" + (++run);
        node = h.deploy(settings("a", new LifecycleSettings(7 * 24 * HOUR, 100, 4)), clock, backend(dir.resolve("store")));
        assertThat(h.campaign(node).isLeader()).isTrue();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    Settings settings(String id, LifecycleSettings lifecycle) {
        return NodeHarness.settings(id, dir.resolve(id), 10_000, 0, 1_000).with(f -> {
            f.catalogRoot = warehouse;
            f.icebergS3Endpoint = MotoServer.endpoint().toString();
            f.lifecycle = lifecycle;
        });
    }

    /**
     * {@code DELETE …?purgeRequested=true} queues the purge in the drop's transaction and the
     * leader's worker deletes, in fenced batches of the configured size, every file the table's
     * metadata reaches — metadata files, manifest lists, manifests, data files — counted on S3
     * before and after; another table's files stay, and the tombstone goes with the last batch.
     */
    @Test
    void purgeRequestedDeletesEveryReachableFile() throws Exception {
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            Table t = c.createTable(TableIdentifier.of("robots", "t"), SCHEMA);
            Table other = c.createTable(TableIdentifier.of("robots", "other"), SCHEMA);
            for (int i = 0; i < 3; i++) append(t, "part-" + i + "-a.parquet", "part-" + i + "-b.parquet");
            append(other, "keep.parquet");
            t.updateProperties().set("owner", "lab").commit();
            t.refresh();
            Set<String> reachable = reachable(t);
            List<String> before = objects(t.location());
            assertThat(reachable).as("six data files, three manifests and lists, five metadata files").hasSize(6 + 3 + 3 + 5);
            assertThat(before).containsExactlyInAnyOrderElementsOf(reachable);
            List<String> otherBefore = objects(other.location());
            double deletedBefore = metric("lake_purge_files_deleted_total");

            HttpResponse<String> dropped = call("DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null);
            assertThat(dropped.statusCode()).as(dropped.body()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(t.location()).isEmpty() && tombstones().isEmpty());
            assertThat(purges()).as("the job went with the tombstone").isEmpty();
            assertThat(metric("lake_purge_files_deleted_total") - deletedBefore).isEqualTo(before.size());
            assertThat(metric("lake_purge_batches_total")).as("batches of at most four files").isGreaterThanOrEqualTo(Math.ceil(before.size() / 4.0));
            assertThat(metric("lake_purge_tables_total")).isEqualTo(1.0);
            assertThat(objects(other.location())).as("another table's files").isEqualTo(otherBefore);
            Table after = c.loadTable(TableIdentifier.of("robots", "other"));
            assertThat(after.currentSnapshot().addedDataFiles(after.io())).hasSize(1);
            assertThat(c.tableExists(TableIdentifier.of("robots", "t"))).isFalse();
        }
    }

    /**
     * A purge deletes a table's delete files (a position delete and an equality delete, each
     * added by a row delta) in its data phase, named by the delete manifests, and its statistics
     * files (a puffin file set by {@code updateStatistics}, a partition-statistics file by
     * {@code updatePartitionStatistics}) in its metadata phase, named by the metadata file. With
     * batches of one file each batch's record names the file it deleted: every file of the table
     * is recorded exactly once, the phases in order, and none is left.
     */
    @Test
    void deleteAndStatisticsFilesArePurgedEachInItsPhase() throws Exception {
        h.close();
        h = new NodeHarness();
        BatchLog log = new BatchLog();
        node = h.deploy(settings("one", new LifecycleSettings(7 * 24 * HOUR, 100, 1)), clock,
                v -> backend(dir.resolve("one")).apply(v).map(log::wrap));
        assertThat(h.campaign(node).isLeader()).isTrue();
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            Table t = c.buildTable(TableIdentifier.of("robots", "t"), SCHEMA).withProperty("format-version", "2").create();
            append(t, "a.parquet", "b.parquet");
            String positional = written(t, t.locationProvider().newDataLocation("pos-deletes.parquet"));
            t.newRowDelta().addDeletes(FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).ofPositionDeletes().withPath(positional)
                    .withFormat(FileFormat.PARQUET).withFileSizeInBytes(3).withRecordCount(1).build()).commit();
            String equality = written(t, t.locationProvider().newDataLocation("eq-deletes.parquet"));
            t.newRowDelta().addDeletes(FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).ofEqualityDeletes(1).withPath(equality)
                    .withFormat(FileFormat.PARQUET).withFileSizeInBytes(3).withRecordCount(1).build()).commit();
            t.refresh();
            long snapshot = t.currentSnapshot().snapshotId();
            String stats = written(t, t.location() + "/metadata/stats-" + java.util.UUID.randomUUID() + ".puffin");
            t.updateStatistics().setStatistics(new GenericStatisticsFile(snapshot, stats, 3, 0, List.of())).commit();
            String partitionStats = written(t, t.location() + "/metadata/partition-stats-" + java.util.UUID.randomUUID() + ".parquet");
            t.updatePartitionStatistics().setPartitionStatistics(ImmutableGenericPartitionStatisticsFile.builder().snapshotId(snapshot)
                    .path(partitionStats).fileSizeInBytes(3).build()).commit();
            t.refresh();
            assertThat(t.statisticsFiles()).extracting(StatisticsFile::path).containsExactly(stats);
            assertThat(t.partitionStatisticsFiles()).extracting(PartitionStatisticsFile::path).containsExactly(partitionStats);
            List<String> before = objects(t.location());
            assertThat(before).contains(positional, equality, stats, partitionStats);

            assertThat(call("DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(60)).until(() -> objects(t.location()).isEmpty() && tombstones().isEmpty());

            Map<String, Phase> phaseOf = new HashMap<>();
            for (BatchLog.Batch b : log.batches) {
                assertThat(b.deleted()).as("a batch of one file: %s", b).isEqualTo(1);
                assertThat(phaseOf.put(b.file(), b.phase())).as("recorded once: %s", b.file()).isNull();
            }
            assertThat(phaseOf.keySet()).as("every file of the table, each by its own batch").containsExactlyInAnyOrderElementsOf(before);
            assertThat(phaseOf).containsEntry(positional, Phase.DATA).containsEntry(equality, Phase.DATA)
                    .containsEntry(stats, Phase.METADATA).containsEntry(partitionStats, Phase.METADATA);
            assertThat(log.batches).extracting(BatchLog.Batch::phase).as("the phases in order").isSortedAccordingTo(Phase::compareTo);
            assertThat(metric("lake_purge_files_deleted_total")).isEqualTo(before.size());
        }
    }

    /**
     * A table dropped without a purge keeps every file for its retention — its namespace's
     * {@code lake.dropped-table-retention-ms}, else the node's {@code table_retention_ms} — listed
     * with when it expires; the passes before then delete nothing; at expiry it is queued and
     * purged. An undropped table is never purged, and a retention that is not a whole number of
     * milliseconds is refused with the namespace.
     */
    @Test
    void purgeDeletesNothingBeforeRetentionEnds() throws Exception {
        try (RESTCatalog c = client(node)) {
            assertThatThrownBy(() -> c.createNamespace(Namespace.of("bad"), new HashMap<>(Map.of("lake.dropped-table-retention-ms", "1h"))))
                    .isInstanceOf(org.apache.iceberg.exceptions.BadRequestException.class).hasMessageContaining("lake.dropped-table-retention-ms");
            c.createNamespace(Namespace.of("short"), new HashMap<>(Map.of("lake.dropped-table-retention-ms", Long.toString(HOUR))));
            c.createNamespace(Namespace.of("long"));
            Table a = c.createTable(TableIdentifier.of("short", "a"), SCHEMA);
            Table b = c.createTable(TableIdentifier.of("long", "b"), SCHEMA);
            Table kept = c.createTable(TableIdentifier.of("short", "kept"), SCHEMA);
            for (Table t : List.of(a, b, kept)) append(t, "x.parquet");
            List<String> filesA = objects(a.location()), filesB = objects(b.location()), filesKept = objects(kept.location());
            long droppedAt = clock.wallMillis();
            assertThat(c.dropTable(TableIdentifier.of("short", "a"), false)).isTrue();
            assertThat(c.dropTable(TableIdentifier.of("long", "b"), false)).isTrue();
            assertThat(c.dropTable(TableIdentifier.of("short", "kept"), false)).isTrue();

            Map<String, Long> expires = new HashMap<>();
            for (JsonNode t : tombstones()) expires.put(t.get("namespace").asText() + "." + t.get("name").asText(), t.get("expires_ms").asLong());
            assertThat(expires).containsEntry("short.a", droppedAt + HOUR).containsEntry("long.b", droppedAt + 7 * 24 * HOUR);
            JsonNode listed = json(call("GET", "/iceberg/management/v1/namespaces/short/dropped-tables", null)).get("dropped-tables");
            assertThat(listed).extracting(t -> t.get("expires-at-ms").asLong()).containsOnly(droppedAt + HOUR);
            HttpResponse<String> undrop = call("POST", "/iceberg/management/v1/namespaces/short/dropped-tables/kept/undrop", "{}");
            assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(200);

            clock.advanceWall(HOUR - 1);
            passes(2);
            assertThat(objects(a.location())).as("a millisecond before its retention ends").isEqualTo(filesA);
            assertThat(purges()).isEmpty();

            clock.advanceWall(1);
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(a.location()).isEmpty());
            await().atMost(Duration.ofSeconds(10)).until(() -> tombstones().size() == 1);
            passes(2);
            assertThat(objects(b.location())).as("the node's retention is a week").isEqualTo(filesB);
            assertThat(objects(kept.location())).as("undropped: live again").isEqualTo(filesKept);

            clock.advanceWall(7 * 24 * HOUR);
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(b.location()).isEmpty() && tombstones().isEmpty());
            assertThat(objects(kept.location())).isEqualTo(filesKept);
            assertThat(c.loadTable(TableIdentifier.of("short", "kept")).currentSnapshot()).isNotNull();
        }
    }

    /**
     * The paused-leader scenario: the leader's worker has read the queued purge, listed the
     * files and sent its claim of the first batch — then pauses (its claim held back) through
     * its lease's end. Another node takes over and the table is undropped there. When the paused
     * leader resumes, its claim fails at the lease guard: it deletes nothing, and the table is
     * whole, with the same UUID and snapshots.
     */
    @Test
    void deposedLeaderPurgesNothingAfterUndrop() throws Exception {
        HeldClaims held = new HeldClaims();
        MetasrvNode a = heldLeader(held);
        // The other node's worker idles (a day between passes): only the paused leader's claim is in play.
        MetasrvNode b = h.deploy(settings("pb", new LifecycleSettings(7 * 24 * HOUR, 24 * HOUR, 4)), new ManualClock(T0 + 20_000), null);
        try (RESTCatalog c = client(a)) {
            c.createNamespace(Namespace.of("robots"));
            Table t = c.createTable(TableIdentifier.of("robots", "t"), SCHEMA);
            append(t, "one.parquet", "two.parquet");
            t.refresh();
            String uuid = t.uuid().toString();
            long snapshot = t.currentSnapshot().snapshotId();
            List<String> files = objects(t.location());

            held.armed.set(true);
            assertThat(call(a, "DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> held.claim.isPresent());

            assertThat(h.campaign(b).isLeader()).as("b takes over once a's lease ran out on b's clock").isTrue();
            HttpResponse<String> undrop = call(b, "POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/t/undrop", "{}");
            assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(200);

            TransactionOutcome claim = held.release();
            assertThat(claim.applied()).as("the paused leader's claim").isFalse();
            assertThat(claim.guardFailed()).as("refused at the lease guard").isTrue();
            await("the refused write deposes it").atMost(Duration.ofSeconds(30)).until(() -> !h.status(a).isLeader());
            assertThat(objects(t.location())).as("every file of the undropped table").isEqualTo(files);
            assertThat(metric(a, "lake_purge_files_deleted_total")).isZero();
            try (RESTCatalog onB = client(b)) {
                Table back = onB.loadTable(TableIdentifier.of("robots", "t"));
                assertThat(back.uuid().toString()).isEqualTo(uuid);
                assertThat(back.currentSnapshot().snapshotId()).isEqualTo(snapshot);
                assertThat(back.currentSnapshot().addedDataFiles(back.io())).hasSize(2);
            }
        }
    }

    /**
     * A leader that deleted batches and lost its lease before recording them (its record held
     * back, then refused at the lease guard) leaves files gone that its job does not show: two
     * batches, since a batch is recorded while the next one is deleted. The next leader names the
     * phase's files again from the table's metadata, looks for two batches' files (of the size
     * the claims recorded) before sending any, and deletes exactly the files still there: none
     * sent twice, none left, each counted once.
     */
    @Test
    void nextLeaderLooksForABatchItsPredecessorLeftUnrecorded() throws Exception {
        HeldClaims held = new HeldClaims(HeldClaims::isProgress);
        MetasrvNode a = heldLeader(held);
        MetasrvNode b = h.deploy(settings("pb", new LifecycleSettings(7 * 24 * HOUR, 100, 4)), new ManualClock(T0 + 20_000), null);
        try (RESTCatalog c = client(a)) {
            Table t = threeAppends(c);
            List<String> before = objects(t.location());
            List<String> data = before.stream().filter(f -> f.endsWith(".parquet")).sorted().toList();
            assertThat(data).hasSize(6);

            held.armed.set(true);
            assertThat(call(a, "DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> held.claim.isPresent());
            await().atMost(Duration.ofSeconds(30)).until(() -> metric(a, "lake_purge_files_deleted_total") == 6.0);
            List<String> gone = before.stream().filter(f -> !objects(t.location()).contains(f)).toList();
            assertThat(gone).as("a deleted two batches, the first recorded (held) while the second went: the six data files, named by the manifests")
                    .isEqualTo(data);
            JsonNode job = json(call(a, "GET", "/v1/catalog/purges", null)).get("purges").get(0);
            assertThat(job.get("phase").asText()).isEqualTo("data");
            assertThat(job.get("batches").asLong()).as("both claimed").isEqualTo(2);
            assertThat(job.get("deleted").asLong()).as("neither recorded").isZero();

            assertThat(h.campaign(b).isLeader()).as("b takes over once a's lease ran out on b's clock").isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(t.location()).isEmpty() && tombstones(b).isEmpty());
            TransactionOutcome record = held.release();
            assertThat(record.applied()).as("a's record of its batch, after the takeover").isFalse();
            assertThat(record.guardFailed()).isTrue();
            assertThat(metric(a, "lake_purge_files_deleted_total")).as("a's two batches").isEqualTo(6.0);
            assertThat(metric(b, "lake_purge_files_deleted_total")).as("b deleted exactly the files still there, each once")
                    .isEqualTo(before.size() - 6.0);
        }
    }

    /**
     * Once a batch is claimed its files may be gone, and the claim's delete is not itself fenced:
     * a leader paused between claim and delete deletes when it wakes. So an undrop is refused
     * from the first claim on (`409`, naming the purge), writes nothing, and the purge goes on to
     * the end: the table is never restored with files missing.
     */
    @Test
    void undropIsRefusedOnceABatchIsClaimed() throws Exception {
        HeldClaims held = new HeldClaims(HeldClaims::isProgress);
        MetasrvNode a = heldLeader(held);
        try (RESTCatalog c = client(a)) {
            Table t = threeAppends(c);

            held.armed.set(true);
            assertThat(call(a, "DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> held.claim.isPresent());
            JsonNode tombstone = tombstones(a).get(0);
            JsonNode job = json(call(a, "GET", "/v1/catalog/purges", null)).get("purges").get(0);
            assertThat(job.get("state").asText()).as("the first batch claimed, its files deleted, its record held").isEqualTo("purging");

            HttpResponse<String> undrop = call(a, "POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/t/undrop", "{}");
            assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(409);
            assertThat(undrop.body()).contains("being purged");
            HttpResponse<String> lake = call(a, "POST", "/v1/namespaces/robots/tables/t/undrop", "{}");
            assertThat(lake.statusCode()).as(lake.body()).isEqualTo(409);
            assertThat(tombstones(a)).as("the tombstone, unchanged").containsExactly(tombstone);
            assertThat(c.tableExists(TableIdentifier.of("robots", "t"))).isFalse();

            assertThat(held.release().applied()).as("the held record, once released").isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(t.location()).isEmpty() && tombstones(a).isEmpty());
            assertThat(c.tableExists(TableIdentifier.of("robots", "t"))).isFalse();
        }
    }

    /**
     * Files a table's metadata names outside its location (an append of another table's files) are
     * never deleted, and the purge says how many it left: counted by every batch into the job, so
     * the {@code tombstone_purged} event's {@code files_left} is the whole purge's, not its last
     * pass's (a pass does at most 16 batches; this purge takes more).
     */
    @Test
    void filesNamedOutsideTheLocationAreLeftAndCountedAcrossPasses() throws Exception {
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            Table t = c.createTable(TableIdentifier.of("robots", "t"), SCHEMA);
            String outside = "s3://" + bucket + "/outside-" + run;
            var append = t.newFastAppend();
            for (int i = 0; i < 72; i++) {
                // The outside files sort first ("outside-…" before "wh…"): the first pass meets them.
                String path = i < 2 ? outside + "/other-" + i + ".parquet" : t.locationProvider().newDataLocation("part-" + i + ".parquet");
                try (var out = t.io().newOutputFile(path).createOrOverwrite()) {
                    out.write(new byte[] {1, 2, 3});
                }
                append.appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath(path).withFormat(FileFormat.PARQUET)
                        .withFileSizeInBytes(3).withRecordCount(1).build());
            }
            append.commit();
            t.refresh();
            int inside = objects(t.location()).size();
            long revision = json(call("GET", "/v1/revision", null)).get("revision").asLong();

            assertThat(call("DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(60)).until(() -> objects(t.location()).isEmpty() && tombstones().isEmpty());
            assertThat(metric("lake_purge_batches_total")).as("more batches than one pass does").isGreaterThan(16.0);
            assertThat(metric("lake_purge_passes_total")).isGreaterThanOrEqualTo(2.0);
            assertThat(metric("lake_purge_files_deleted_total")).as("every file inside, none outside").isEqualTo(inside);
            assertThat(objects(outside)).as("the files outside the location").hasSize(2);
            JsonNode purged = null;
            for (long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); purged == null; ) {
                assertThat(System.nanoTime()).as("a tombstone_purged event").isLessThan(deadline);
                JsonNode page = json(call("GET", "/v1/catalog/events?after=" + revision + "&wait_ms=1000", null));
                for (JsonNode e : page.get("events")) if (e.toString().contains("\"tombstone_purged\"")) purged = e;
                revision = page.get("cursor").asLong();
            }
            assertThat(purged.findValue("files_left")).as(purged.toString()).isNotNull();
            assertThat(purged.findValue("files_left").asLong()).as(purged.toString()).isEqualTo(2);
            assertThat(purged.findValue("files_deleted").asLong()).isEqualTo(inside);
        }
    }

    /**
     * {@code register} can point a second table at a table's metadata: a purge of the first
     * then refuses (naming the sharer) and deletes nothing; a purge of the registered one deletes
     * nothing either (its location is not its own). Once the sharer is gone, a purge requested
     * again at the management route deletes the files.
     */
    @Test
    void sharedLocationIsNeverPurged() throws Exception {
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            Table t = c.createTable(TableIdentifier.of("robots", "t"), SCHEMA);
            append(t, "one.parquet");
            t.refresh();
            String metadata = ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
            HttpResponse<String> registered = call("POST", "/iceberg/v1/namespaces/robots/register",
                    "{\"name\":\"copy\",\"metadata-location\":\"" + metadata + "\"}");
            assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
            List<String> files = objects(t.location());

            assertThat(call("DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> state("t").equals("refused"));
            assertThat(purge("t").get("message").asText()).contains("shared with live table(s) robots.copy");
            assertThat(objects(t.location())).isEqualTo(files);
            Table copy = c.loadTable(TableIdentifier.of("robots", "copy"));
            assertThat(copy.currentSnapshot().addedDataFiles(copy.io())).hasSize(1);

            assertThat(call("DELETE", "/iceberg/v1/namespaces/robots/tables/copy?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> state("copy").equals("refused"));
            assertThat(purge("copy").get("message").asText()).contains("was not assigned to this table");
            assertThat(objects(t.location())).isEqualTo(files);

            for (String[] bad : new String[][] {{"{\"bogus\":1}", "unknown field bogus"}, {"{\"incarnation-id\":5}", "incarnation-id must be a string"},
                    {"[]", "must be a JSON object"}}) {
                HttpResponse<String> refused = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/t/purge", bad[0]);
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
                assertThat(refused.body()).contains("Invalid purge request", bad[1]);
            }
            assertThat(state("t")).as("a refused request changes nothing").isEqualTo("refused");
            HttpResponse<String> again = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/t/purge", "{}");
            assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
            assertThat(json(again).get("state").asText()).isEqualTo("queued");
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(t.location()).isEmpty());
            assertThat(metric("lake_purge_refused_total")).isEqualTo(2.0);
        }
    }

    /**
     * A table whose metadata disables garbage collection ({@code gc.enabled=false}, Iceberg's mark
     * of a table whose files may be other tables' too) keeps its data files when purged, as
     * Iceberg's own {@code dropTableData} does: its metadata files, manifest lists and manifests go
     * (the last phase lists only its {@code metadata/} directory); its data files stay; job and
     * tombstone go.
     */
    @Test
    void gcDisabledTableKeepsItsDataFilesWhenPurged() throws Exception {
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            Table t = c.buildTable(TableIdentifier.of("robots", "t"), SCHEMA).withProperty("gc.enabled", "false").create();
            append(t, "a.parquet", "b.parquet");
            append(t, "c.parquet");
            t.refresh();
            List<String> data = objects(t.location()).stream().filter(f -> f.startsWith(t.location() + "/data/")).toList();
            assertThat(data).hasSize(3);
            assertThat(objects(t.location() + "/metadata")).as("metadata files, manifest lists, manifests").hasSizeGreaterThanOrEqualTo(3 + 2 + 2);

            HttpResponse<String> dropped = call("DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null);
            assertThat(dropped.statusCode()).as(dropped.body()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> tombstones().isEmpty());
            assertThat(purges()).as("the job went with the tombstone").isEmpty();
            assertThat(objects(t.location())).as("only the data files are left").containsExactlyInAnyOrderElementsOf(data);
        }
    }

    /**
     * A dropped Iceberg view is kept as a table is: listed as deleted (its tombstone, with when it
     * expires; the management face's {@code dropped-views}, with its view UUID), not loadable, its
     * name free (a table takes it, and the undrop is then refused {@code 409}, writing nothing).
     * The undrop at {@code dropped-views} restores the same incarnation, view UUID, metadata
     * location and versions; {@code dropped-tables} does not take a view.
     */
    @Test
    void droppedViewIsKeptListedAndUndroppedWithItsIdentity() throws Exception {
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            TableIdentifier id = TableIdentifier.of("robots", "v");
            View view = twoVersions(c, id);
            String uuid = view.uuid().toString();
            String metadata = ((BaseView) view).operations().current().metadataFileLocation();
            List<Integer> versions = versionIds(view);
            assertThat(versions).hasSize(2);
            String incarnation = json(call("GET", "/v1/namespaces/robots/tables/v", null)).at("/registration/incarnation_id").asText();
            long droppedAt = clock.wallMillis();
            assertThat(c.dropView(id)).isTrue();

            JsonNode tomb = tombstones().get(0);
            assertThat(tombstones()).hasSize(1);
            assertThat(tomb.get("incarnation_id").asText()).isEqualTo(incarnation);
            assertThat(tomb.at("/registration/engine").asText()).isEqualTo("iceberg-view");
            assertThat(tomb.get("expires_ms").asLong()).isEqualTo(droppedAt + 7 * 24 * HOUR);
            JsonNode listed = json(call("GET", "/iceberg/management/v1/namespaces/robots/dropped-views", null)).get("dropped-views");
            assertThat(listed).hasSize(1);
            assertThat(listed.get(0).at("/identifier/name").asText()).isEqualTo("v");
            assertThat(listed.get(0).get("incarnation-id").asText()).isEqualTo(incarnation);
            assertThat(listed.get(0).get("view-uuid").asText()).isEqualTo(uuid);
            assertThat(listed.get(0).get("metadata-location").asText()).isEqualTo(metadata);
            assertThat(listed.get(0).get("expires-at-ms").asLong()).isEqualTo(droppedAt + 7 * 24 * HOUR);
            assertThat(listed.get(0).get("purge").isNull()).isTrue();
            assertThat(json(call("GET", "/iceberg/management/v1/namespaces/robots/dropped-tables", null)).get("dropped-tables"))
                    .as("a view is not a dropped table").isEmpty();
            assertThat(c.viewExists(id)).as("not loadable").isFalse();
            assertThatThrownBy(() -> c.loadView(id)).isInstanceOf(org.apache.iceberg.exceptions.NoSuchViewException.class);

            c.createTable(id, SCHEMA);
            HttpResponse<String> taken = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-views/v/undrop", "{}");
            assertThat(taken.statusCode()).as(taken.body()).isEqualTo(409);
            assertThat(taken.body()).contains("undrop under another name");
            assertThat(tombstones()).as("the tombstone, unchanged").containsExactly(tomb);
            HttpResponse<String> asTable = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/v/undrop",
                    "{\"incarnation-id\":\"" + incarnation + "\"}");
            assertThat(asTable.statusCode()).as(asTable.body()).isEqualTo(404);
            assertThat(asTable.body()).contains("iceberg-view");

            assertThat(c.dropTable(id, false)).isTrue();
            HttpResponse<String> twice = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-views/v/undrop", "{}");
            assertThat(twice.statusCode()).as("the name was dropped twice: " + twice.body()).isEqualTo(400);
            assertThat(twice.body()).contains(incarnation);
            HttpResponse<String> back = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-views/v/undrop",
                    "{\"incarnation-id\":\"" + incarnation + "\"}");
            assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
            assertThat(json(back).get("metadata-location").asText()).isEqualTo(metadata);
            assertThat(json(back).at("/metadata/view-uuid").asText()).isEqualTo(uuid);

            View restored = c.loadView(id);
            assertThat(restored.uuid().toString()).isEqualTo(uuid);
            assertThat(((BaseView) restored).operations().current().metadataFileLocation()).isEqualTo(metadata);
            assertThat(versionIds(restored)).isEqualTo(versions);
            assertThat(restored.currentVersion().versionId()).isEqualTo(view.currentVersion().versionId());
            assertThat(json(call("GET", "/v1/namespaces/robots/tables/v", null)).at("/registration/incarnation_id").asText())
                    .as("the same incarnation").isEqualTo(incarnation);
            assertThat(tombstones()).as("the dropped table's alone").extracting(t -> t.at("/registration/engine").asText()).containsExactly("iceberg");
            assertThat(json(call("GET", "/iceberg/management/v1/namespaces/robots/dropped-views", null)).get("dropped-views")).isEmpty();
        }
    }

    /**
     * A live table with {@code gc.enabled=false} whose metadata names another table's data file
     * (as after Spark's {@code add_files} or {@code snapshot}) blocks that table's purge: refused,
     * naming it, nothing deleted. Once it is dropped, the purge requested again deletes the files.
     */
    @Test
    void liveTableWithGcDisabledNamingTheFilesBlocksThePurge() throws Exception {
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            Table a = c.createTable(TableIdentifier.of("robots", "a"), SCHEMA);
            append(a, "shared.parquet");
            a.refresh();
            DataFile shared = a.currentSnapshot().addedDataFiles(a.io()).iterator().next();
            Table b = c.buildTable(TableIdentifier.of("robots", "b"), SCHEMA).withProperty("gc.enabled", "false").create();
            b.newFastAppend().appendFile(shared).commit();
            List<String> files = objects(a.location());

            assertThat(call("DELETE", "/iceberg/v1/namespaces/robots/tables/a?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> state("a").equals("refused"));
            assertThat(purge("a").get("message").asText()).contains("shared with live table(s) robots.b", "gc.enabled=false");
            assertThat(objects(a.location())).isEqualTo(files);
            Table stillB = c.loadTable(TableIdentifier.of("robots", "b"));
            assertThat(stillB.currentSnapshot().addedDataFiles(stillB.io())).extracting(DataFile::location).containsExactly(shared.location());

            assertThat(c.dropTable(TableIdentifier.of("robots", "b"), false)).isTrue();
            HttpResponse<String> again = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/a/purge", "{}");
            assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(a.location()).isEmpty());
        }
    }

    /**
     * A dropped view's metadata files, under the location the catalog assigned it, are purged:
     * at once when asked at {@code dropped-views/{v}/purge} (not at {@code dropped-tables}: a view
     * is not a table), else when its retention ends, not before; job and tombstone go with them.
     */
    @Test
    void droppedViewIsPurgedWithItsMetadataFiles() throws Exception {
        try (RESTCatalog c = client(node)) {
            c.createNamespace(Namespace.of("robots"));
            View kept = twoVersions(c, TableIdentifier.of("robots", "kept"));
            View asked = twoVersions(c, TableIdentifier.of("robots", "asked"));
            List<String> keptFiles = objects(kept.location()), askedFiles = objects(asked.location());
            assertThat(keptFiles).as("a metadata file a version").hasSize(2).allMatch(f -> f.endsWith(".metadata.json"));
            assertThat(askedFiles).hasSize(2);
            assertThat(c.dropView(TableIdentifier.of("robots", "kept"))).isTrue();
            assertThat(c.dropView(TableIdentifier.of("robots", "asked"))).isTrue();

            HttpResponse<String> asTable = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/asked/purge", "{}");
            assertThat(asTable.statusCode()).as(asTable.body()).isEqualTo(404);
            assertThat(purges()).as("nothing queued").isEmpty();
            HttpResponse<String> purge = call("POST", "/iceberg/management/v1/namespaces/robots/dropped-views/asked/purge", "{}");
            assertThat(purge.statusCode()).as(purge.body()).isEqualTo(202);
            assertThat(json(purge).get("state").asText()).isEqualTo("queued");
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(asked.location()).isEmpty() && tombstones().size() == 1);
            passes(2);
            assertThat(objects(kept.location())).as("its retention has not ended").isEqualTo(keptFiles);

            clock.advanceWall(7 * 24 * HOUR);
            await().atMost(Duration.ofSeconds(30)).until(() -> objects(kept.location()).isEmpty() && tombstones().isEmpty());
            assertThat(purges()).as("the jobs went with the tombstones").isEmpty();
            assertThat(metric("lake_purge_files_deleted_total")).isEqualTo(4.0);
            assertThat(json(call("GET", "/iceberg/management/v1/namespaces/robots/dropped-views", null)).get("dropped-views")).isEmpty();
            assertThat(c.viewExists(TableIdentifier.of("robots", "kept"))).isFalse();
        }
    }

    /**
     * A purge that deleted files and was then refused (a table registered at the dropped table's
     * metadata while its first record was held: the next pass refuses the job) leaves a table with
     * files gone: its undrop is refused ({@code 409}, "being purged") though the job is no longer
     * {@code purging}, and the tombstone stays (from the independent review's probe).
     */
    @Test
    void undropIsRefusedAfterAPurgeThatDeletedFilesWasRefused() throws Exception {
        HeldClaims held = new HeldClaims(HeldClaims::isProgress);
        MetasrvNode a = heldLeader(held);
        try (RESTCatalog c = client(a)) {
            c.createNamespace(Namespace.of("robots"));
            Table t = c.createTable(TableIdentifier.of("robots", "t"), SCHEMA);
            String[] names = new String[100];
            for (int i = 0; i < 100; i++) names[i] = "p-" + i + ".parquet";
            append(t, names);
            t.refresh();
            String metadata = ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
            int before = objects(t.location()).size();
            held.armed.set(true);
            assertThat(call(a, "DELETE", "/iceberg/v1/namespaces/robots/tables/t?purgeRequested=true", null).statusCode()).isEqualTo(204);
            await().atMost(Duration.ofSeconds(30)).until(() -> held.claim.isPresent());
            HttpResponse<String> registered = call(a, "POST", "/iceberg/v1/namespaces/robots/register",
                    "{\"name\":\"copy\",\"metadata-location\":\"" + metadata + "\"}");
            assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
            assertThat(held.release().applied()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> purges(a).get(0).get("state").asText().equals("refused"));
            assertThat(objects(t.location()).size()).as("files were deleted before the refusal").isLessThan(before);
            JsonNode tombstone = tombstones(a).stream().filter(x -> x.get("name").asText().equals("t")).findFirst().orElseThrow();

            HttpResponse<String> undrop = call(a, "POST", "/iceberg/management/v1/namespaces/robots/dropped-tables/t/undrop", "{}");
            assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(409);
            assertThat(undrop.body()).contains("being purged");
            HttpResponse<String> lake = call(a, "POST", "/v1/namespaces/robots/tables/t/undrop", "{}");
            assertThat(lake.statusCode()).as(lake.body()).isEqualTo(409);
            assertThat(tombstones(a)).as("the tombstone, unchanged").contains(tombstone);
            assertThat(c.tableExists(TableIdentifier.of("robots", "t"))).isFalse();
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------

    /** Every applied record of a purge batch, in order: the job's phase and last file then (with batches of one, the file) and how many files it counted. */
    static final class BatchLog {
        record Batch(Phase phase, String file, long deleted) {}

        final List<Batch> batches = new java.util.concurrent.CopyOnWriteArrayList<>();

        MetaStore wrap(MetaStore real) {
            return transacting(real, tx -> real.transact(tx).onSuccess(o -> {
                if (!o.applied()) return;
                for (Transaction.Op op : tx.ops()) {
                    if (!op.key().startsWith(CatalogKeys.PURGE_QUEUE) || op.value() == null || op.expected() == null) continue;
                    PurgeJob was = PurgeJob.parse(op.key(), op.expected()), now = PurgeJob.parse(op.key(), op.value());
                    // A batch's record: on its own, or with the next batch's claim (one delete is in flight while it is written).
                    if (now.state() == PurgeJob.State.PURGING && now.deleted() > was.deleted()) {
                        batches.add(new Batch(now.phase(), now.after(), now.deleted() - was.deleted()));
                    }
                }
            }));
        }
    }

    /** {@code real}, its transactions sent through {@code transact}. */
    public static MetaStore transacting(MetaStore real, Function<Transaction, Future<TransactionOutcome>> transact) {
        return new MetaStore() {
            @Override public Future<Optional<byte[]>> get(String key) { return real.get(key); }
            @Override public Future<Boolean> cas(String key, byte[] expected, byte[] value) { return real.cas(key, expected, value); }
            @Override public Future<Boolean> delete(String key, byte[] expected) { return real.delete(key, expected); }
            @Override public Future<ScanPage> scanPrefix(String prefix, String c, int limit) { return real.scanPrefix(prefix, c, limit); }
            @Override public Future<Optional<String>> lastKey(String prefix) { return real.lastKey(prefix); }
            @Override public Future<Void> close() { return real.close(); }
            @Override public Future<Boolean> guardedMutate(GuardedMutation m) { return real.guardedMutate(m); }
            @Override public Future<TransactionOutcome> transact(Transaction tx) { return transact.apply(tx); }
        };
    }

    /** View {@code id}, created and then replaced once: two versions, two metadata files. */
    static View twoVersions(RESTCatalog c, TableIdentifier id) {
        c.buildView(id).withSchema(SCHEMA).withDefaultNamespace(id.namespace()).withQuery("spark", "select 1 as id").create();
        c.loadView(id).replaceVersion().withSchema(SCHEMA).withDefaultNamespace(id.namespace()).withQuery("spark", "select 2 as id").commit();
        return c.loadView(id);
    }

    static List<Integer> versionIds(View v) {
        List<Integer> ids = new ArrayList<>();
        v.versions().forEach(x -> ids.add(x.versionId()));
        return ids;
    }

    /** Three bytes written at {@code path} through the table's FileIO; the path. */
    static String written(Table t, String path) throws Exception {
        try (var out = t.io().newOutputFile(path).createOrOverwrite()) {
            out.write(new byte[] {1, 2, 3});
        }
        return path;
    }

    /** Holds back the first purge claim sent while armed (the leader "pauses" with it in hand) until released. */
    static final class HeldClaims {
        final AtomicBoolean armed = new AtomicBoolean();
        private final java.util.function.Predicate<Transaction> which;
        volatile Optional<Transaction> claim = Optional.empty();
        private final Promise<Void> released = Promise.promise();
        private volatile Future<TransactionOutcome> outcome;

        MetaStore wrap(MetaStore real) {
            return transacting(real, tx -> {
                if (which.test(tx) && armed.compareAndSet(true, false)) {
                    claim = Optional.of(tx);
                    outcome = released.future().compose(v -> real.transact(tx));
                    return outcome;
                }
                return real.transact(tx);
            });
        }

        /** Holds the first transaction {@code which} picks. */
        HeldClaims(java.util.function.Predicate<Transaction> which) {
            this.which = which;
        }

        /** Holds the worker's first claim of a batch. */
        HeldClaims() {
            this(HeldClaims::isClaim);
        }

        /** A claim: the job, purging, with one more batch. */
        static boolean isClaim(Transaction tx) {
            return jobChange(tx, (was, now) -> now.state() == lake.catalog.model.PurgeJob.State.PURGING && now.batches() == was.batches() + 1);
        }

        /** A batch's progress: the job, purging, with the batch's files counted. */
        static boolean isProgress(Transaction tx) {
            return jobChange(tx, (was, now) -> now.state() == lake.catalog.model.PurgeJob.State.PURGING && now.deleted() > was.deleted());
        }

        private static boolean jobChange(Transaction tx, java.util.function.BiPredicate<lake.catalog.model.PurgeJob, lake.catalog.model.PurgeJob> change) {
            return tx.ops().stream().anyMatch(op -> op.key().startsWith(CatalogKeys.PURGE_QUEUE) && op.value() != null && op.expected() != null
                    && change.test(lake.catalog.model.PurgeJob.parse(op.key(), op.expected()), lake.catalog.model.PurgeJob.parse(op.key(), op.value())));
        }

        TransactionOutcome release() throws Exception {
            released.complete();
            return NodeHarness.await(outcome);
        }
    }

    /**
     * A fresh cluster's first node, {@code pa}, leading at {@code T0} with batches of four and a
     * pass every 100 ms, its store (a shared one, under {@code dir/shared} for RocksDB) wrapped
     * by {@code held}; the test's own node is closed with its harness.
     */
    MetasrvNode heldLeader(HeldClaims held) throws Exception {
        h.close();
        h = new NodeHarness();
        MetasrvNode a = h.deploy(settings("pa", new LifecycleSettings(7 * 24 * HOUR, 100, 4)), new ManualClock(T0),
                v -> backend(dir.resolve("shared")).apply(v).map(s -> held.wrap(s)));
        assertThat(h.campaign(a).isLeader()).isTrue();
        return a;
    }

    /** Namespace {@code robots} and its table {@code t} with three appends of two data files each (six files, three snapshots). */
    static Table threeAppends(RESTCatalog c) throws Exception {
        c.createNamespace(Namespace.of("robots"));
        Table t = c.createTable(TableIdentifier.of("robots", "t"), SCHEMA);
        for (int i = 0; i < 3; i++) append(t, "part-" + i + "-a.parquet", "part-" + i + "-b.parquet");
        t.refresh();
        return t;
    }

    RESTCatalog client(MetasrvNode n) {
        RESTCatalog c = new RESTCatalog();
        c.setConf(new org.apache.hadoop.conf.Configuration());
        Map<String, String> p = new HashMap<>();
        p.put("uri", "http://127.0.0.1:" + n.httpPort() + "/iceberg");
        p.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        p.put("s3.endpoint", MotoServer.endpoint().toString());
        p.put("s3.path-style-access", "true");
        p.put("s3.access-key-id", "test");
        p.put("s3.secret-access-key", "test");
        p.put("client.region", "us-east-1");
        p.put("http-client.type", "urlconnection");
        c.initialize("engine", p);
        return c;
    }

    /** Data files written to {@code t}'s data directory and appended in one commit. */
    static void append(Table t, String... names) throws Exception {
        var append = t.newFastAppend();
        for (String name : names) {
            String path = t.locationProvider().newDataLocation(name);
            try (var out = t.io().newOutputFile(path).createOrOverwrite()) {
                out.write(new byte[] {1, 2, 3});
            }
            append.appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath(path).withFormat(FileFormat.PARQUET)
                    .withFileSizeInBytes(3).withRecordCount(1).build());
        }
        append.commit();
    }

    /** Every file the table's current metadata reaches: its metadata log and the current file, each snapshot's list, manifests, data files. */
    static Set<String> reachable(Table t) {
        TableMetadata m = ((org.apache.iceberg.HasTableOperations) t).operations().current();
        Set<String> out = new HashSet<>();
        out.add(m.metadataFileLocation());
        m.previousFiles().forEach(e -> out.add(e.file()));
        for (Snapshot s : m.snapshots()) {
            out.add(s.manifestListLocation());
            for (ManifestFile mf : s.allManifests(t.io())) {
                out.add(mf.path());
                try (var files = org.apache.iceberg.ManifestFiles.read(mf, t.io())) {
                    for (DataFile f : files) out.add(f.location());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
        return out;
    }

    /** The objects under an {@code s3://} location, as {@code s3://} paths, in key order. */
    static List<String> objects(String location) {
        return objects(s3, location);
    }

    /** As {@link #objects(String)}, listed with {@code s3} (another moto's, say: EnginesOnS3Test's). */
    public static List<String> objects(S3Client s3, String location) {
        String rest = location.substring("s3://".length());
        String b = rest.substring(0, rest.indexOf('/'));
        String prefix = rest.substring(b.length() + 1) + "/";
        List<String> out = new ArrayList<>();
        for (S3Object o : s3.listObjectsV2Paginator(r -> r.bucket(b).prefix(prefix)).contents()) out.add("s3://" + b + "/" + o.key());
        return out;
    }

    List<JsonNode> tombstones() throws Exception {
        return tombstones(node);
    }

    /** {@code GET /v1/catalog/tombstones} on {@code on}: the dropped tables, each as its JSON. */
    public static List<JsonNode> tombstones(MetasrvNode on) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        json(call(on, "GET", "/v1/catalog/tombstones", null)).get("tombstones").forEach(out::add);
        return out;
    }

    List<JsonNode> purges() throws Exception {
        return purges(node);
    }

    /** {@code GET /v1/catalog/purges} on {@code on}: the purge queue, each job as its JSON. */
    public static List<JsonNode> purges(MetasrvNode on) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        json(call(on, "GET", "/v1/catalog/purges", null)).get("purges").forEach(out::add);
        return out;
    }

    JsonNode purge(String table) throws Exception {
        return purges().stream().filter(p -> p.get("name").asText().equals(table)).findFirst().orElseThrow();
    }

    String state(String table) throws Exception {
        return purges().stream().filter(p -> p.get("name").asText().equals(table)).map(p -> p.get("state").asText()).findFirst().orElse("none");
    }

    /** Waits until the leader's worker has finished {@code n} more passes. */
    void passes(int n) throws Exception {
        passes(node, n);
    }

    void passes(MetasrvNode on, int n) throws Exception {
        double from = metric(on, "lake_purge_passes_total");
        await().atMost(Duration.ofSeconds(30)).until(() -> metric(on, "lake_purge_passes_total") >= from + n);
    }

    double metric(String name) throws Exception {
        return metric(node, name);
    }

    /** The sum of a meter's samples in {@code /metrics} (0 while it has none). */
    public static double metric(MetasrvNode on, String name) throws Exception {
        double sum = 0;
        for (String line : call(on, "GET", "/metrics", null).body().split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return sum;
    }

    HttpResponse<String> call(String method, String path, String body) throws Exception {
        return call(node, method, path, body);
    }

    static HttpResponse<String> call(MetasrvNode on, String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + on.httpPort() + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isLessThan(300);
        return JSON.readTree(r.body());
    }
}
