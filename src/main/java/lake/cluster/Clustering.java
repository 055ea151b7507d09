package lake.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
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
 */
public final class Clustering {
    private Clustering() {}

    /** Seconds without a heartbeat after which a member is declared dead. */
    public static final int MAX_NO_HEARTBEAT_SECONDS = 5;

    public static Config hazelcastConfig(ClusterSettings c) {
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
        // The others connect to the advertised (public) host and port; left unset, Vert.x
        // advertises the port it bound (it refuses -1 as a value).
        EventBusOptions bus = new EventBusOptions().setHost(c.host()).setPort(c.busPort()).setClusterPublicHost(c.host());
        if (c.busPublicPort() != 0) bus.setClusterPublicPort(c.busPublicPort());
        options.setEventBusOptions(busTls == null ? bus : mutualTls(bus, busTls));
        VertxBuilder builder = Vertx.builder().with(options)
                .withClusterManager(new HazelcastClusterManager(hazelcastConfig(c)));
        if (metrics != null) builder.withMetrics(metrics);
        return builder.buildClustered();
    }
}
