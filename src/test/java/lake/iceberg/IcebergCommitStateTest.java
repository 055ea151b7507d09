package lake.iceberg;

import lake.config.Settings;
import lake.iceberg.rest.Idempotency;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.FaultyStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A commit whose outcome the server cannot know (the store applied it, its answer never came) is
 * answered as the spec's commit-state-unknown, never as a failure that would make the client
 * delete files a committed snapshot references (Iceberg issue 13867); a retry with the same
 * Idempotency-Key then gets the original answer, and the table holds one new version.
 */
class IcebergCommitStateTest {
    @TempDir Path dir;

    @Test
    void unknownCommitOutcomeIsCommitStateUnknownAndItsKeyedRetryReplays() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            FaultyStore[] faulty = new FaultyStore[1];
            Settings s = NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> f.requestTimeoutMs = 2_000);
            MetasrvNode node = h.deploy(s, new ManualClock(1_700_000_000_000L),
                    v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(st -> faulty[0] = new FaultyStore(st)));
            assertThat(h.campaign(node).isLeader()).isTrue();
            int port = node.httpPort();
            Rest.createTable(port, "robots", "t");
            String before = Rest.json(Rest.get(port, "/v1/namespaces/robots/tables/t")).get("metadata-location").asText();

            faulty[0].answerNothing.set(true);
            Map<String, String> key = Map.of("Idempotency-Key", "commit-0001");
            HttpResponse<String> unknown = Rest.call(port, "POST", "/v1/namespaces/robots/tables/t", Rest.setProperty("k", "v"), key);
            assertThat(unknown.statusCode()).as(unknown.body()).isIn(500, 502, 503, 504).isNotEqualTo(409);
            assertThat(Rest.json(unknown).at("/error/type").asText()).isEqualTo("CommitStateUnknownException");
            faulty[0].answerNothing.set(false);

            String after = Rest.json(Rest.get(port, "/v1/namespaces/robots/tables/t")).get("metadata-location").asText();
            assertThat(after).as("the unanswered commit applied").isNotEqualTo(before);
            HttpResponse<String> retried = Rest.call(port, "POST", "/v1/namespaces/robots/tables/t", Rest.setProperty("k", "v"), key);
            assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
            assertThat(Rest.json(retried).get("metadata-location").asText()).as("the original answer").isEqualTo(after);
            assertThat(Rest.json(Rest.get(port, "/v1/namespaces/robots/tables/t")).get("metadata-location").asText())
                    .as("one new version, not two").isEqualTo(after);
        }
    }

    /**
     * An Idempotency-Key is remembered for its lifetime (reused with another request: 422), and
     * once expired it is free again: its record is replaced in the mutation's own transaction.
     */
    @Test
    void expiredIdempotencyKeyIsFreeAgain() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            MetasrvNode node = h.deploy(NodeHarness.settings("a", dir, 10_000, 0, 1_000), clock,
                    v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
            assertThat(h.campaign(node).isLeader()).isTrue();
            int port = node.httpPort();
            Rest.createTable(port, "robots", "t");
            Map<String, String> key = Map.of("Idempotency-Key", "props-0001");
            String path = "/v1/namespaces/robots/tables/t";
            assertThat(Rest.call(port, "POST", path, Rest.setProperty("k", "v1"), key).statusCode()).isEqualTo(200);
            HttpResponse<String> reused = Rest.call(port, "POST", path, Rest.setProperty("k", "v2"), key);
            assertThat(reused.statusCode()).as("another request under a live key: " + reused.body()).isEqualTo(422);

            clock.advanceWall(Idempotency.LIFETIME_MS + 1);
            assertThat(h.campaign(node).isLeader()).as("the lease taken again after the jump").isTrue();
            HttpResponse<String> fresh = Rest.call(port, "POST", path, Rest.setProperty("k", "v2"), key);
            assertThat(fresh.statusCode()).as(fresh.body()).isEqualTo(200);
            assertThat(Rest.json(Rest.get(port, path)).at("/metadata/properties/k").asText()).isEqualTo("v2");
            HttpResponse<String> replayed = Rest.call(port, "POST", path, Rest.setProperty("k", "v2"), key);
            assertThat(replayed.statusCode()).as("the new record answers a retry").isEqualTo(200);
            assertThat(Rest.json(replayed).get("metadata-location").asText()).isEqualTo(Rest.json(fresh).get("metadata-location").asText());
        }
    }
}
