package lake.client;

import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.server.ManualClock;
import lake.server.MetasrvNode;
import lake.server.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The retry rule against real nodes: node "a" leads epoch 1 over RocksDB, node "b" shares its store
 * and follows (no forwarding outside cluster mode, so a write on b is refused {@code not_leader}).
 * Faults come from real sockets: a closed port, and {@link TcpProxy}, which forwards a request to
 * the node and withholds or drops its answer.
 */
class ClientRetryTest {
    static final long T0 = 1_700_000_000_000L;
    static final long TTL = 10_000;

    @TempDir Path dir;
    NodeHarness h;
    MetasrvNode a;
    MetasrvNode b;
    ManualClock clockB;

    @BeforeEach
    void twoNodes() throws Exception {
        h = new NodeHarness();
        a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), TTL, 0, 1_000), new ManualClock(T0),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
        clockB = new ManualClock(T0);
        b = h.deploy(NodeHarness.settings("b", dir.resolve("b"), TTL, 0, 1_000), clockB, null);
        assertThat(h.campaign(a).epoch()).isEqualTo(1L);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Each client kind the retry rule must hold for. */
    private void forEachHttpClient(ClientOptions options, ThrowingConsumer body) throws Exception {
        for (Function<ClientOptions, MetasrvClient> kind : java.util.List.<Function<ClientOptions, MetasrvClient>>of(
                o -> MetasrvClient.http(h.vertx, o), MetasrvClient::httpBlocking)) {
            try (MetasrvClient c = kind.apply(options)) {
                body.accept(c);
            }
        }
    }

    interface ThrowingConsumer {
        void accept(MetasrvClient c) throws Exception;
    }

    @Test
    void clientRetriesNotLeaderOnNextEndpoint() throws Exception {
        try (TcpProxy toB = new TcpProxy(b.httpPort(), TcpProxy.Mode.FORWARD)) {
            // b first: it refuses with not_leader (certainly unapplied); the client goes on to a.
            int[] i = {0};
            forEachHttpClient(ClientContract.options(toB.port(), a.httpPort()), c -> {
                int before = toB.requests();
                String key = "retry/" + i[0]++;
                WriteResult r = NodeHarness.await(c.create(key, "v"));
                assertThat(r.applied()).isTrue();
                assertThat(r.epoch()).isEqualTo(1L);
                assertThat(toB.requests() - before).as("the follower was asked first").isEqualTo(1);
                assertThat(NodeHarness.await(c.getString(key))).contains("v");
            });
        }
    }

    @Test
    void notLeaderEverywhereSurfacesAsNotLeaderAtTheDeadline() throws Exception {
        ClientOptions o = ClientContract.options(b.httpPort()).withCallTimeout(Duration.ofMillis(1500))
                .withMaxRetryAfter(Duration.ofMillis(200));
        forEachHttpClient(o, c -> assertThatThrownBy(() -> NodeHarness.await(c.create("nl/x", "v")))
                .isInstanceOf(MetasrvException.NotLeader.class));
        assertThat(NodeHarness.await(h.vertx.eventBus().request("lake.v1.kv.get", "{\"key\":\"nl/x\"}")
                .map(m -> "found").otherwise(t -> "absent"))).isEqualTo("absent");
    }

    @Test
    void connectionRefusedIsRetriedOnTheNextEndpoint() throws Exception {
        int closed = closedPort();
        int[] i = {0};
        forEachHttpClient(ClientContract.options(closed, a.httpPort()), c -> {
            assertThat(NodeHarness.await(c.create("refused/" + i[0]++, "v")).applied()).isTrue();
        });
        forEachHttpClient(ClientContract.options(closed).withCallTimeout(Duration.ofMillis(800)), c ->
                assertThatThrownBy(() -> NodeHarness.await(c.get("x"))).isInstanceOf(MetasrvException.Unreachable.class));
    }

    @Test
    void clientNeverRetriesUnknownOutcome() throws Exception {
        for (TcpProxy.Mode mode : new TcpProxy.Mode[] {TcpProxy.Mode.WITHHOLD, TcpProxy.Mode.CLOSE_AFTER_ANSWER}) {
            try (TcpProxy proxy = new TcpProxy(a.httpPort(), mode)) {
                // The node itself is a second endpoint: a client that retried would succeed there.
                ClientOptions o = ClientContract.options(proxy.port(), a.httpPort()).withCallTimeout(Duration.ofSeconds(2));
                int[] i = {0};
                forEachHttpClient(o, c -> {
                    String key = "unknown/" + mode + "/" + i[0]++;
                    int before = proxy.requests();
                    Throwable t = catchFailure(c.create(key, "written once"));
                    assertThat(t).isInstanceOf(MetasrvException.OutcomeUnknown.class);
                    assertThat(proxy.requests() - before).as("sent exactly once").isEqualTo(1);
                    assertThat(proxy.suppressedAnswers()).as("the node answered; the client never heard").isPositive();
                    try (MetasrvClient direct = MetasrvClient.httpBlocking(ClientContract.options(a.httpPort()))) {
                        assertThat(NodeHarness.await(direct.getString(key))).as("applied by the one request").contains("written once");
                        assertThat(NodeHarness.await(direct.resolve((MetasrvException.OutcomeUnknown) t))).isEqualTo(ReadBack.IN_EFFECT);
                    }
                });
            }
        }
    }

    /** Found by the review: a node that accepts connections but never answers held every call for its whole deadline. */
    @Test
    void readsSkipASilentEndpoint() throws Exception {
        try (MetasrvClient seed = MetasrvClient.httpBlocking(ClientContract.options(a.httpPort()))) {
            NodeHarness.await(seed.create("silent/x", "v"));
        }
        try (TcpProxy silent = new TcpProxy(a.httpPort(), TcpProxy.Mode.WITHHOLD)) {
            ClientOptions o = ClientContract.options(silent.port(), a.httpPort()).withCallTimeout(Duration.ofSeconds(6));
            int[] i = {0};
            forEachHttpClient(o, c -> {
                long started = System.nanoTime();
                assertThat(NodeHarness.await(c.getString("silent/x"))).contains("v");
                assertThat((System.nanoTime() - started) / 1_000_000).as("answered by the other node within the deadline").isLessThan(6_000);
                int before = silent.requests();
                String key = "silent/w" + i[0]++;
                assertThat(NodeHarness.await(c.create(key, "w")).applied()).as("the next write starts on the node that answered").isTrue();
                assertThat(silent.requests()).isEqualTo(before);
            });
        }
    }

    @Test
    void readsRetryAfterALostAnswer() throws Exception {
        try (MetasrvClient seed = MetasrvClient.httpBlocking(ClientContract.options(a.httpPort()))) {
            NodeHarness.await(seed.create("read/x", "v"));
            assertThat(NodeHarness.await(seed.resolve(new MetasrvException.OutcomeUnknown("test",
                    Txn.builder().create("read/x", "other").build(), null)))).isEqualTo(ReadBack.NOT_IN_EFFECT);
        }
        try (TcpProxy proxy = new TcpProxy(a.httpPort(), TcpProxy.Mode.CLOSE_AFTER_ANSWER)) {
            forEachHttpClient(ClientContract.options(proxy.port(), a.httpPort()), c ->
                    assertThat(NodeHarness.await(c.getString("read/x"))).contains("v"));
        }
    }

    @Test
    void pinnedEpochSurfacesLeaderChange() throws Exception {
        forEachHttpClient(ClientContract.options(a.httpPort(), b.httpPort()), c -> {
            MetasrvClient pinned = NodeHarness.await(c.pinCurrentEpoch());
            assertThat(pinned.pinnedEpoch()).hasValue(1L);
            assertThat(NodeHarness.await(pinned.put("pin/before", "x")).epoch()).isEqualTo(1L);
        });
        // b takes over with epoch 2 (its clock passes a's lease expiry); the clients below ask b only.
        clockB.setWall(T0 + TTL);
        assertThat(h.campaign(b).epoch()).isEqualTo(2L);
        forEachHttpClient(ClientContract.options(b.httpPort()).withPinFirstEpoch(true), c -> {
            MetasrvClient pinned = c.withEpoch(1);
            assertThatThrownBy(() -> NodeHarness.await(pinned.create("pin/after", "x")))
                    .isInstanceOf(MetasrvException.EpochMismatch.class).hasMessageContaining("2");
            assertThat(NodeHarness.await(c.get("pin/after"))).as("nothing written under the new leader").isEmpty();
            // Unpinned, the same client writes under epoch 2 and pins it (pinFirstEpoch).
            assertThat(NodeHarness.await(c.put("pin/unpinned", "y")).epoch()).isEqualTo(2L);
            assertThat(c.pinnedEpoch()).hasValue(2L);
        });
    }

    private static Throwable catchFailure(io.vertx.core.Future<?> f) {
        try {
            NodeHarness.await(f);
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }
}
