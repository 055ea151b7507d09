package lake.client;

import lake.client.model.ClientOptions;
import lake.client.model.MetasrvException;
import lake.client.model.Txn;
import lake.client.transport.VertxHttpTransport;
import lake.it.TcpProxy;
import lake.meta.MetaException;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.FaultyStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.wire.WriteResult;
import lake.wire.catalog.CatalogSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
    /** a's store: transparent until a test injects a fault. */
    FaultyStore store;
    MetasrvNode b;
    ManualClock clockB;

    @BeforeEach
    void twoNodes() throws Exception {
        h = new NodeHarness();
        a = h.deploy(NodeHarness.settings("a", dir.resolve("a"), TTL, 0, 1_000), new ManualClock(T0),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(r -> store = new FaultyStore(r)));
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

    /**
     * Nothing listens at any endpoint: the call ends at once with {@code Unreachable} naming them,
     * not at its 10 s deadline. Measured against that deadline with a margin a loaded machine keeps
     * (a refused connect takes milliseconds).
     */
    @Test
    void unreachableServerFailsFast() throws Exception {
        int one, two;
        try (ServerSocket s1 = new ServerSocket(0); ServerSocket s2 = new ServerSocket(0)) {
            one = s1.getLocalPort();
            two = s2.getLocalPort();
        }
        forEachHttpClient(ClientContract.options(one, two), c -> {
            for (Function<MetasrvClient, io.vertx.core.Future<?>> call : List.<Function<MetasrvClient, io.vertx.core.Future<?>>>of(
                    x -> x.get("x"), x -> x.create("refused/w", "v"), MetasrvClient::snapshot)) {
                long started = System.nanoTime();
                Throwable t = catchFailure(call.apply(c));
                long ms = (System.nanoTime() - started) / 1_000_000L;
                assertThat(t).isInstanceOf(MetasrvException.Unreachable.class)
                        .hasMessageContaining("connection refused")
                        .hasMessageContaining("127.0.0.1:" + one).hasMessageContaining("127.0.0.1:" + two);
                assertThat(ms).as("ended long before the 10 s deadline").isLessThan(3_000);
            }
        });
    }

    /** One endpoint refusing while another answers (here not_leader) is not "unreachable": the retries go on to the deadline. */
    @Test
    void aRefusingEndpointBesideAnAnsweringOneKeepsRetrying() throws Exception {
        ClientOptions o = ClientContract.options(closedPort(), b.httpPort()).withCallTimeout(Duration.ofMillis(1500))
                .withMaxRetryAfter(Duration.ofMillis(200));
        forEachHttpClient(o, c -> assertThatThrownBy(() -> NodeHarness.await(c.create("nl/refused", "v")))
                .isInstanceOf(MetasrvException.NotLeader.class));
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

    /** The backoff alone would wait 10-20 ms; the node's 503 names Retry-After: 1, and the client waits that second. */
    @Test
    void backendUnavailableIsRetriedAfterItsRetryAfter() throws Exception {
        for (long gapMs : gapsAfterOneBackendFailure(Duration.ofSeconds(5))) {
            assertThat(gapMs).as("waited the server's Retry-After").isGreaterThanOrEqualTo(1_000);
        }
    }

    /** maxRetryAfter caps what a server may ask for: here 100 ms instead of the node's one second. */
    @Test
    void retryAfterIsCappedByMaxRetryAfter() throws Exception {
        for (long gapMs : gapsAfterOneBackendFailure(Duration.ofMillis(100))) {
            assertThat(gapMs).as("at least the capped Retry-After, well short of the server's 1 s").isBetween(100L, 900L);
        }
    }

    /**
     * For each HTTP client: the store refuses one write (backend_unavailable, Retry-After: 1), the
     * client sends it again and it applies; returns the pause between the two sends, per client.
     */
    private List<Long> gapsAfterOneBackendFailure(Duration maxRetryAfter) throws Exception {
        List<Long> gaps = new java.util.ArrayList<>();
        try (TcpProxy proxy = new TcpProxy(a.httpPort(), TcpProxy.Mode.FORWARD)) {
            ClientOptions o = ClientContract.options(proxy.port()).withBackoff(Duration.ofMillis(20), Duration.ofMillis(20))
                    .withMaxRetryAfter(maxRetryAfter).withCallTimeout(Duration.ofSeconds(10));
            forEachHttpClient(o, c -> {
                int before = proxy.requests();
                store.failNext(new MetaException.RetryableBackend("throttled by test", null), 1);
                String key = "unavailable/" + maxRetryAfter.toMillis() + "/" + gaps.size();
                assertThat(NodeHarness.await(c.create(key, "v")).applied()).isTrue();
                assertThat(NodeHarness.await(c.getString(key))).contains("v");
                List<Long> times = proxy.requestTimes().subList(before, before + 2);
                assertThat(proxy.requests() - before).as("refused once (backend_unavailable), applied, read").isEqualTo(3);
                gaps.add((times.get(1) - times.get(0)) / 1_000_000);
            });
        }
        assertThat(gaps).hasSize(2);
        return gaps;
    }

    /**
     * not_leader everywhere until the deadline: every pause between attempts is the jittered
     * backoff (half to all of 20·2^n ms, at most 40 ms; Retry-After ignored), so the second of
     * attempts a 2 s deadline leaves (retries stop 1 s before it) holds many attempts, where an
     * unbounded doubling would hold about six. The jitter's formula: {@code RetrierTest}.
     */
    @Test
    void backoffBetweenAttemptsIsBoundedAndJittered() throws Exception {
        try (TcpProxy toB = new TcpProxy(b.httpPort(), TcpProxy.Mode.FORWARD)) {
            ClientOptions o = ClientContract.options(toB.port()).withBackoff(Duration.ofMillis(20), Duration.ofMillis(40))
                    .withMaxRetryAfter(Duration.ZERO).withCallTimeout(Duration.ofSeconds(2));
            forEachHttpClient(o, c -> {
                int before = toB.requests();
                assertThatThrownBy(() -> NodeHarness.await(c.create("backoff/x", "v"))).isInstanceOf(MetasrvException.NotLeader.class);
                List<Long> times = toB.requestTimes().subList(before, toB.requests());
                assertThat(times.size()).as("attempts within the 2 s deadline").isGreaterThanOrEqualTo(12);
                for (int k = 1; k < times.size(); k++) {
                    assertThat((times.get(k) - times.get(k - 1)) / 1_000_000).as("pause %d is at least half the base", k)
                            .isGreaterThanOrEqualTo(10);
                }
            });
        }
    }

    /** An HTTP server that answers every request {@code not_leader} after {@code delayMs}. */
    private io.vertx.core.http.HttpServer slowRefuser(long delayMs) throws Exception {
        return NodeHarness.await(h.vertx.createHttpServer()
                .requestHandler(r -> h.vertx.setTimer(delayMs, id -> r.response().setStatusCode(503)
                        .putHeader("Content-Type", "application/json")
                        .end("{\"error\":{\"code\":\"not_leader\",\"message\":\"slow follower (test)\"}}")))
                .listen(0, "127.0.0.1"));
    }

    /**
     * Found by the second and third reviews: a retry begun with too little time left timed out,
     * and a write every node had refused surfaced as OutcomeUnknown. An endpoint that refuses
     * slowly (60 ms with a 1 s deadline; 1.3 s, longer than the 1 s floor, with a 4 s one) until
     * the deadline must end every write with the refusal.
     */
    @Test
    void writeRefusedUntilTheDeadlineEndsWithTheRefusal() throws Exception {
        for (long[] c : new long[][] {{60, 1_000, 10}, {1_300, 4_000, 2}}) {
            io.vertx.core.http.HttpServer slow = slowRefuser(c[0]);
            try {
                ClientOptions o = ClientContract.options(slow.actualPort()).withCallTimeout(Duration.ofMillis(c[1]))
                        .withBackoff(Duration.ofMillis(20), Duration.ofMillis(40)).withMaxRetryAfter(Duration.ZERO);
                forEachHttpClient(o, client -> {
                    for (int i = 0; i < c[2]; i++) {
                        assertThatThrownBy(() -> NodeHarness.await(client.create("slow/x", "v"))).as("refusal after %d ms, call %d", c[0], i)
                                .isInstanceOf(MetasrvException.NotLeader.class);
                    }
                });
            } finally {
                NodeHarness.await(slow.close());
            }
        }
    }

    /**
     * Found by the third review: writes that queued for one of the pool's connections went out
     * with a tenth of their deadline left and were reported unknown though the node refused them
     * all. A write that would go out too late is not sent (NotSent, then Unreachable at the deadline).
     * Vert.x transport only: the blocking one opens a connection per request and never queues.
     */
    @Test
    void queuedWritesAreNeverSentTooLate() throws Exception {
        // 32 writes hold the pool's connections for a second; the other 8 get one with 0.5 s of
        // their 1.5 s left, less than the 0.75 s a send needs.
        io.vertx.core.http.HttpServer slow = slowRefuser(1_000);
        try (MetasrvClient c = MetasrvClient.http(h.vertx, ClientContract.options(slow.actualPort())
                .withCallTimeout(Duration.ofMillis(1_500)).withMaxRetryAfter(Duration.ZERO))) {
            List<io.vertx.core.Future<WriteResult>> writes = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) writes.add(c.create("queued/" + i, "v"));
            for (io.vertx.core.Future<WriteResult> w : writes) {
                Throwable t = catchFailure(w);
                assertThat(t).as("refused or never sent, never unknown").isInstanceOfAny(MetasrvException.NotLeader.class,
                        MetasrvException.Unreachable.class);
            }
        } finally {
            NodeHarness.await(slow.close());
        }
    }

    /**
     * Found by the fourth review: the blocking transport's read timeout bounds each read, so a
     * reply trickling in a byte every 300 ms held a call with a 2 s deadline for ever. The call
     * must end at its deadline.
     */
    @Test
    void aTricklingReplyEndsAtTheDeadline() throws Exception {
        io.vertx.core.http.HttpServer trickle = NodeHarness.await(h.vertx.createHttpServer().requestHandler(r -> {
            r.response().setChunked(true).putHeader("Content-Type", "application/json").write("{");
            h.vertx.setPeriodic(300, id -> {
                if (r.response().closed()) h.vertx.cancelTimer(id);
                else r.response().write(" ");
            });
        }).listen(0, "127.0.0.1"));
        try {
            forEachHttpClient(ClientContract.options(trickle.actualPort()).withCallTimeout(Duration.ofSeconds(2)), c -> {
                long started = System.nanoTime();
                assertThatThrownBy(() -> NodeHarness.await(c.get("trickle/x"))).isInstanceOf(MetasrvException.Unreachable.class);
                assertThatThrownBy(() -> NodeHarness.await(c.create("trickle/y", "v"))).isInstanceOf(MetasrvException.OutcomeUnknown.class);
                assertThat((System.nanoTime() - started) / 1_000_000).as("both calls ended at their 2 s deadlines").isLessThan(10_000);
            });
        } finally {
            NodeHarness.await(trickle.close());
        }
    }

    /**
     * Long polls in progress (more than the calls' pool, each holding its connection at the node)
     * never make a call wait for a connection.
     */
    @Test
    void longPollsDoNotHoldUpCalls() throws Exception {
        try (TcpProxy proxy = new TcpProxy(a.httpPort(), TcpProxy.Mode.FORWARD);
             MetasrvClient c = MetasrvClient.http(h.vertx, ClientContract.options(proxy.port()).withCallTimeout(Duration.ofSeconds(5)))) {
            NodeHarness.await(c.createNamespace("polls", java.util.Map.of()));
            String generation = NodeHarness.await(c.snapshot()).generation();
            assertThat(generation).as("a generation to wait on: the polls go to the node").isNotNull();
            int before = proxy.requests();
            List<io.vertx.core.Future<CatalogSnapshot>> polls = new java.util.ArrayList<>();
            int n = VertxHttpTransport.CALL_POOL + 1;   // more than the calls' pool: they must have their own
            for (int i = 0; i < n; i++) polls.add(c.awaitSnapshot(generation, 20_000));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> proxy.requests() - before == n);
            assertThat(NodeHarness.await(c.create("poll/x", "v")).applied()).isTrue();
            assertThat(NodeHarness.await(c.getString("poll/x"))).contains("v");
            assertThat(polls).as("still waiting at the node").allMatch(p -> !p.isComplete());
        }
    }

    /**
     * An answer that is not Metasrv's envelope with a 5xx (a load balancer's 502 page) may follow a
     * write that reached a node: the write is an unknown outcome, never sent on; a read goes on.
     */
    @Test
    void gatewayErrorIsAnUnknownOutcomeForWritesAndRetriedForReads() throws Exception {
        io.vertx.core.http.HttpServer gateway = NodeHarness.await(h.vertx.createHttpServer()
                .requestHandler(r -> r.response().setStatusCode(502).putHeader("Content-Type", "text/html")
                        .end("<html><body>502 Bad Gateway</body></html>"))
                .listen(0, "127.0.0.1"));
        try {
            ClientOptions o = ClientContract.options(gateway.actualPort(), a.httpPort());
            int[] i = {0};
            forEachHttpClient(o, c -> {
                String key = "gateway/" + i[0]++;
                assertThatThrownBy(() -> NodeHarness.await(c.create(key, "v"))).isInstanceOf(MetasrvException.OutcomeUnknown.class)
                        .hasMessageContaining("502");
                assertThat(NodeHarness.await(c.get(key))).as("not sent to the second node; the read went there").isEmpty();
            });
        } finally {
            NodeHarness.await(gateway.close());
        }
    }

    /**
     * On the bus, a handler that failed outside the API (no error envelope, a code no API error
     * has) may have written: a write is an unknown outcome, sent once; a read is retried.
     */
    @Test
    void busFailureOutsideTheApiIsAnUnknownOutcome() throws Exception {
        io.vertx.core.Vertx other = io.vertx.core.Vertx.vertx();
        try {
            java.util.concurrent.atomic.AtomicInteger cas = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger gets = new java.util.concurrent.atomic.AtomicInteger();
            other.eventBus().consumer("lake.v1.kv.cas", m -> {
                cas.incrementAndGet();
                m.fail(-1, "java.lang.IllegalStateException: handler failed");
            });
            other.eventBus().consumer("lake.v1.kv.get", m -> {
                gets.incrementAndGet();
                m.fail(-1, "java.lang.IllegalStateException: handler failed");
            });
            try (MetasrvClient c = MetasrvClient.bus(other, ClientContract.options(a.httpPort())
                    .withBackoff(Duration.ofMillis(20), Duration.ofMillis(40)).withCallTimeout(Duration.ofSeconds(1)))) {
                assertThatThrownBy(() -> NodeHarness.await(c.create("bus/x", "v"))).isInstanceOf(MetasrvException.OutcomeUnknown.class)
                        .hasMessageContaining("outside the API");
                assertThat(cas.get()).as("sent once").isEqualTo(1);
                assertThatThrownBy(() -> NodeHarness.await(c.get("bus/x"))).isInstanceOf(MetasrvException.Unreachable.class);
                assertThat(gets.get()).as("a read is asked again").isGreaterThan(1);
            }
        } finally {
            NodeHarness.await(other.close());
        }
    }

    /** A write that changes nothing (checks only, a put of the value it expects) cannot be told applied by reading back. */
    @Test
    void resolveCannotTellAWriteThatChangesNothing() throws Exception {
        try (MetasrvClient c = MetasrvClient.httpBlocking(ClientContract.options(a.httpPort()))) {
            NodeHarness.await(c.create("same/x", "v"));
            for (Txn t : List.of(Txn.builder().checkAbsent("same/y").build(),
                    Txn.builder().update("same/x", "v", "v").build(),
                    Txn.builder().checkAbsent("same/y").update("same/x", "v", "v").build())) {
                assertThat(NodeHarness.await(c.resolve(new MetasrvException.OutcomeUnknown("test", t, null))))
                        .as("%s", t.ops()).isEqualTo(ReadBack.CANNOT_TELL);
            }
            assertThat(NodeHarness.await(c.resolve(new MetasrvException.OutcomeUnknown("test",
                    Txn.builder().update("same/x", "v", "v").put("same/z", "z").build(), null))))
                    .as("the op that changes something decides").isEqualTo(ReadBack.NOT_IN_EFFECT);
        }
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
