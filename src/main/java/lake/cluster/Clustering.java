package lake.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import io.vertx.core.http.ClientAuth;
import lake.config.ClusterSettings;
import lake.security.TlsMaterial;

/**
 * Builds a clustered Vert.x instance over Hazelcast: TCP-IP join on the configured members only
 * (multicast and auto-detection off), bound to the configured address, with failure detection
 * tuned so a dead or paused member is dropped within a few seconds and joining does not wait.
 *
 * <p>Each member carries its Metasrv node id (member attribute {@value #NODE_ATTRIBUTE}), and
 * when Hazelcast drops a member, its node id is published on this process's event bus at
 * {@value #MEMBER_LEFT} (local only). A killed member is dropped within about a second: its TCP
 * connections are reset, Hazelcast's reconnects are refused and it suspects and removes the member
 * (a paused one after {@value #MAX_NO_HEARTBEAT_SECONDS} s without a heartbeat). The clustered
 * event bus gives no such signal for requests already sent (they wait for their timeout), so a
 * follower answers the writes it forwarded to that node from this publication.
 */
public final class Clustering {
    private Clustering() {}

    /** Seconds without a heartbeat after which a member is declared dead. */
    public static final int MAX_NO_HEARTBEAT_SECONDS = 5;

    /** The Hazelcast member attribute naming the member's Metasrv node id. */
    public static final String NODE_ATTRIBUTE = "lake.node";

    /** Local event-bus address on which the node id of a member Hazelcast dropped is published (a String). */
    public static final String MEMBER_LEFT = "lake.cluster.member-left";

    public static Config hazelcastConfig(ClusterSettings c) {
        return hazelcastConfig(c, null);
    }

    /** As {@link #hazelcastConfig(ClusterSettings)}, the member carrying {@code nodeId} (may be null) as {@value #NODE_ATTRIBUTE}. */
    public static Config hazelcastConfig(ClusterSettings c, String nodeId) {
        Config hz = ConfigUtil.loadConfig();
        hz.setClusterName(c.name());
        hz.setProperty("hazelcast.logging.type", "slf4j");
        hz.setProperty("hazelcast.phone.home.enabled", "false");
        hz.setProperty("hazelcast.wait.seconds.before.join", "0");
        hz.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        hz.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        hz.setProperty("hazelcast.max.no.heartbeat.seconds", String.valueOf(MAX_NO_HEARTBEAT_SECONDS));
        hz.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
        hz.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
        hz.setProperty("hazelcast.local.localAddress", c.host());
        hz.setProperty("hazelcast.socket.bind.any", "false");
        hz.setProperty("hazelcast.shutdownhook.enabled", "false");
        NetworkConfig net = hz.getNetworkConfig();
        net.setPort(c.port()).setPortAutoIncrement(false);
        net.getInterfaces().setEnabled(true).addInterface(c.host());
        JoinConfig join = net.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(c.members()).setConnectionTimeoutSeconds(2);
        if (nodeId != null) hz.getMemberAttributeConfig().setAttribute(NODE_ATTRIBUTE, nodeId);
        return hz;
    }

    /**
     * The event bus over TLS 1.2+ with client authentication required: this member presents
     * {@code m}'s certificate when it connects and when it is connected to, and accepts only peers
     * whose certificate chains to {@code m}'s CA, in both directions. Every bus message between
     * members travels over these connections, so a process without such a certificate can
     * neither deliver a message to a member nor receive one from it. (Vert.x does not check the
     * peer's host name on the bus: any certificate of the cluster's CA is a member.)
     */
    public static EventBusOptions mutualTls(EventBusOptions bus, TlsMaterial m) {
        if (m.trustOptions() == null) throw new IllegalArgumentException("bus TLS needs a CA: client authentication is required both ways");
        return bus.setSsl(true).setKeyCertOptions(m.keyCertOptions()).setTrustOptions(m.trustOptions())
                .setClientAuth(ClientAuth.REQUIRED).setEnabledSecureTransportProtocols(TlsMaterial.PROTOCOLS);
    }

    /** A clustered Vert.x whose event bus listens on the cluster address and the configured bus port (0: a free one). */
    public static Future<Vertx> start(ClusterSettings c) {
        return start(c, new VertxOptions(), null);
    }

    /** As {@link #start(ClusterSettings)}, with the node's own options and metrics (may be null). */
    public static Future<Vertx> start(ClusterSettings c, VertxOptions options, VertxMetricsFactory metrics) {
        return start(c, null, options, metrics);
    }

    /**
     * As {@link #start(ClusterSettings, VertxOptions, VertxMetricsFactory)}; with {@code busTls},
     * the clustered event bus runs over mutual TLS ({@link #mutualTls}).
     */
    public static Future<Vertx> start(ClusterSettings c, TlsMaterial busTls, VertxOptions options, VertxMetricsFactory metrics) {
        return start(c, null, busTls, options, metrics);
    }

    /**
     * As {@link #start(ClusterSettings, TlsMaterial, VertxOptions, VertxMetricsFactory)}, as the
     * member of Metasrv node {@code nodeId}: the others learn at once when it leaves
     * ({@value #MEMBER_LEFT}).
     */
    public static Future<Vertx> start(ClusterSettings c, String nodeId, TlsMaterial busTls, VertxOptions options,
                                      VertxMetricsFactory metrics) {
        // The others connect to the advertised (public) host and port; left unset, Vert.x
        // advertises the port it bound (it refuses -1 as a value).
        EventBusOptions bus = new EventBusOptions().setHost(c.host()).setPort(c.busPort()).setClusterPublicHost(c.host());
        if (c.busPublicPort() != 0) bus.setClusterPublicPort(c.busPublicPort());
        options.setEventBusOptions(busTls == null ? bus : mutualTls(bus, busTls));
        HazelcastClusterManager manager = new HazelcastClusterManager(hazelcastConfig(c, nodeId));
        VertxBuilder builder = Vertx.builder().with(options).withClusterManager(manager);
        if (metrics != null) builder.withMetrics(metrics);
        return builder.buildClustered().onSuccess(vertx -> publishDepartures(vertx, manager));
    }

    /**
     * Publishes, locally, the node id of every member Hazelcast removes. A listener of its own
     * (Vert.x's node listener is Vert.x's, one per cluster manager), called on a Hazelcast event
     * thread; the event bus is safe to publish on from any thread. A member without the
     * attribute (a user's clustered application) is no node and is not published.
     */
    static void publishDepartures(Vertx vertx, HazelcastClusterManager manager) {
        manager.getHazelcastInstance().getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent e) {}

            @Override
            public void memberRemoved(MembershipEvent e) {
                String node = e.getMember().getAttribute(NODE_ATTRIBUTE);
                if (node != null) vertx.eventBus().publish(MEMBER_LEFT, node, new DeliveryOptions().setLocalOnly(true));
            }
        });
    }
}
