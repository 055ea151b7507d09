package lake.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import lake.node.MetasrvNode;
import lake.node.ThreeNodeFixture;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Iceberg catalog on three nodes in one Vert.x ({@link ThreeNodeFixture}): followers forward
 * Iceberg writes, and a deposed leader's commit is fenced.
 */
class IcebergClusterTest extends ThreeNodeFixture {
    @Test
    void icebergCommitForwardedFromFollower() throws Exception {
        int txBefore = recording.transactions.size();
        Rest.createTable(c.httpPort(), "robots", "episodes");
        HttpResponse<String> commit = Rest.post(c.httpPort(), "/v1/namespaces/robots/tables/episodes", Rest.setProperty("owner", "lab"));
        assertThat(commit.statusCode()).as(commit.body()).isEqualTo(200);
        assertThat(commit.headers().firstValue("ETag")).isPresent();
        String location = Rest.json(commit).get("metadata-location").asText();

        assertThat(recording.transactions.size()).as("namespace, create, commit").isEqualTo(txBefore + 3);
        assertThat(recording.transactions.subList(txBefore, recording.transactions.size()))
                .allSatisfy(t -> assertThat(t.guardKey()).as("every write fenced by the leader's lease").contains("election/leader"));
        for (MetasrvNode n : List.of(a, b, c)) {
            JsonNode loaded = Rest.json(Rest.get(n.httpPort(), "/v1/namespaces/robots/tables/episodes"));
            assertThat(loaded.get("metadata-location").asText()).as("node " + n.nodeId() + " sees the commit").isEqualTo(location);
            assertThat(loaded.at("/metadata/properties/owner").asText()).isEqualTo("lab");
        }
    }

    @Test
    void idempotentCommitReplaysAfterLeaderFailover() throws Exception {
        Rest.createTable(a.httpPort(), "robots", "episodes");
        String append = Rest.addFirstSnapshot(1001L, dir.resolve("warehouse/manifest-list-1001.avro").toUri().toString());
        Map<String, String> key = Map.of("Idempotency-Key", "0193d5c2-0000-7000-8000-00000000abcd");
        HttpResponse<String> acknowledged = Rest.call(a.httpPort(), "POST", "/v1/namespaces/robots/tables/episodes", append, key);
        assertThat(acknowledged.statusCode()).as(acknowledged.body()).isEqualTo(200);

        bTakesOver();
        assertThat(h.campaign(a).isLeader()).as("a sees b's lease and follows").isFalse();
        assertThat(h.campaign(c).leader()).contains("b");

        // The client never heard the answer and retries with its key, at a follower.
        int txBefore = recording.transactions.size();
        HttpResponse<String> retried = Rest.call(c.httpPort(), "POST", "/v1/namespaces/robots/tables/episodes", append, key);
        assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
        assertThat(Rest.json(retried)).as("the original response").isEqualTo(Rest.json(acknowledged));
        assertThat(retried.headers().firstValue("ETag")).isEqualTo(acknowledged.headers().firstValue("ETag"));
        assertThat(recording.transactions.size()).as("nothing written again").isEqualTo(txBefore);

        JsonNode table = Rest.json(Rest.get(b.httpPort(), "/v1/namespaces/robots/tables/episodes"));
        assertThat(table.at("/metadata/snapshots")).as("one new snapshot").hasSize(1);
        assertThat(table.at("/metadata/current-snapshot-id").asLong()).isEqualTo(1001L);

        HttpResponse<String> reused = Rest.call(c.httpPort(), "POST", "/v1/namespaces/robots/tables/episodes",
                Rest.setProperty("other", "request"), key);
        assertThat(reused.statusCode()).as(reused.body()).isEqualTo(422);
        assertThat(Rest.json(reused).at("/error/message").asText()).contains("different request");
    }

    @Test
    void staleLeaderIcebergCommitIsRefused() throws Exception {
        Rest.createTable(a.httpPort(), "robots", "episodes");
        String before = Rest.json(Rest.get(b.httpPort(), "/v1/namespaces/robots/tables/episodes")).get("metadata-location").asText();
        bTakesOver();
        assertThat(h.status(a).isLeader()).as("a still believes it leads").isTrue();

        int txBefore = recording.transactions.size();
        HttpResponse<String> stale = Rest.post(a.httpPort(), "/v1/namespaces/robots/tables/episodes", Rest.setProperty("stale", "yes"));
        assertThat(stale.statusCode()).as(stale.body()).isIn(409, 503);
        assertThat(Rest.json(stale).at("/error/type").asText()).isIn("CommitFailedException", "ServiceUnavailableException");
        assertThat(recording.transactions.size()).as("the stale commit reached the store").isGreaterThan(txBefore);
        assertThat(recording.transactions.get(txBefore).guardKey()).contains("election/leader");
        JsonNode now = Rest.json(Rest.get(b.httpPort(), "/v1/namespaces/robots/tables/episodes"));
        assertThat(now.get("metadata-location").asText()).as("the pointer did not move").isEqualTo(before);
        assertThat(now.at("/metadata/properties/stale").isMissingNode()).isTrue();

        HttpResponse<String> fresh = Rest.post(b.httpPort(), "/v1/namespaces/robots/tables/episodes", Rest.setProperty("fresh", "yes"));
        assertThat(fresh.statusCode()).as(fresh.body()).isEqualTo(200);
    }
}
