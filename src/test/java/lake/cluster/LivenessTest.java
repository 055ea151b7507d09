package lake.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import lake.config.ClusterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The probe's rules with real sockets on loopback: a member whose address accepted a probe and then
 * refuses is published as gone, once, with the reason; a member that accepts is not; an address
 * that never accepted proves nothing; nothing is probed for a node with no write awaiting.
 */
class LivenessTest {
    final Vertx vertx = Vertx.vertx();

    static <T> T join(Future<T> f) throws Exception {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    @AfterEach
    void close() throws Exception {
        join(vertx.close());
    }

    NetServer counting(AtomicInteger probes) throws Exception {
        return join(vertx.createNetServer().connectHandler(s -> {
            probes.incrementAndGet();
            s.close();
        }).listen(0, "127.0.0.1"));
    }

    @Test
    void onlyARefusalAfterAnAcceptedProbeMeansGone() throws Exception {
        AtomicInteger probedL = new AtomicInteger();
        AtomicInteger probedAlive = new AtomicInteger();
        AtomicInteger probedIdle = new AtomicInteger();
        NetServer l = counting(probedL);
        NetServer alive = counting(probedAlive);
        NetServer idle = counting(probedIdle);
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Map<String, Liveness.Target> book = Map.of(
                "L", new Liveness.Target("member-L", "127.0.0.1", l.actualPort()),
                "ALIVE", new Liveness.Target("member-A", "127.0.0.1", alive.actualPort()),
                "NEVER", new Liveness.Target("member-N", "127.0.0.1", closed),
                "IDLE", new Liveness.Target("member-I", "127.0.0.1", idle.actualPort()));
        List<String> gone = new CopyOnWriteArrayList<>();
        join(vertx.eventBus().<String>localConsumer(Clustering.MEMBER_LEFT,
                m -> gone.add(m.body() + ": " + m.headers().get(Liveness.REASON_HEADER))).completion());
        Liveness liveness = new Liveness(vertx, node -> Optional.ofNullable(book.get(node)));
        try {
            for (String n : List.of("L", "ALIVE", "NEVER")) liveness.sent(n);
            liveness.sent("IDLE");
            liveness.answered("IDLE");
            await().atMost(Duration.ofSeconds(10)).until(() -> probedL.get() >= 1);
            join(l.close());   // L's process is gone: its port refuses from now on
            await().atMost(Duration.ofSeconds(10)).until(() -> !gone.isEmpty());
            // Three more rounds: ALIVE accepted each, NEVER refused each; neither is gone, L only once.
            int seen = probedAlive.get();
            await().atMost(Duration.ofSeconds(10)).until(() -> probedAlive.get() >= seen + 3);
            assertThat(gone).containsExactly("L: " + Liveness.PROBED);
            int idleProbes = probedIdle.get();
            assertThat(idleProbes).as("probed once when its write was sent, never after it was answered").isLessThanOrEqualTo(1);
        } finally {
            liveness.close();
            join(alive.close());
            join(idle.close());
        }
    }

    @Test
    void onlyConnectionRefusedIsARefusal() {
        assertThat(Liveness.refused(new java.net.ConnectException("Connection refused"))).isTrue();
        assertThat(Liveness.refused(new RuntimeException(new java.net.ConnectException("connect(..) failed: Connection refused")))).isTrue();
        assertThat(Liveness.refused(new java.net.ConnectException("connect(..) failed with error(-111)"))).isTrue();
        assertThat(Liveness.refused(new io.netty.channel.ConnectTimeoutException("connection timed out: /127.0.0.1:1"))).isFalse();
        assertThat(Liveness.refused(new java.net.ConnectException("connect(..) failed with error(-99)"))).as("EADDRNOTAVAIL: ours").isFalse();
        assertThat(Liveness.refused(new java.net.ConnectException("connect(..) failed: Operation not permitted"))).isFalse();
        assertThat(Liveness.refused(new java.net.NoRouteToHostException("No route to host"))).isFalse();
    }

    /** Real Hazelcast on loopback: a member's node id leads to its event-bus address, as Vert.x registered it. */
    @Test
    void theAddressBookFindsAMembersEventBusAddressByItsNodeId() throws Exception {
        int[] ports = {ClusterDeparturesTest.freePort(), ClusterDeparturesTest.freePort()};
        List<String> members = List.of("127.0.0.1:" + ports[0], "127.0.0.1:" + ports[1]);
        String name = "lake-liveness-" + ports[0];
        Vertx a = join(Clustering.start(new ClusterSettings(true, name, "127.0.0.1", ports[0], members, null), "a", null,
                new io.vertx.core.VertxOptions(), null));
        Vertx b = join(Clustering.start(new ClusterSettings(true, name, "127.0.0.1", ports[1], members, null), "b", null,
                new io.vertx.core.VertxOptions(), null));
        Liveness liveness = Liveness.of(a).orElseThrow();
        try {
            io.vertx.core.spi.cluster.NodeInfo bInfo = ((io.vertx.core.internal.VertxInternal) b).clusterManager().getNodeInfo();
            await().atMost(Duration.ofSeconds(30)).until(() -> liveness.target("b").isPresent());
            Liveness.Target t = liveness.target("b").orElseThrow();
            assertThat(t.host()).isEqualTo(bInfo.host());
            assertThat(t.port()).as("b's clustered event-bus port").isEqualTo(bInfo.port()).isPositive();
            assertThat(t.member()).isEqualTo(((io.vertx.core.internal.VertxInternal) b).clusterManager().getNodeId());
            assertThat(liveness.target("nobody")).isEmpty();
        } finally {
            liveness.close();
            join(b.close());
            join(a.close());
        }
    }
}
