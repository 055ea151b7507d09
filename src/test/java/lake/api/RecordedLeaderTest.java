package lake.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.function.Function;

/**
 * The set-up every API test on one leader shares: a node over a fresh store of the backend under
 * test (RocksDB unless a subclass says otherwise), behind a {@link RecordingStore}, leading epoch 1
 * on a frozen clock.
 */
public abstract class RecordedLeaderTest {
    @TempDir Path dir;
    public NodeHarness h;
    public MetasrvNode node;
    public RecordingStore store;

    /** Opens a fresh, empty store of the backend under test. */
    protected Function<Vertx, Future<? extends MetaStore>> backend(Path dir) {
        return v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks")));
    }

    @BeforeEach
    void leader() throws Exception {
        h = new NodeHarness();
        node = h.recordedLeader(dir, new ManualClock(1_700_000_000_000L), backend(dir), r -> store = r);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }
}
