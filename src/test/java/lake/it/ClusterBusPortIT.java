package lake.it;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.spi.cluster.NodeInfo;
import lake.cluster.Clustering;
import lake.config.ClusterSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code cluster_bus_port} and {@code cluster_bus_public_port} on two real clustered Vert.x
 * members (Hazelcast on loopback): the member listens on the bus port, advertises the public one,
 * and the other member reaches it only through whatever forwards the public port (here a proxy
 * that can drop every connection, as the fault campaign's RocksDB store outage does).
 */
class ClusterBusPortIT {
    private static <T> T join(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aMemberAdvertisesItsPublicBusPortAndIsReachedThroughIt() throws Exception {
        int hzA = ClusterHarness.freePort();
        int hzB = ClusterHarness.freePort();
        int busPort = ClusterHarness.freePort();
        List<String> members = List.of("127.0.0.1:" + hzA, "127.0.0.1:" + hzB);
        String name = "bus-port-" + hzA;
        try (TcpProxy proxy = new TcpProxy(busPort, TcpProxy.Mode.FORWARD)) {
            ClusterSettings a = new ClusterSettings(true, name, "127.0.0.1", hzA, members, ClusterSettings.StoreRole.HOST, null,
                    busPort, proxy.port());
            ClusterSettings b = new ClusterSettings(true, name, "127.0.0.1", hzB, members, ClusterSettings.StoreRole.REMOTE, null);
            Vertx va = join(Clustering.start(a));
            Vertx vb = null;
            try {
                vb = join(Clustering.start(b));
                join(va.eventBus().<String>consumer("bus-port-probe", m -> m.reply("pong")).completion());

                // The bus listens on the configured port.
                try (Socket direct = new Socket(InetAddress.getLoopbackAddress(), busPort)) {
                    assertThat(direct.isConnected()).isTrue();
                }
                // The cluster knows the member by its public port.
                VertxInternal ib = (VertxInternal) vb;
                String idA = ((VertxInternal) va).clusterManager().getNodeId();
                Promise<NodeInfo> info = Promise.promise();
                ib.clusterManager().getNodeInfo(idA, info);
                assertThat(join(info.future()).port()).as("advertised bus port").isEqualTo(proxy.port());

                // The other member's messages go through the proxy ...
                Vertx sender = vb;
                DeliveryOptions quick = new DeliveryOptions().setSendTimeout(1_000);
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                        .until(() -> "pong".equals(join(sender.eventBus().<String>request("bus-port-probe", "ping", quick)).body()));
                assertThat(proxy.accepted()).as("connections through the advertised port").isPositive();

                // ... and only through it: while it drops every connection, nothing arrives.
                proxy.mode(TcpProxy.Mode.DROP);
                assertThatThrownBy(() -> join(sender.eventBus().request("bus-port-probe", "ping", quick)))
                        .hasCauseInstanceOf(ReplyException.class);
                proxy.mode(TcpProxy.Mode.FORWARD);
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                        .until(() -> "pong".equals(join(sender.eventBus().<String>request("bus-port-probe", "ping", quick)).body()));
            } finally {
                if (vb != null) join(vb.close());
                join(va.close());
            }
        }
    }
}
