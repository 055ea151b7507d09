package lake.node;

import lake.config.ClusterSettings;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.Leadership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static lake.node.ApiFixture.T0;
import static lake.node.ApiFixture.TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three nodes in one Vert.x, in cluster mode on the harness's local event bus (so followers
 * forward), sharing one recorded RocksDB store hosted by A and one catalog root, clocks
 * injected, election rounds only on request. Before each test A leads epoch 1 and C follows it.
 */
public abstract class ThreeNodeFixture {
    @TempDir protected Path dir;
    protected NodeHarness h;
    protected RecordingStore recording;
    protected final ManualClock clockA = new ManualClock(T0);
    protected final ManualClock clockB = new ManualClock(T0);
    protected final ManualClock clockC = new ManualClock(T0);
    protected MetasrvNode a;
    protected MetasrvNode b;
    protected MetasrvNode c;

    @BeforeEach
    void aLeadsAndCFollows() throws Exception {
        h = new NodeHarness();
        a = h.deploy(clustered("a"), clockA,
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(s -> recording = new RecordingStore(s)));
        b = h.deploy(clustered("b"), clockB, null);
        c = h.deploy(clustered("c"), clockC, null);
        assertThat(h.campaign(a).epoch()).isEqualTo(1L);
        Leadership follows = h.campaign(c);
        assertThat(follows.leader()).contains("a");
        assertThat(follows.leaderEpoch()).isEqualTo(1L);
        assertThat(follows.expiresAtMs()).as("the follower's snapshot carries the lease's expiry").isEqualTo(T0 + TTL);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** B's clock passes the lease's expiry and B takes over with epoch 2; A, frozen, still believes it leads. */
    protected Leadership bTakesOver() throws Exception {
        clockB.setWall(T0 + TTL);
        Leadership bLeads = h.campaign(b);
        assertThat(bLeads.epoch()).isEqualTo(2L);
        return bLeads;
    }

    private Settings clustered(String id) {
        return NodeHarness.settings(id, dir.resolve(id), TTL, 0, 1_000)
                .with(f -> {
                    f.cluster = new ClusterSettings(true, "test", "127.0.0.1", 0, List.of(), ClusterSettings.StoreRole.HOST);
                    f.catalogRoot = dir.resolve("warehouse").toUri().toString();
                });
    }
}
