package lake.orphans;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import lake.catalog.model.CatalogKeys;
import lake.meta.MetaStore;
import lake.meta.TransactionOutcome;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The orphan sweep of one node over a {@code file:} warehouse, on each backend
 * ({@link RocksOrphanSweepTest}, {@link DynamoOrphanSweepTest}), driven as an operator and an
 * engine would: tables written through the Iceberg Java client, the sweep asked over real HTTP
 * ({@code POST /iceberg/management/v1/namespaces/{ns}/tables/{t}/orphan-files}).
 */
abstract class OrphanSweepContract {
    static final ObjectMapper JSON = new ObjectMapper();
    static final long DAY = 24L * 3600 * 1000;
    static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));
    static final TableIdentifier EPISODES = TableIdentifier.of("robots", "episodes");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir Path dir;
    NodeHarness h;
    /** The node that leads: {@code a}, until {@link #staleLeaderCommit} has {@code b} take over. */
    MetasrvNode leader;
    ManualClock clock;
    int port;
    RESTCatalog client;
    /** Holds back a's pointer swap of robots.episodes when armed ({@link #staleLeaderCommit}). */
    final HeldSwap held = new HeldSwap();

    /** The store node a hosts: RocksDB under {@code dir}, or a fresh DynamoDB table on moto. */
    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @BeforeEach
    void leader() throws Exception {
        h = new NodeHarness();
        // The node's wall clock starts at the file system's, so files' modification times read as ages.
        clock = new ManualClock(System.currentTimeMillis());
        leader = h.deploy(NodeHarness.settings("a", dir, 10_000, 0, 1_000), clock, v -> backend(dir.resolve("store")).apply(v).map(held::wrap));
        assertThat(h.campaign(leader).isLeader()).isTrue();
        port = leader.httpPort();
        client = engine(port);
        client.createNamespace(Namespace.of("robots"));
    }

    /** An engine's catalog client on the node at {@code port}. */
    private static RESTCatalog engine(int port) {
        RESTCatalog c = new RESTCatalog();
        // The engine writes through the node's own local FileIO (Hadoop's would add .crc files nothing references).
        c.initialize("engine", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg", "io-impl", "lake.iceberg.files.NioFileIO"));
        return c;
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) client.close();
        h.close();
    }

    /** What {@link #lifeOfATable} left: the table and the two files that are orphans by design. */
    record Written(Table table, String staleMetadata, List<String> abandoned) {}

    /**
     * An abandoned staged create of {@code robots.episodes} (a data file, and the manifest and
     * manifest list its append wrote, never committed), then the live table of that name: 12
     * appends, a row delta with a position-delete file, a delete that leaves a file referenced only
     * by older snapshots, a statistics file; and a stale leader's commit ({@link #staleLeaderCommit}):
     * its metadata file written in the metadata directory, its pointer swap refused. Afterwards the
     * leader, {@link #port}, {@link #clock} and {@link #client} are node b's.
     */
    private Written lifeOfATable() throws Exception {
        Transaction staged = client.buildTable(EPISODES, SCHEMA).withProperty("format-version", "2").createTransaction();
        Table stagedTable = staged.table();
        staged.newFastAppend().appendFile(dataFile(write(stagedTable, stagedTable.locationProvider().newDataLocation("abandoned.parquet")))).commit();
        List<String> abandoned = files(stagedTable.location());
        assertThat(abandoned).as("the staged create wrote a data file, a manifest and a manifest list").hasSize(3);

        Table t = client.buildTable(EPISODES, SCHEMA).withProperty("format-version", "2").create();
        assertThat(t.location()).as("a directory of its own beside the staged create's").isNotEqualTo(stagedTable.location())
                .startsWith(stagedTable.location().substring(0, stagedTable.location().lastIndexOf('/') + 1));
        List<DataFile> appended = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            DataFile f = dataFile(write(t, t.locationProvider().newDataLocation("part-" + i + ".parquet")));
            t.newFastAppend().appendFile(f).commit();
            appended.add(f);
        }
        DeleteFile deletes = FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned()).ofPositionDeletes()
                .withPath(write(t, t.locationProvider().newDataLocation("deletes-0.parquet"))).withFormat(org.apache.iceberg.FileFormat.PARQUET)
                .withFileSizeInBytes(3).withRecordCount(1).build();
        t.newRowDelta().addDeletes(deletes).commit();
        t.newDelete().deleteFile(appended.get(0)).commit();
        String stats = write(t, t.location() + "/metadata/stats-" + UUID.randomUUID() + ".puffin");
        t.updateStatistics().setStatistics(new GenericStatisticsFile(t.currentSnapshot().snapshotId(), stats, 3, 0, List.of())).commit();
        t.refresh();
        assertThat(t.snapshots()).as("many snapshots").hasSizeGreaterThanOrEqualTo(14);

        return new Written(t, staleLeaderCommit(t), abandoned);
    }

    /**
     * A real stale leader's commit to {@code t}: node a (the leader) takes an engine's commit over
     * HTTP, writes its new metadata file and sends the fenced pointer swap, which is held back (a
     * leader paused with its write in hand). Node b, whose clock is past a's lease, takes over
     * under a newer epoch; then a's swap reaches the store and is refused at the lease guard. The
     * engine is answered 503 (refused by the fence, certainly not applied), the table's pointer
     * never moved, and the file a wrote is one no metadata names: returned. From here on the
     * test talks to b, on b's clock.
     */
    private String staleLeaderCommit(Table t) throws Exception {
        String current = metadataLocation(t);
        List<String> metadataBefore = files(t.location() + "/metadata");
        ManualClock later = new ManualClock(clock.wallMillis() + 20_000);
        // A cluster's nodes share one warehouse (by default a node's is under its own data directory).
        String warehouse = NodeHarness.settings("a", dir, 10_000, 0, 1_000).catalogRoot();
        MetasrvNode b = h.deploy(NodeHarness.settings("b", dir.resolve("b"), 10_000, 0, 1_000).with(f -> f.catalogRoot = warehouse), later, null);

        held.armed.set(true);
        CompletableFuture<HttpResponse<String>> commit = HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/iceberg/v1/namespaces/robots/tables/episodes")).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"requirements\":[{\"type\":\"assert-table-uuid\",\"uuid\":\"" + t.uuid()
                        + "\"}],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"owner\":\"stale\"}}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        org.awaitility.Awaitility.await("a sends its pointer swap").atMost(Duration.ofSeconds(30)).until(() -> held.swap.isPresent());
        List<String> written = files(t.location() + "/metadata").stream().filter(f -> !metadataBefore.contains(f)).toList();
        assertThat(written).as("a wrote its new metadata file before the swap").hasSize(1).allMatch(f -> f.endsWith(".metadata.json"));

        assertThat(h.campaign(b).isLeader()).as("b takes over once a's lease ran out on b's clock").isTrue();
        TransactionOutcome swap = held.release();
        assertThat(swap.applied()).as("a's pointer swap, after the takeover").isFalse();
        assertThat(swap.guardFailed()).as("refused at the lease guard").isTrue();
        HttpResponse<String> refused = commit.get(60, TimeUnit.SECONDS);
        assertThat(refused.statusCode()).as("the engine is told the commit did not apply: " + refused.body()).isEqualTo(503);
        org.awaitility.Awaitility.await("the refused write deposes a").atMost(Duration.ofSeconds(30)).until(() -> !h.status(leader).isLeader());

        leader = b;
        port = b.httpPort();
        clock = later;
        client.close();
        client = engine(port);
        Table now = client.loadTable(EPISODES);
        assertThat(metadataLocation(now)).as("the table's pointer never moved").isEqualTo(current);
        assertThat(now.properties()).doesNotContainKey("owner");
        assertThat(files(t.location() + "/metadata")).as("a's file is still there, named by nothing").contains(written.get(0));
        return written.get(0);
    }

    private static String metadataLocation(Table t) {
        return ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
    }

    /** Holds back the first pointer swap of robots.episodes sent while armed, until released. */
    static final class HeldSwap {
        final AtomicBoolean armed = new AtomicBoolean();
        volatile Optional<lake.meta.Transaction> swap = Optional.empty();
        private final Promise<Void> released = Promise.promise();
        private volatile Future<TransactionOutcome> outcome;

        MetaStore wrap(MetaStore real) {
            return lake.purge.PurgeContract.transacting(real, tx -> {
                if (isSwap(tx) && armed.compareAndSet(true, false)) {
                    swap = Optional.of(tx);
                    outcome = released.future().compose(v -> real.transact(tx));
                    return outcome;
                }
                return real.transact(tx);
            });
        }

        /** A pointer swap: the table's registration replaced, conditioned on its current bytes. */
        private static boolean isSwap(lake.meta.Transaction tx) {
            return tx.ops().stream().anyMatch(op -> op.key().equals(CatalogKeys.table("robots", "episodes")) && op.value() != null
                    && op.expected() != null);
        }

        TransactionOutcome release() throws Exception {
            released.complete();
            return NodeHarness.await(outcome);
        }
    }

    @Test
    void orphanSweepKeepsEveryReferencedFile() throws Exception {
        Written w = lifeOfATable();
        List<String> everything = files(nameDirectory(w.table()));
        clock.advanceWall(4 * DAY);

        HttpResponse<String> r = sweep("{}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        Map<String, String> reported = reported(answer);
        Set<String> expected = new TreeSet<>(w.abandoned());
        expected.add(w.staleMetadata());
        assertThat(reported.keySet()).as("only the stale leader's metadata file and the abandoned staged create's files")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(reported.get(w.staleMetadata())).isEqualTo("stale-metadata");
        w.abandoned().forEach(a -> assertThat(reported.get(a)).as(a).isEqualTo("abandoned-create"));
        assertThat(answer.get("scanned").asLong()).as("every file under the name directory looked at").isEqualTo(everything.size());
        assertThat(answer.get("older-than-ms").asLong()).as("the default safety age").isEqualTo(3 * DAY);
        assertThat(answer.get("deleted").asInt()).isZero();
        assertThat(answer.get("truncated").asBoolean()).isFalse();
        assertThat(files(nameDirectory(w.table()))).as("a dry run deletes nothing").isEqualTo(everything);
    }

    @Test
    void deleteRunRemovesExactlyTheReportedFilesAndTheTableStillReads() throws Exception {
        Written w = lifeOfATable();
        List<String> before = files(nameDirectory(w.table()));
        clock.advanceWall(4 * DAY);
        Set<String> dryRun = reported(JSON.readTree(sweep("{\"delete\":false}").body())).keySet();

        HttpResponse<String> r = sweep("{\"delete\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(reported(answer).keySet()).isEqualTo(dryRun);
        assertThat(answer.get("deleted").asInt()).isEqualTo(dryRun.size());
        List<String> left = new ArrayList<>(before);
        left.removeAll(dryRun);
        assertThat(files(nameDirectory(w.table()))).as("exactly the reported files are gone").isEqualTo(left);

        Table loaded = client.loadTable(EPISODES);
        List<String> planned = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = loaded.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                planned.add(task.file().location());
                assertThat(Files.exists(local(task.file().location()))).as(task.file().location()).isTrue();
            }
        }
        assertThat(planned).as("the table loads and plans its 11 live data files").hasSize(11);
        assertThat(reported(JSON.readTree(sweep("{}").body()))).as("nothing left to report").isEmpty();
    }

    @Test
    void filesYoungerThanTheSafetyAgeAreNeverReported() throws Exception {
        Table t = client.buildTable(EPISODES, SCHEMA).create();
        String old = t.location() + "/metadata/00007-" + UUID.randomUUID() + ".metadata.json";
        String young = t.location() + "/metadata/00008-" + UUID.randomUUID() + ".metadata.json";
        String dataYoung = write(t, t.locationProvider().newDataLocation("failed-write.parquet"));
        write(t, old);
        write(t, young);
        clock.advanceWall(10 * DAY);
        long now = clock.wallMillis();
        Files.setLastModifiedTime(local(old), FileTime.fromMillis(now - 3 * DAY - 1));
        Files.setLastModifiedTime(local(young), FileTime.fromMillis(now - 3 * DAY + 60_000));
        Files.setLastModifiedTime(local(dataYoung), FileTime.fromMillis(now - 60_000));

        assertThat(reported(JSON.readTree(sweep("{}").body()))).as("only the file past the default 3 days")
                .containsOnlyKeys(old).containsEntry(old, "stale-metadata");
        assertThat(reported(JSON.readTree(sweep("{\"older-than-ms\":" + (4 * DAY) + "}").body())))
                .as("a longer safety age reports none of them").isEmpty();
        HttpResponse<String> deleting = sweep("{\"delete\":true}");
        assertThat(JSON.readTree(deleting.body()).get("deleted").asInt()).isEqualTo(1);
        assertThat(Files.exists(local(young))).as("a young file is never deleted").isTrue();
        assertThat(Files.exists(local(dataYoung))).isTrue();
        assertThat(Files.exists(local(old))).isFalse();
    }

    /**
     * Under the name directory, only the live table's own files and never-claimed directories are
     * the sweep's: a dropped incarnation's files (its purge's), a renamed table's, a directory
     * holding a committed table's metadata (one from before location claims, or a table nested in
     * the location), a directory not of the catalog's shape, and a file beside the directories are
     * never reported, whatever their age.
     */
    @Test
    void droppedRenamedAndForeignFilesAreNeverReported() throws Exception {
        Table dropped = client.buildTable(EPISODES, SCHEMA).create();
        List<String> kept = new ArrayList<>();
        kept.add(write(dropped, dropped.location() + "/metadata/00009-" + UUID.randomUUID() + ".metadata.json"));
        kept.add(write(dropped, dropped.locationProvider().newDataLocation("unreferenced.parquet")));
        client.dropTable(EPISODES, false);
        // A purge under way may have deleted its metadata files already: then only its claim keeps the rest.
        for (String f : files(dropped.location())) if (f.endsWith(".metadata.json")) Files.delete(local(f));
        kept.removeIf(f -> f.endsWith(".metadata.json"));
        Table renamed = client.buildTable(EPISODES, SCHEMA).create();
        kept.add(write(renamed, renamed.locationProvider().newDataLocation("unreferenced.parquet")));
        client.renameTable(EPISODES, TableIdentifier.of("robots", "moved"));
        Table live = client.buildTable(EPISODES, SCHEMA).create();
        String nameDir = nameDirectory(live);
        String legacy = nameDir + "/" + UUID.randomUUID();
        kept.add(write(live, legacy + "/metadata/00000-" + UUID.randomUUID() + ".metadata.json"));
        kept.add(write(live, legacy + "/data/part-0.parquet"));
        kept.add(write(live, live.location() + "/nested/metadata/00000-" + UUID.randomUUID() + ".metadata.json"));
        kept.add(write(live, live.location() + "/nested/data/part-0.parquet"));
        kept.add(write(live, nameDir + "/custom/part-0.parquet"));
        kept.add(write(live, nameDir + "/stray.txt"));
        String orphan = write(live, live.location() + "/metadata/00009-" + UUID.randomUUID() + ".metadata.json");
        clock.advanceWall(4 * DAY);

        JsonNode answer = JSON.readTree(sweep("{\"delete\":true}").body());
        assertThat(reported(answer)).as("the live table's own orphan only").containsOnlyKeys(orphan);
        assertThat(answer.get("deleted").asInt()).isEqualTo(1);
        for (String k : kept) assertThat(Files.exists(local(k))).as(k).isTrue();
        assertThat(client.loadTable(TableIdentifier.of("robots", "moved")).location()).as("the renamed table lives under the name directory")
                .startsWith(nameDir + "/");
    }

    @Test
    void safetyAgeBelowTheMinimumIsRefusedNamingTheSetting() throws Exception {
        Table t = client.buildTable(EPISODES, SCHEMA).create();
        String stale = write(t, t.location() + "/metadata/00007-" + UUID.randomUUID() + ".metadata.json");
        clock.advanceWall(10 * DAY);

        HttpResponse<String> young = sweep("{\"older-than-ms\":3600000,\"delete\":true}");
        assertThat(young.statusCode()).as(young.body()).isEqualTo(400);
        assertThat(JSON.readTree(young.body()).at("/error/message").asText()).contains("orphan_min_age_ms").contains("older-than-ms");
        assertThat(Files.exists(local(stale))).as("a refused sweep deletes nothing").isTrue();

        HttpResponse<String> unknown = sweep("{\"older-than\":300000000}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(unknown.body()).at("/error/message").asText()).contains("unknown field older-than");
        assertThat(sweep("{\"delete\":\"yes\"}").statusCode()).isEqualTo(400);
        assertThat(sweep("[]").statusCode()).isEqualTo(400);
    }

    @Test
    void tableWithoutAnAssignedLocationIsRefused() throws Exception {
        TableIdentifier named = TableIdentifier.of("robots", "named");
        client.buildTable(named, SCHEMA).withLocation(dir.resolve("elsewhere").toUri().toString()).create();
        HttpResponse<String> r = call("POST", "/iceberg/management/v1/namespaces/robots/tables/named/orphan-files", "{}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("was not assigned to it by the catalog");
        assertThat(call("POST", "/iceberg/management/v1/namespaces/robots/tables/absent/orphan-files", "{}").statusCode()).isEqualTo(404);
        HttpResponse<String> get = call("GET", "/iceberg/management/v1/namespaces/robots/tables/named/orphan-files", null);
        assertThat(get.statusCode()).as("the route takes POST only (the face answers a wrong method 400)").isEqualTo(400);
        assertThat(JSON.readTree(get.body()).at("/error/message").asText()).contains("Method GET is not allowed");
    }

    /**
     * {@code register} can point a second table at this one's metadata; that table then commits
     * under this location, and its files are not in this table's references. Sweeping this table
     * is refused, naming the sharer, and nothing is reported or deleted: the sharer still loads
     * and plans its files, even with the safety age long past.
     */
    @Test
    void sweepRefusesALocationAnotherLiveTableShares() throws Exception {
        Table t = client.createTable(EPISODES, SCHEMA);
        t.newFastAppend().appendFile(dataFile(write(t, t.locationProvider().newDataLocation("a.parquet")))).commit();
        t.refresh();
        String metadata = ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
        HttpResponse<String> registered = call("POST", "/iceberg/v1/namespaces/robots/register",
                "{\"name\":\"copy\",\"metadata-location\":\"" + metadata + "\"}");
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
        Table copy = client.loadTable(TableIdentifier.of("robots", "copy"));
        copy.newFastAppend().appendFile(dataFile(write(copy, copy.locationProvider().newDataLocation("copy-only.parquet")))).commit();
        List<String> before = files(t.location());
        clock.advanceWall(4 * DAY);

        HttpResponse<String> r = sweep("{\"delete\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("shared with live table(s) robots.copy", "nothing reported or deleted");
        assertThat(files(t.location())).as("every file under the location").isEqualTo(before);
        Table again = client.loadTable(TableIdentifier.of("robots", "copy"));
        try (var tasks = again.newScan().planFiles()) {
            List<String> planned = new ArrayList<>();
            tasks.forEach(task -> planned.add(task.file().location()));
            assertThat(planned).as("the sharer plans both its files, each still there").hasSize(2).allMatch(f -> Files.exists(local(f)));
        }
    }

    /**
     * A table whose metadata sets {@code gc.enabled=false} may name files other tables own, and
     * Iceberg's own {@code DeleteOrphanFiles} refuses it: so does the sweep ({@code 400} naming the
     * property), reporting and deleting nothing, not even an unreferenced file past the safety age.
     */
    @Test
    void sweepRefusesATableWithGcDisabled() throws Exception {
        Table t = client.buildTable(EPISODES, SCHEMA).withProperty("gc.enabled", "false").create();
        t.newFastAppend().appendFile(dataFile(write(t, t.locationProvider().newDataLocation("a.parquet")))).commit();
        write(t, t.locationProvider().newDataLocation("stray.parquet"));
        List<String> before = files(t.location());
        clock.advanceWall(4 * DAY);

        HttpResponse<String> r = sweep("{\"delete\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("gc.enabled is false", "nothing reported or deleted");
        assertThat(files(t.location())).as("every file under the location").isEqualTo(before);
    }

    /**
     * A live table with {@code gc.enabled=false} (as Spark's {@code add_files} leaves one) whose
     * metadata names a file under this table's location, a file this table does not reference:
     * the sweep is refused, naming it, and the file stays. Once that table is dropped, the file is
     * an orphan of this location like any other.
     */
    @Test
    void sweepRefusesWhileAGcDisabledTableNamesFilesHere() throws Exception {
        Table t = client.createTable(EPISODES, SCHEMA);
        t.newFastAppend().appendFile(dataFile(write(t, t.locationProvider().newDataLocation("a.parquet")))).commit();
        String theirs = write(t, t.locationProvider().newDataLocation("theirs.parquet"));
        TableIdentifier otherId = TableIdentifier.of("robots", "added");
        Table other = client.buildTable(otherId, SCHEMA).withProperty("gc.enabled", "false").create();
        other.newFastAppend().appendFile(dataFile(theirs)).commit();
        List<String> before = files(t.location());
        clock.advanceWall(4 * DAY);

        HttpResponse<String> r = sweep("{\"delete\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("shared with live table(s) robots.added", "gc.enabled=false");
        assertThat(files(t.location())).as("every file under the location").isEqualTo(before);
        Table stillThere = client.loadTable(otherId);
        assertThat(stillThere.currentSnapshot().addedDataFiles(stillThere.io())).extracting(DataFile::location).containsExactly(theirs);

        assertThat(client.dropTable(otherId, false)).isTrue();
        HttpResponse<String> after = sweep("{}");
        assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
        assertThat(reported(JSON.readTree(after.body())).entrySet()).as("no live table names it now")
                .anyMatch(e -> e.getKey().endsWith("/theirs.parquet") && e.getValue().equals("unreferenced-file"));
    }

    /**
     * Namespace {@code a.b}'s table {@code c} and namespace {@code a}'s table {@code b.c} read the
     * same when dotted: the sweep of the first must still see the second, registered at its
     * metadata and committing under its location, as a sharer, and refuse (from the independent
     * review's probe: it reported the live table's files as orphans).
     */
    @Test
    void sweepTellsItselfApartFromATableWhoseDottedNameReadsTheSame() throws Exception {
        client.createNamespace(Namespace.of("a"));
        client.createNamespace(Namespace.of("a", "b"));
        Table t = client.createTable(TableIdentifier.of(Namespace.of("a", "b"), "c"), SCHEMA);
        t.newFastAppend().appendFile(dataFile(write(t, t.locationProvider().newDataLocation("a.parquet")))).commit();
        t.refresh();
        String metadata = ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
        HttpResponse<String> registered = call("POST", "/iceberg/v1/namespaces/a/register",
                "{\"name\":\"b.c\",\"metadata-location\":\"" + metadata + "\"}");
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
        Table copy = client.loadTable(TableIdentifier.of(Namespace.of("a"), "b.c"));
        copy.newFastAppend().appendFile(dataFile(write(copy, copy.locationProvider().newDataLocation("copy-only.parquet")))).commit();
        List<String> before = files(t.location());
        clock.advanceWall(4 * DAY);

        HttpResponse<String> r = call("POST", "/iceberg/management/v1/namespaces/a%1Fb/tables/c/orphan-files", "{\"delete\":true}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).at("/error/message").asText()).contains("shared with live table(s)", "nothing reported or deleted");
        assertThat(files(t.location())).as("every file under the location").isEqualTo(before);
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private HttpResponse<String> sweep(String body) throws Exception {
        return call("POST", "/iceberg/management/v1/namespaces/robots/tables/episodes/orphan-files", body);
    }

    private HttpResponse<String> call(String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The answer's orphan files: location → kind. */
    static Map<String, String> reported(JsonNode answer) {
        Map<String, String> out = new java.util.TreeMap<>();
        for (JsonNode o : answer.get("orphan-files")) out.put(o.get("location").asText(), o.get("kind").asText());
        return out;
    }

    private static String nameDirectory(Table t) {
        return t.location().substring(0, t.location().lastIndexOf('/'));
    }

    /** Every file under {@code location}, as the node names them ({@code location} + relative path), sorted. */
    private static List<String> files(String location) throws Exception {
        Path root = local(location);
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).sorted().map(p -> location + "/" + root.relativize(p)).toList();
        }
    }

    private static Path local(String location) {
        return Path.of(URI.create(location.startsWith("file:///") ? location : location.replaceFirst("^file:/+", "file:///")));
    }

    private static String write(Table t, String path) throws Exception {
        try (var out = t.io().newOutputFile(path).createOrOverwrite()) {
            out.write(new byte[] {1, 2, 3});
        }
        return path;
    }

    private static DataFile dataFile(String path) {
        return DataFiles.builder(PartitionSpec.unpartitioned()).withPath(path).withFormat(org.apache.iceberg.FileFormat.PARQUET)
                .withFileSizeInBytes(3).withRecordCount(1).build();
    }
}
