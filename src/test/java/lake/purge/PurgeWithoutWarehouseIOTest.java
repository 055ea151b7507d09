package lake.purge;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.config.LifecycleSettings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node whose catalog root has no FileIO (a scheme the node cannot delete in: no Iceberg
 * service either) still serves lake tables and queues their purges; its worker refuses each job,
 * saying why and what to do, instead of leaving it queued forever; the tombstone stays listed.
 */
class PurgeWithoutWarehouseIOTest {
    @TempDir Path dir;
    NodeHarness h;

    @AfterEach
    void stop() throws Exception {
        if (h != null) h.close();
    }

    @Test
    void purgeWithoutAWarehouseFileIOIsRefusedSayingWhy() throws Exception {
        h = new NodeHarness();
        MetasrvNode node = h.deploy(NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> {
            f.catalogRoot = "gs://lake-bucket/wh";
            f.lifecycle = new LifecycleSettings(7 * 24 * 3_600_000L, 100, 4);
        }), new ManualClock(1_700_000_000_000L), v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
        assertThat(h.campaign(node).isLeader()).isTrue();
        assertThat(h.post(node, "/v1/namespaces", new JsonObject().put("namespace", "robots")).statusCode()).isEqualTo(200);
        assertThat(h.post(node, "/v1/namespaces/robots/tables", new JsonObject().put("name", "t").put("columns", new JsonArray().add("id:i64")))
                .statusCode()).isEqualTo(200);
        JsonObject dropped = h.send(node, HttpMethod.DELETE, "/v1/namespaces/robots/tables/t?purge=true", null).bodyAsJsonObject();
        assertThat(dropped.getString("purge")).as(dropped.encode()).isEqualTo("queued");
        String location = "gs://lake-bucket/wh/robots/t/" + dropped.getString("incarnation_id");

        JsonObject[] job = new JsonObject[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonArray purges = h.get(node, "/v1/catalog/purges").bodyAsJsonObject().getJsonArray("purges");
            job[0] = purges.isEmpty() ? null : purges.getJsonObject(0);
            return job[0] != null && "refused".equals(job[0].getString("state"));
        });
        assertThat(job[0].getString("message")).contains("the catalog root gs://lake-bucket/wh has no FileIO on this node",
                "delete " + location + " with your own credentials, then purge the tombstone");
        assertThat(job[0].getLong("deleted")).isZero();
        JsonArray tombstones = h.get(node, "/v1/catalog/tombstones").bodyAsJsonObject().getJsonArray("tombstones");
        assertThat(tombstones).as("the tombstone stays until it is purged by hand").hasSize(1);
    }
}
