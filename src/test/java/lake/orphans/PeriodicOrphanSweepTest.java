package lake.orphans;

import lake.config.LifecycleSettings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leader's periodic sweep ({@code orphan_sweep_interval_ms}): it sweeps every Iceberg table at
 * the minimum safety age, counts what it finds ({@code lake_orphan_files_found_total}), and deletes
 * only with {@code orphan_sweep_delete}.
 */
class PeriodicOrphanSweepTest {
    static final long DAY = 24L * 3600 * 1000;

    @TempDir Path dir;

    @Test
    void periodicSweepOnlyReportsWithoutOrphanSweepDelete() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            Node n = node(h, false);
            // Two rounds counted the file (each sweep reports it again), and neither deleted it.
            await().atMost(Duration.ofSeconds(30)).until(() -> sample(h, n.node(), "lake_orphan_files_found_total") >= 2);
            assertThat(Files.exists(n.orphan())).isTrue();
            assertThat(sample(h, n.node(), "lake_orphan_files_deleted_total")).isZero();
        }
    }

    @Test
    void periodicSweepDeletesWithOrphanSweepDelete() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            Node n = node(h, true);
            await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(n.orphan()));
            assertThat(sample(h, n.node(), "lake_orphan_files_deleted_total")).isEqualTo(1.0);
            assertThat(Files.exists(n.kept())).as("the table's own metadata file stays").isTrue();
        }
    }

    record Node(MetasrvNode node, Path orphan, Path kept) {}

    /** A leader sweeping every 100 ms, one table with a stale metadata file, the clock 4 days on. */
    private Node node(NodeHarness h, boolean delete) throws Exception {
        ManualClock clock = new ManualClock(System.currentTimeMillis());
        MetasrvNode node = h.deploy(NodeHarness.settings("a", dir, 10_000, 0, 1_000)
                        .with(f -> f.lifecycle = f.lifecycle.withOrphans(new LifecycleSettings.Orphans(LifecycleSettings.Orphans.DEFAULTS.minAgeMs(), 100, delete))),
                clock, v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
        assertThat(h.campaign(node).isLeader()).isTrue();
        try (RESTCatalog client = new RESTCatalog()) {
            client.initialize("engine", Map.of("uri", "http://127.0.0.1:" + node.httpPort() + "/iceberg", "io-impl", "lake.iceberg.files.NioFileIO"));
            client.createNamespace(Namespace.of("robots", "lab"));
            Table t = client.buildTable(TableIdentifier.of(Namespace.of("robots", "lab"), "episodes"),
                    new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()))).create();
            String current = ((org.apache.iceberg.HasTableOperations) t).operations().current().metadataFileLocation();
            Path kept = Path.of(java.net.URI.create(current));
            Path orphan = kept.resolveSibling("00099-" + UUID.randomUUID() + ".metadata.json");
            Files.copy(kept, orphan);
            clock.advanceWall(4 * DAY);
            return new Node(node, orphan, kept);
        }
    }

    private static double sample(NodeHarness h, MetasrvNode node, String name) throws Exception {
        String scrape = h.get(node, "/metrics").bodyAsString();
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{")) return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
        }
        return 0;
    }
}
