package lake.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import lake.config.ClusterSettings;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.Leadership;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Iceberg catalog on three nodes in one Vert.x (cluster mode on the local event bus, so
 * followers forward), sharing one recorded RocksDB store, clocks injected, election rounds only
 * on request.
 */
class IcebergClusterTest {
    static final long T0 = 1_700_000_000_000L;
    static final long TTL = 10_000;

    @TempDir Path dir;
    NodeHarness h;
    RecordingStore recording;
    final ManualClock clockA = new ManualClock(T0);
    final ManualClock clockB = new ManualClock(T0);
    final ManualClock clockC = new ManualClock(T0);
    MetasrvNode a;
    MetasrvNode b;
    MetasrvNode c;

    @BeforeEach
    void aLeadsAndCFollows() throws Exception {
        h = new NodeHarness();
        a = h.deploy(clustered("a"), clockA,
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(s -> recording = new RecordingStore(s)));
        b = h.deploy(clustered("b"), clockB, null);
        c = h.deploy(clustered("c"), clockC, null);
        assertThat(h.campaign(a).epoch()).isEqualTo(1L);
        assertThat(h.campaign(c).leader()).contains("a");
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private Settings clustered(String id) {
        // One catalog root for all three: they share the warehouse as they share the store.
        return NodeHarness.settings(id, dir.resolve(id), TTL, 0, 1_000)
                .with(f -> {
                    f.cluster = new ClusterSettings(true, "test", "127.0.0.1", 0, List.of(), ClusterSettings.StoreRole.HOST);
                    f.catalogRoot = dir.resolve("warehouse").toUri().toString();
                });
    }

    /** B's clock passes the lease's expiry and B takes over with epoch 2; A, frozen, still believes it leads. */
    private void bTakesOver() throws Exception {
        clockB.setWall(T0 + TTL);
        Leadership bLeads = h.campaign(b);
        assertThat(bLeads.epoch()).isEqualTo(2L);
    }

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
