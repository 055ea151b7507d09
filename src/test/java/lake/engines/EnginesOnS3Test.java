package lake.engines;

import com.fasterxml.jackson.databind.JsonNode;
import lake.config.LifecycleSettings;
import lake.config.Settings;
import lake.config.access.StorageAccessSettings;
import lake.iceberg.AwsGate;
import lake.iceberg.IamMoto;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.purge.PurgeContract;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spark 3.5 and Flink 1.20 with Iceberg's runtimes, and Trino 483 with its Iceberg connector, each
 * in a child JVM, against an {@code s3://} warehouse on moto with IAM enforced, in three modes:
 * with static keys in the engine, and with no keys at all (the child gets no AWS environment, no
 * credentials file, no instance metadata) through vended credentials or remote signing. Trino
 * runs the first two only: its connector does its S3 I/O with Trino's own file system, which has
 * no remote signer. Each creates a table, inserts, updates or overwrites, reads back, travels to
 * the first snapshot and drops the table. And Spark's {@code DROP TABLE … PURGE} handed to the
 * catalog, whose purge worker deletes the files ({@link #sparkDropPurgeGoesThroughTheCatalog}).
 */
class EnginesOnS3Test {
    static final String BUCKET = "lake-spark-" + ProcessHandle.current().pid();
    static final long T0 = 1_700_000_000_000L;
    static IamMoto aws;

    @TempDir Path dir;

    @BeforeAll
    static void iam() throws Exception {
        aws = new IamMoto(BUCKET, List.of("whouse/spark/", "whouse/flink/", "whouse/trino/", "whouse/mixed/"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (aws != null) aws.close();
    }

    /** Node {@code id} (data under {@code dir/id}) serving the warehouse on moto, vending the role; dropped tables living by {@code lifecycle}. */
    Settings settings(String id, LifecycleSettings lifecycle) {
        return NodeHarness.settings(id, dir.resolve(id), 10_000, 0, 1_000).with(f -> {
            f.catalogRoot = "s3://" + BUCKET + "/whouse";
            f.icebergS3Endpoint = aws.endpoint().toString();
            f.storageAccess = new StorageAccessSettings(IamMoto.ROLE, "us-east-1", aws.endpoint(), 3600, true);
            f.lifecycle = lifecycle;
        });
    }

    /** The leader, over RocksDB under {@code dir/rocks}, its purge worker idle (a pass a day). */
    MetasrvNode node(NodeHarness h) throws Exception {
        MetasrvNode node = h.deploy(settings("engines", NodeHarness.LIFECYCLE), new ManualClock(T0),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
        assertThat(h.campaign(node).isLeader()).isTrue();
        return node;
    }

    /** Whether an S3 request's path is a data file of table {@code ns.table}, in a directory the catalog assigned it ({@code <table>/<uuid>}). */
    static boolean inData(String path, String ns, String table) {
        return path.matches(".*/whouse/" + ns + "/" + table + "/[0-9a-f-]{36}/data/.*");
    }

    /** How the engine reaches S3: its own keys, or none and what it asks the catalog for. */
    enum Mode {
        STATIC_KEYS(null), VENDED_CREDENTIALS("vended-credentials"), REMOTE_SIGNING("remote-signing");

        final String delegation;

        Mode(String delegation) {
            this.delegation = delegation;
        }
    }

    /** The Iceberg REST catalog's properties for {@code mode} (as Spark's {@code spark.sql.catalog.lake.*} and Flink's catalog options). */
    static Map<String, String> catalog(int port, Mode mode) {
        Map<String, String> c = new HashMap<>();
        c.put("uri", "http://127.0.0.1:" + port + "/iceberg");
        c.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        if (mode.delegation != null) {
            c.put("header.X-Iceberg-Access-Delegation", mode.delegation);
        } else {
            c.put("s3.access-key-id", aws.serverKeys.accessKeyId());
            c.put("s3.secret-access-key", aws.serverKeys.secretAccessKey());
            c.put("s3.endpoint", aws.endpoint().toString());
            c.put("s3.path-style-access", "true");
            c.put("client.region", "us-east-1");
        }
        return c;
    }

    static Map<String, String> conf(int port, Mode mode) {
        Map<String, String> c = new HashMap<>();
        c.put("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
        c.put("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog");
        c.put("spark.sql.catalog.lake.type", "rest");
        catalog(port, mode).forEach((k, v) -> c.put("spark.sql.catalog.lake." + k, v));
        return c;
    }

    /** Flink's {@code CREATE CATALOG lake} for {@code mode}. */
    static String flinkCatalog(int port, Mode mode) {
        StringBuilder b = new StringBuilder("CREATE CATALOG lake WITH ('type'='iceberg', 'catalog-type'='rest'");
        catalog(port, mode).forEach((k, v) -> b.append(", '").append(k).append("'='").append(v).append("'"));
        return b.append(");").toString();
    }

    /** Create, insert, update, read back, time-travel to the first snapshot, drop: in two Spark runs (the snapshot id in between). */
    void createInsertUpdateTravelDrop(int port, Mode delegation, String table) throws Exception {
        String t = "lake.spark." + table;
        EngineProcess.Result first = SparkEngine.run(conf(port, delegation), """
                CREATE NAMESPACE IF NOT EXISTS lake.spark;
                CREATE TABLE %s (id bigint, v string) USING iceberg;
                INSERT INTO %s VALUES (1, 'a'), (2, 'b');
                SELECT snapshot_id FROM %s.snapshots;
                """.formatted(t, t, t, t), dir.resolve("spark-" + table + "-1")).assertOk();
        assertThat(first.rows(4)).as(first.toString()).hasSize(1);
        String snapshot = first.rows(4).get(0).get(0);
        EngineProcess.Result second = SparkEngine.run(conf(port, delegation), """
                UPDATE %s SET v = 'z' WHERE id = 1;
                SELECT id, v FROM %s ORDER BY id;
                SELECT id, v FROM %s VERSION AS OF %s ORDER BY id;
                SELECT count(*) FROM %s.snapshots;
                DROP TABLE %s;
                """.formatted(t, t, t, snapshot, t, t), dir.resolve("spark-" + table + "-2")).assertOk();
        assertThat(second.rows(2)).as(second.toString()).containsExactly(List.of("1", "z"), List.of("2", "b"));
        assertThat(second.rows(3)).as("time travel to the insert").containsExactly(List.of("1", "a"), List.of("2", "b"));
        assertThat(second.rows(4)).containsExactly(List.of("2"));
        try (RESTCatalog c = new RESTCatalog()) {
            c.setConf(new org.apache.hadoop.conf.Configuration());
            c.initialize("check", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg"));
            assertThat(c.tableExists(TableIdentifier.of("spark", table))).as("dropped").isFalse();
        }
    }

    @Test
    void sparkWithVendedCredentialsAndNoKeys() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h).httpPort();
            int assumedBefore = aws.assumed().size();
            createInsertUpdateTravelDrop(port, Mode.VENDED_CREDENTIALS, "vended");
            List<String> vended = aws.assumed().subList(assumedBefore, aws.assumed().size());
            assertThat(vended).as("the node vended credentials").isNotEmpty();
            var dataRequests = aws.s3Requests().stream().filter(r -> inData(r.path(), "spark", "vended")).toList();
            assertThat(dataRequests).as("Spark wrote and read data files").isNotEmpty();
            assertThat(dataRequests).as("each with a vended key").allSatisfy(r -> assertThat(vended).contains(r.accessKeyId()));
        }
    }

    @Test
    void sparkWithRemoteSigningAndNoKeys() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h).httpPort();
            createInsertUpdateTravelDrop(port, Mode.REMOTE_SIGNING, "signed");
            assertThat(lake.iceberg.StorageAccessTest.answered(port, "sign-request")).as("the catalog answered Spark's sign requests").isPositive();
            var dataRequests = aws.s3Requests().stream().filter(r -> inData(r.path(), "spark", "signed")).toList();
            assertThat(dataRequests).as("Spark wrote and read data files").isNotEmpty();
            assertThat(dataRequests).as("each signed by the catalog with the node's key (Spark has none)")
                    .allSatisfy(r -> assertThat(r.accessKeyId()).isEqualTo(aws.serverKeys.accessKeyId()));
        }
    }

    @Test
    void sparkWithItsOwnKeys() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h).httpPort();
            createInsertUpdateTravelDrop(port, Mode.STATIC_KEYS, "keyed");
            assertThat(aws.s3Requests().stream().filter(r -> inData(r.path(), "spark", "keyed")).toList())
                    .as("Spark wrote and read data files with the keys it was given").isNotEmpty()
                    .allSatisfy(r -> assertThat(r.accessKeyId()).isEqualTo(aws.serverKeys.accessKeyId()));
        }
    }

    /** Flink: create, insert, overwrite, read back, time-travel, drop, in each of the three modes. */
    @Test
    void flinkReadsAndWritesThroughTheCatalog() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h).httpPort();
            for (Mode mode : Mode.values()) {
                String t = "lake.flink.t_" + mode.name().toLowerCase(java.util.Locale.ROOT);
                int assumedBefore = aws.assumed().size();
                EngineProcess.Result first = FlinkEngine.run(Map.of(), flinkCatalog(port, mode) + """

                        CREATE DATABASE IF NOT EXISTS lake.flink;
                        CREATE TABLE %s (id BIGINT, v STRING);
                        INSERT INTO %s VALUES (1, 'a'), (2, 'b');
                        SELECT snapshot_id FROM %s;
                        """.formatted(t, t, "lake.flink.`" + t.substring("lake.flink.".length()) + "$snapshots`"), dir.resolve("flink-" + mode + "-1"));
                first.assertOk();
                assertThat(first.rows(5)).as(mode + " " + first).hasSize(1);
                String snapshot = first.rows(5).get(0).get(0);
                EngineProcess.Result second = FlinkEngine.run(Map.of(), flinkCatalog(port, mode) + """

                        INSERT OVERWRITE %s VALUES (1, 'z'), (2, 'b');
                        SELECT id, v FROM %s ORDER BY id;
                        SELECT id, v FROM %s /*+ OPTIONS('snapshot-id'='%s') */ ORDER BY id;
                        DROP TABLE %s;
                        """.formatted(t, t, t, snapshot, t), dir.resolve("flink-" + mode + "-2"));
                second.assertOk();
                assertThat(second.rows(3)).as(mode + " " + second).containsExactly(List.of("1", "z"), List.of("2", "b"));
                assertThat(second.rows(4)).as(mode + ": time travel to the insert").containsExactly(List.of("1", "a"), List.of("2", "b"));
                String table = "t_" + mode.name().toLowerCase(java.util.Locale.ROOT);
                var data = aws.s3Requests().stream().filter(r -> inData(r.path(), "flink", table)).toList();
                assertThat(data).as(mode + ": Flink wrote and read data files").isNotEmpty();
                if (mode == Mode.VENDED_CREDENTIALS) {
                    List<String> vended = aws.assumed().subList(assumedBefore, aws.assumed().size());
                    assertThat(data).as("each with a vended key").allSatisfy(r -> assertThat(vended).contains(r.accessKeyId()));
                } else {
                    assertThat(data).as(mode + ": signed with the node's key (given to Flink, or used by the signer)")
                            .allSatisfy(r -> assertThat(r.accessKeyId()).isEqualTo(aws.serverKeys.accessKeyId()));
                }
                try (RESTCatalog c = new RESTCatalog()) {
                    c.setConf(new org.apache.hadoop.conf.Configuration());
                    c.initialize("check", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg"));
                    assertThat(c.tableExists(TableIdentifier.of("flink", t.substring("lake.flink.".length())))).as("dropped").isFalse();
                }
            }
        }
    }

    /**
     * Trino's catalog {@code lake} for {@code mode}: the REST catalog, and Trino's own S3 file
     * system (not Iceberg's S3FileIO) pointed at the gate, with the keys, or with none and
     * vended credentials asked for (Trino then sends {@code X-Iceberg-Access-Delegation: vended-credentials}).
     */
    static Map<String, String> trinoCatalog(int port, Mode mode) {
        Map<String, String> c = new HashMap<>();
        c.put("iceberg.catalog.type", "rest");
        c.put("iceberg.rest-catalog.uri", "http://127.0.0.1:" + port + "/iceberg");
        c.put("fs.s3.enabled", "true");
        c.put("s3.endpoint", aws.endpoint().toString());
        c.put("s3.region", "us-east-1");
        c.put("s3.path-style-access", "true");
        switch (mode) {
            case STATIC_KEYS -> {
                c.put("s3.aws-access-key", aws.serverKeys.accessKeyId());
                c.put("s3.aws-secret-key", aws.serverKeys.secretAccessKey());
            }
            case VENDED_CREDENTIALS -> c.put("iceberg.rest-catalog.vended-credentials-enabled", "true");
            // Its connector reads the catalog's vended keys but never s3.remote-signing-enabled, and its S3 file system has no remote signer.
            case REMOTE_SIGNING -> throw new IllegalArgumentException("Trino 483 has no S3 remote signing");
        }
        return c;
    }

    /** Trino: create, insert, update, read back, time-travel, drop, with static keys and with vended credentials. */
    @Test
    void trinoReadsAndWritesThroughTheCatalog() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h).httpPort();
            for (Mode mode : List.of(Mode.STATIC_KEYS, Mode.VENDED_CREDENTIALS)) {
                String table = "t_" + mode.name().toLowerCase(java.util.Locale.ROOT);
                String t = "lake.trino." + table;
                String snapshots = "lake.trino.\"" + table + "$snapshots\"";
                int assumedBefore = aws.assumed().size();
                EngineProcess.Result first = TrinoEngine.run(trinoCatalog(port, mode), """
                        CREATE SCHEMA IF NOT EXISTS lake.trino;
                        CREATE TABLE %s (id bigint, v varchar);
                        INSERT INTO %s VALUES (1, 'a'), (2, 'b');
                        SELECT snapshot_id FROM %s ORDER BY committed_at;
                        """.formatted(t, t, snapshots), dir.resolve("trino-" + mode + "-1")).assertOk();
                // Trino may commit an empty snapshot for the CREATE: the insert's is the latest.
                List<List<String>> before = first.rows(4);
                assertThat(before).as(mode + " " + first).isNotEmpty();
                String snapshot = before.get(before.size() - 1).get(0);
                EngineProcess.Result second = TrinoEngine.run(trinoCatalog(port, mode), """
                        UPDATE %s SET v = 'z' WHERE id = 1;
                        SELECT id, v FROM %s ORDER BY id;
                        SELECT id, v FROM %s FOR VERSION AS OF %s ORDER BY id;
                        SELECT count(*) FROM %s;
                        DROP TABLE %s;
                        """.formatted(t, t, t, snapshot, snapshots, t), dir.resolve("trino-" + mode + "-2")).assertOk();
                assertThat(second.rows(2)).as(mode + " " + second).containsExactly(List.of("1", "z"), List.of("2", "b"));
                assertThat(second.rows(3)).as(mode + ": time travel to the insert").containsExactly(List.of("1", "a"), List.of("2", "b"));
                assertThat(second.rows(4)).as(mode + ": the update committed one snapshot more").containsExactly(List.of(String.valueOf(before.size() + 1)));
                // Trino's DROP TABLE asks the catalog to purge; the node deletes the data files in batches (POST on the bucket), not matched here.
                var data = aws.s3Requests().stream().filter(r -> inData(r.path(), "trino", table)).toList();
                assertThat(data).as(mode + ": Trino wrote and read data files").isNotEmpty();
                assertThat(data).as(mode + ": Trino wrote data files").anySatisfy(r -> assertThat(r.method()).isEqualTo("PUT"));
                assertThat(data).as(mode + ": Trino read data files").anySatisfy(r -> assertThat(r.method()).isEqualTo("GET"));
                if (mode == Mode.VENDED_CREDENTIALS) {
                    List<String> vended = aws.assumed().subList(assumedBefore, aws.assumed().size());
                    assertThat(vended).as("the node vended credentials").isNotEmpty();
                    assertThat(data).as("each with a vended key").allSatisfy(r -> assertThat(vended).contains(r.accessKeyId()));
                } else {
                    assertThat(data).as("each with the keys Trino was given")
                            .allSatisfy(r -> assertThat(r.accessKeyId()).isEqualTo(aws.serverKeys.accessKeyId()));
                }
                try (RESTCatalog c = new RESTCatalog()) {
                    c.setConf(new org.apache.hadoop.conf.Configuration());
                    c.initialize("check", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg"));
                    assertThat(c.tableExists(TableIdentifier.of("trino", table))).as("dropped").isFalse();
                }
            }
        }
    }

    @Test
    void sparkAndFlinkSeeEachOthersCommits() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h).httpPort();
            SparkEngine.run(conf(port, Mode.VENDED_CREDENTIALS), """
                    CREATE NAMESPACE IF NOT EXISTS lake.mixed;
                    CREATE TABLE lake.mixed.shared (id bigint, v string) USING iceberg;
                    INSERT INTO lake.mixed.shared VALUES (1, 'spark');
                    """, dir.resolve("both-spark-1")).assertOk();
            EngineProcess.Result flink = FlinkEngine.run(Map.of(), flinkCatalog(port, Mode.VENDED_CREDENTIALS) + """

                    INSERT INTO lake.mixed.shared VALUES (2, 'flink');
                    SELECT id, v FROM lake.mixed.shared ORDER BY id;
                    """, dir.resolve("both-flink")).assertOk();
            assertThat(flink.rows(3)).as("Flink sees Spark's row beside its own").containsExactly(List.of("1", "spark"), List.of("2", "flink"));
            EngineProcess.Result spark = SparkEngine.run(conf(port, Mode.VENDED_CREDENTIALS), """
                    SELECT id, v FROM lake.mixed.shared ORDER BY id;
                    SELECT count(*) FROM lake.mixed.shared.snapshots;
                    DROP TABLE lake.mixed.shared;
                    """, dir.resolve("both-spark-2")).assertOk();
            assertThat(spark.rows(1)).as("Spark sees Flink's commit").containsExactly(List.of("1", "spark"), List.of("2", "flink"));
            assertThat(spark.rows(2)).as("two commits, one by each engine").containsExactly(List.of("2"));
        }
    }

    /**
     * Spark's {@code DROP TABLE … PURGE} with {@code rest-catalog-purge=true} reaches the catalog as
     * {@code DELETE …?purgeRequested=true}: Spark deletes no file, the drop queues the purge, and the
     * leader's worker deletes every file of the table.
     *
     * <p>On Iceberg 1.12.0's Spark runtime (the same Spark 3.5.9 and harness;
     * {@link SparkEngine#runWithIceberg}), the first release with that property: apache/iceberg PR
     * 15614 ({@code SparkCatalogProperties.REST_CATALOG_PURGE}) was merged in June 2026, after 1.11.0
     * was tagged in May. 1.11.0's {@code SparkCatalog.purgeTable} has no such switch: it drops the
     * table with a plain {@code DELETE} (no {@code purgeRequested}), then deletes the reachable files
     * itself ({@code DeleteReachableFiles} through the table's FileIO, with Spark's credentials), so
     * Metasrv keeps, for its retention, a tombstone whose undrop would bring back a table without its
     * files. Every other engine test stays on 1.11.0.
     *
     * <p>One Spark run, with vended credentials: create, two inserts, a second table beside, the
     * purged table's reachable files from its own metadata tables, then the DROP. The node Spark
     * talks to has its worker idle (a pass a day), so what S3 holds when the run has ended is what
     * Spark left: every reachable file, and no delete request reached S3. Then a second node over
     * the same store takes the lease with its worker looking every 100 ms (the queue is in the
     * store: any leader works it) and deletes, with the node's own key, every object under the
     * table's location, each counted once by its meter; the table beside keeps every file.
     */
    @Test
    void sparkDropPurgeGoesThroughTheCatalog() throws Exception {
        try (NodeHarness h = new NodeHarness();
             S3Client s3 = IamMoto.s3(aws.motoEndpoint(), StaticCredentialsProvider.create(aws.serverKeys))) {
            // The test lists at moto itself, past the gate: the gate's log holds only the node's and Spark's requests.
            MetasrvNode first = node(h);
            Map<String, String> conf = conf(first.httpPort(), Mode.VENDED_CREDENTIALS);
            conf.put("spark.sql.catalog.lake." + SparkEngine.REST_CATALOG_PURGE, "true");
            int requestsBefore = aws.s3Requests().size();
            int assumedBefore = aws.assumed().size();
            EngineProcess.Result run = SparkEngine.runWithIceberg(SparkEngine.ICEBERG_WITH_CATALOG_PURGE, conf, """
                    CREATE NAMESPACE IF NOT EXISTS lake.spark;
                    CREATE TABLE lake.spark.purged (id bigint, v string) USING iceberg;
                    INSERT INTO lake.spark.purged VALUES (1, 'a'), (2, 'b');
                    INSERT INTO lake.spark.purged VALUES (3, 'c');
                    CREATE TABLE lake.spark.beside (id bigint) USING iceberg;
                    INSERT INTO lake.spark.beside VALUES (1);
                    SELECT file FROM lake.spark.purged.metadata_log_entries
                    UNION SELECT manifest_list FROM lake.spark.purged.snapshots
                    UNION SELECT path FROM lake.spark.purged.all_manifests
                    UNION SELECT file_path FROM lake.spark.purged.all_files;
                    DROP TABLE lake.spark.purged PURGE;
                    """, dir.resolve("spark-purge")).assertOk();
            Set<String> reachable = run.rows(7).stream().map(r -> r.get(0)).collect(Collectors.toSet());
            assertThat(reachable).as("three metadata files, two manifest lists, two manifests, two data files").hasSize(3 + 2 + 2 + 2);
            String metadata = reachable.stream().filter(f -> f.endsWith(".metadata.json")).findFirst().orElseThrow(() -> new AssertionError(run));
            String location = metadata.substring(0, metadata.lastIndexOf("/metadata/"));
            assertThat(reachable).as("all under the location the catalog assigned").allSatisfy(f -> assertThat(f).startsWith(location + "/"));
            String beside = "s3://" + BUCKET + "/whouse/spark/beside";
            List<String> besideFiles = PurgeContract.objects(s3, beside);
            assertThat(besideFiles).isNotEmpty();

            // What Spark left: every reachable file, and not one delete request (Spark's vended keys or the node's) in its run.
            // The request log is the proof, the listing alone is not: this moto answers a DeleteObjects (POST ?delete) signed
            // with the vending role's credentials AccessDenied for every key, though the role may s3:DeleteObject there (a
            // single DELETE passes), so files Spark tried to delete would be left too: Spark on 1.11.0 sends four such
            // requests here, each refused, and its DROP still succeeds.
            List<String> left = PurgeContract.objects(s3, location);
            assertThat(left).as("after the DROP returned: what Spark's metadata tables listed, nothing less").containsExactlyInAnyOrderElementsOf(reachable);
            List<AwsGate.S3Request> during = aws.s3Requests().subList(requestsBefore, aws.s3Requests().size());
            assertThat(during).as("no S3 delete while Spark ran").noneMatch(AwsGate.S3Request::deletes);
            List<String> vended = aws.assumed().subList(assumedBefore, aws.assumed().size());
            assertThat(during.stream().filter(r -> inData(r.path(), "spark", "purged")).toList()).as("Spark wrote its data files with vended keys")
                    .anySatisfy(r -> assertThat(r.method()).isEqualTo("PUT")).allSatisfy(r -> assertThat(vended).contains(r.accessKeyId()));
            // What the catalog got: a purge request, queued with the drop.
            List<JsonNode> queued = PurgeContract.purges(first);
            assertThat(queued).as("the purge queue").hasSize(1);
            assertThat(queued.get(0).get("namespace").asText() + "." + queued.get(0).get("name").asText()).isEqualTo("spark.purged");
            assertThat(queued.get(0).get("reason").asText()).as("requested by the drop, not a retention's end").isEqualTo("requested");
            assertThat(queued.get(0).get("state").asText()).isEqualTo("queued");
            assertThat(PurgeContract.tombstones(first)).extracting(t -> t.get("name").asText()).containsExactly("purged");

            int requestsAfterSpark = aws.s3Requests().size();
            MetasrvNode worker = h.deploy(settings("worker", NodeHarness.PURGING), new ManualClock(T0 + 20_000), null);
            assertThat(h.campaign(worker).isLeader()).as("it leads once the first node's lease ran out on its clock").isTrue();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> PurgeContract.objects(s3, location).isEmpty() && PurgeContract.tombstones(worker).isEmpty());
            assertThat(PurgeContract.purges(worker)).as("the job went with the tombstone").isEmpty();
            assertThat(PurgeContract.metric(worker, "lake_purge_files_deleted_total")).as("each file Spark left, deleted once").isEqualTo(left.size());
            assertThat(PurgeContract.metric(worker, "lake_purge_tables_total")).isEqualTo(1.0);
            assertThat(aws.s3Requests().subList(requestsAfterSpark, aws.s3Requests().size()).stream().filter(AwsGate.S3Request::deletes).toList())
                    .as("the deletes: the worker's, with the node's own key").isNotEmpty()
                    .allSatisfy(r -> assertThat(r.accessKeyId()).isEqualTo(aws.serverKeys.accessKeyId()));
            assertThat(PurgeContract.objects(s3, beside)).as("the table beside").isEqualTo(besideFiles);
            try (RESTCatalog c = new RESTCatalog()) {
                c.setConf(new org.apache.hadoop.conf.Configuration());
                c.initialize("check", Map.of("uri", "http://127.0.0.1:" + worker.httpPort() + "/iceberg"));
                assertThat(c.tableExists(TableIdentifier.of("spark", "purged"))).isFalse();
                assertThat(c.loadTable(TableIdentifier.of("spark", "beside")).currentSnapshot()).as("the table beside loads").isNotNull();
            }
        }
    }
}
