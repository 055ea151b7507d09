package lake.it;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import lake.it.ClusterHarness.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static lake.it.ClusterFailoverContract.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The clustered event bus over mutual TLS, with three real Metasrv processes (RocksDB store host
 * n1, n2 and n3 remote) each presenting a certificate of the cluster's CA, and no API tokens at
 * all: the bus certificate alone decides who can talk to the nodes. A fourth clustered Vert.x
 * without a certificate joins Hazelcast's membership (which has no TLS) but gets no answer and
 * receives nothing; a fourth with a certificate is served.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterBusTlsIT {
    Path dir;
    BusTlsPki tls;
    ClusterHarness cluster;
    List<String> members;

    @BeforeAll
    void startCluster() throws Exception {
        dir = Files.createTempDirectory("cluster-bus-tls-it");
        tls = new BusTlsPki(dir.resolve("pki"));
        List<List<String>> args = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            List<String> a = new ArrayList<>(List.of("--store", "rocks", "--store-role", i == 0 ? "host" : "remote"));
            a.addAll(tls.args(i));
            args.add(a);
        }
        cluster = ClusterHarness.start(dir, args, Map.of());
        members = cluster.nodes.stream().map(n -> "127.0.0.1:" + n.hzPort()).toList();
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) cluster.close();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void clusterBusRefusesMemberWithoutCertificate() throws Exception {
        Node leader = cluster.awaitLeader(Duration.ofSeconds(60), cluster.nodes, 1);
        Node follower = cluster.others(leader).get(0);

        Vertx outsider = join(ClusteredClientExample.join(cluster.clusterName, members, "127.0.0.1", ClusterHarness.freePort()));
        try {
            // Nodes do see it as a Hazelcast member: membership itself is not authenticated.
            // It joined (a four-member view) and its request found the nodes' handlers, which never
            // answered it (TIMEOUT, not NO_HANDLERS: an outsider alone in its own cluster would
            // prove nothing).
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                    ((io.vertx.core.internal.VertxInternal) outsider).clusterManager().getNodes().size() == 4);
            assertThatThrownBy(() -> join(ClusteredClientExample.create(outsider, "bus/outsider", new byte[] {1}, null)))
                    .as("a cas from a member without a certificate")
                    .isInstanceOfSatisfying(ReplyException.class, e ->
                            assertThat(e.failureType()).isEqualTo(io.vertx.core.eventbus.ReplyFailure.TIMEOUT));
            assertThatThrownBy(() -> join(outsider.eventBus().request("lake.v1.kv.get", new JsonObject().put("key", "bus/outsider"),
                    new DeliveryOptions().setSendTimeout(5_000)))).isInstanceOf(ReplyException.class);

            // Then it listens on the addresses nodes send to: the forward address of the leader, the
            // store host's store, the public cas. (Only now: a request of its own to an address it
            // also listens on could be delivered to itself, locally, which proves nothing.)
            List<String> received = java.util.Collections.synchronizedList(new ArrayList<>());
            for (String address : List.of("lake.node." + leader.id() + ".forward", "lake.internal.store", "lake.v1.kv.cas")) {
                join(outsider.eventBus().consumer(address, m -> received.add(address)).completion());
            }
            // Writes through a follower are forwarded to the leader over the bus meanwhile.
            HttpClient http = HttpClient.newHttpClient();
            for (int i = 0; i < 10; i++) {
                String body = new JsonObject().put("key", "via-follower/" + i).putNull("expected")
                        .put("value", Base64.getEncoder().encodeToString(new byte[] {(byte) i})).encode();
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + follower.httpPort() + "/v1/kv/cas"))
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            }
            assertThat(received).as("messages delivered to the member without a certificate").isEmpty();
            assertThat(ClusterHarness.value(leader, "bus/outsider")).as("nothing written").isEmpty();
        } finally {
            join(outsider.close());
        }

        // The outsider listened on the store's address: requests the round robin gave it were never
        // answered, so renewals may have failed and leadership lapsed (availability, never safety:
        // nothing was written above). Once it is gone, a leader is elected again.
        cluster.awaitLeader(Duration.ofSeconds(60), cluster.nodes, 1);

        // A member with a certificate of the cluster's CA is served, as the docs show.
        Vertx member = join(ClusteredClientExample.join(cluster.clusterName, members, "127.0.0.1", ClusterHarness.freePort(),
                tls.client.cert().toString(), tls.client.key().toString(), tls.pki.caCert.toString()));
        try {
            assertThat(join(ClusteredClientExample.create(member, "bus/member", new byte[] {2}, null)).body().getBoolean("applied")).isTrue();
            assertThat(ClusterHarness.value(leader, "bus/member")).contains(Base64.getEncoder().encodeToString(new byte[] {2}));
        } finally {
            join(member.close());
        }
    }
}
