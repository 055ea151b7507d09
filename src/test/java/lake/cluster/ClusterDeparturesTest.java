package lake.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import lake.config.ClusterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A member that dies without leaving (its Hazelcast instance terminated, as by SIGKILL) is
 * published by its node id to the others' local {@link Clustering#MEMBER_LEFT} consumers; a
 * member without a node id (a user's clustered application) is not. Real Hazelcast on loopback.
 */
class ClusterDeparturesTest {
    final List<Vertx> instances = new ArrayList<>();

    /**
     * Below the ephemeral range and never twice in this JVM ({@link lake.it.ClusterHarness#freePort}):
     * an ephemeral port may meanwhile be the local end of another member's connection, and
     * Hazelcast then binds the next port, another member's ("Connecting to self!", seen in the suite).
     */
    static int freePort() throws IOException {
        return lake.it.ClusterHarness.freePort();
    }

    static <T> T join(Future<T> f) throws Exception {
        try {
            return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    @AfterEach
    void close() {
        for (Vertx v : instances) {
            try {
                join(v.close());
            } catch (Exception ignored) {
                // A terminated member's Vert.x may fail to close cleanly.
            }
        }
    }

    @Test
    void aMemberThatDiesIsPublishedByItsNodeId() throws Exception {
        int[] ports = {freePort(), freePort(), freePort()};
        List<String> members = List.of("127.0.0.1:" + ports[0], "127.0.0.1:" + ports[1], "127.0.0.1:" + ports[2]);
        String name = "lake-departures-" + ports[0];
        Vertx watcher = start(new ClusterSettings(true, name, "127.0.0.1", ports[0], members, null), "w");
        Vertx app = start(new ClusterSettings(true, name, "127.0.0.1", ports[1], members, null), null);
        Vertx dying = start(new ClusterSettings(true, name, "127.0.0.1", ports[2], members, null), "n2");
        HazelcastClusterManager watcherHz = (HazelcastClusterManager) ((VertxInternal) watcher).clusterManager();
        await().atMost(Duration.ofSeconds(30)).until(() -> watcherHz.getHazelcastInstance().getCluster().getMembers().size() == 3);
        List<String> left = new CopyOnWriteArrayList<>();
        join(watcher.eventBus().<String>localConsumer(Clustering.MEMBER_LEFT, m -> left.add(m.body())).completion());

        ((HazelcastClusterManager) ((VertxInternal) dying).clusterManager()).getHazelcastInstance().getLifecycleService().terminate();
        await().atMost(Duration.ofSeconds(20)).until(() -> left.contains("n2"));
        ((HazelcastClusterManager) ((VertxInternal) app).clusterManager()).getHazelcastInstance().getLifecycleService().terminate();
        await().atMost(Duration.ofSeconds(20)).until(() -> watcherHz.getHazelcastInstance().getCluster().getMembers().size() == 1);
        assertThat(left).as("only members with a node id, once each").containsExactly("n2");
    }

    private Vertx start(ClusterSettings c, String nodeId) throws Exception {
        Vertx v = join(Clustering.start(c, nodeId, null, new io.vertx.core.VertxOptions(), null));
        instances.add(v);
        return v;
    }
}
