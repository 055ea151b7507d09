package lake.engines;

import lake.config.access.StorageAccessSettings;
import lake.iceberg.IamMoto;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spark 3.5 and Flink 1.20 with Iceberg's runtimes, and Trino 483 with its Iceberg connector, each
 * in a child JVM, against an {@code s3://} warehouse on moto with IAM enforced, in three modes:
 * with static keys in the engine, and with no keys at all (the child gets no AWS environment, no
 * credentials file, no instance metadata) through vended credentials or remote signing. Trino
 * runs the first two only: its connector does its S3 I/O with Trino's own file system, which has
 * no remote signer. Each creates a table, inserts, updates or overwrites, reads back, travels to
 * the first snapshot and drops the table.
 */
class EnginesOnS3Test {
    static final String BUCKET = "lake-spark-" + ProcessHandle.current().pid();
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

    MetasrvNode node(NodeHarness h) throws Exception {
        var s = NodeHarness.settings("engines", dir.resolve("node"), 10_000, 0, 1_000).with(f -> {
            f.catalogRoot = "s3://" + BUCKET + "/whouse";
            f.icebergS3Endpoint = aws.endpoint().toString();
            f.storageAccess = new StorageAccessSettings(IamMoto.ROLE, "us-east-1", aws.endpoint(), 3600, true);
        });
        MetasrvNode node = h.deploy(s, new ManualClock(1_700_000_000_000L), v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
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
}
