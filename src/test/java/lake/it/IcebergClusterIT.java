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

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
