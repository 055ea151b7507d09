package lake.engines;

import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Real Spark 3.5 with Iceberg's Spark runtime, in a child JVM, against one node's {@code /iceberg} REST catalog. */
class SparkEngineTest {
    @TempDir Path dir;
    NodeHarness h;
    MetasrvNode node;

    @BeforeEach
    void leader() throws Exception {
        h = new NodeHarness();
        // No catalog root set: the warehouse is file:<dir>/tables (Settings' default), so no token and no S3.
        node = h.recordedLeader(dir, new ManualClock(1_700_000_000_000L),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))), r -> {});
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void sparkCreatesInsertsAndReadsThroughTheCatalog() throws Exception {
        String uri = "http://127.0.0.1:" + node.httpPort() + "/iceberg";
        EngineProcess.Result r = SparkEngine.run(Map.of(
                "spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
                "spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog",
                "spark.sql.catalog.lake.type", "rest",
                "spark.sql.catalog.lake.uri", uri), """
                CREATE NAMESPACE lake.team;
                CREATE TABLE lake.team.t (id bigint, v string) USING iceberg;
                INSERT INTO lake.team.t VALUES (1, 'a'), (2, 'b');
                SELECT id, v FROM lake.team.t ORDER BY id;
                """, dir.resolve("spark"));

        r.assertOk();
        assertThat(r.statements()).as("every statement ran").hasSize(4);
        assertThat(r.rows(4)).as(r.toString()).containsExactly(List.of("1", "a"), List.of("2", "b"));

        // What Spark committed, as Iceberg's own REST client sees it through the same catalog.
        try (RESTCatalog c = new RESTCatalog()) {
            c.setConf(new org.apache.hadoop.conf.Configuration());
            c.initialize("check", Map.of("uri", uri));
            Table t = c.loadTable(TableIdentifier.of("team", "t"));
            assertThat(t.snapshots()).as("one INSERT, one snapshot").hasSize(1);
            assertThat(t.currentSnapshot().summary()).containsEntry("added-records", "2");
            assertThat(t.location()).as("in the node's file: warehouse").startsWith(dir.resolve("tables").toUri().toString().replaceAll("/$", ""));
        }
    }
}
