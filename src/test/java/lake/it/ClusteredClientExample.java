package lake.it;

import com.hazelcast.config.Config;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.util.Base64;
import java.util.List;

/**
 * A user's own Vert.x application calling Metasrv over the clustered event bus, with nothing but
 * the documented client settings (cluster name, members, bind address). Shown in docs/event-bus.md.
 */
public final class ClusteredClientExample {
    private ClusteredClientExample() {}

    /** Joins the Metasrv cluster as an ordinary Vert.x member. */
    public static Future<Vertx> join(String clusterName, List<String> members, String host, int port) {
        return join(clusterName, members, host, port, null, null, null);
    }

    /**
     * As {@link #join(String, List, String, int)}, for a cluster whose bus runs over mutual TLS
     * ({@code cluster_tls_*}): this member's certificate and key (PEM, PKCS#8) and the cluster's CA.
     * All three {@code null}: no TLS.
     */
    public static Future<Vertx> join(String clusterName, List<String> members, String host, int port,
                                     String certFile, String keyFile, String caFile) {
        Config hz = ConfigUtil.loadConfig();                      // vertx-hazelcast's required maps
        hz.setClusterName(clusterName);
        hz.setProperty("hazelcast.wait.seconds.before.join", "0");
        hz.setProperty("hazelcast.logging.type", "slf4j");
        hz.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        hz.getNetworkConfig().getInterfaces().setEnabled(true).addInterface(host);
        hz.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        hz.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).setMembers(members);
        EventBusOptions bus = new EventBusOptions().setHost(host).setClusterPublicHost(host);
        if (certFile != null) {
            bus.setSsl(true).setClientAuth(io.vertx.core.http.ClientAuth.REQUIRED)
                    .setKeyCertOptions(new io.vertx.core.net.PemKeyCertOptions().setCertPath(certFile).setKeyPath(keyFile))
                    .setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(caFile));
        }
        return Vertx.builder()
                .with(new VertxOptions().setEventBusOptions(bus))
                .withClusterManager(new HazelcastClusterManager(hz))
                .buildClustered();
    }

    /** Creates {@code key} (it must be absent) and returns the reply; its lake-epoch header names the epoch. */
    public static Future<io.vertx.core.eventbus.Message<JsonObject>> create(Vertx vertx, String key, byte[] value,
                                                                           String expectedEpoch) {
        JsonObject cas = new JsonObject().put("key", key).putNull("expected")
                .put("value", Base64.getEncoder().encodeToString(value));
        DeliveryOptions opts = new DeliveryOptions().setSendTimeout(10_000);
        if (expectedEpoch != null) opts.addHeader("lake-epoch", expectedEpoch);
        return vertx.eventBus().request("lake.v1.kv.cas", cas, opts);
    }
}
