package lake.cluster;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import lake.bus.Bus;
import lake.config.ClusterSettings;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.metasrv.NodeClock;
import lake.node.MetasrvNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two clustered Vert.x instances in one JVM over a real Hazelcast cluster on loopback: a RocksDB
 * store host and a remote node. Quick feedback for forwarding and handover; the process-level
 * scenarios are in {@code ClusterFailoverIT}.
 */
class TwoNodeClusterTest {
    @TempDir Path dir;
    final List<Vertx> instances = new ArrayList<>();
    final List<MetasrvNode> nodes = new ArrayList<>();
    WebClient http;

    /**
     * Below the ephemeral range and never twice in this JVM ({@link lake.it.ClusterHarness#freePort}):
     * an ephemeral port may meanwhile be the local end of another member's connection, and
     * Hazelcast then binds the next port, another member's ("Connecting to self!", seen in the suite).
     */
    static int freePort() throws IOException {
        return lake.it.ClusterHarness.freePort();
    }

    static <T> T join(io.vertx.core.Future<T> f) throws Exception {
        try {
            return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    Settings settings(String id, int hzPort, List<String> members, ClusterSettings.StoreRole role) {
        return settings(id, hzPort, members, role, List.of(), null);
    }

    Settings settings(String id, int hzPort, List<String> members, ClusterSettings.StoreRole role,
                      List<lake.config.access.AuthToken> tokens, String secret) {
        return new Settings(id, "127.0.0.1", 0, dir.resolve(id), Settings.StoreType.ROCKS, true, null, "us-east-1",
                "unused", false, "election/leader", 2_000, 300, 300, 10_000, 10_000, tokens, 4_000,
                new ClusterSettings(true, "lake-test-" + members.hashCode(), "127.0.0.1", hzPort, members, role, secret));
    }

    MetasrvNode start(Settings s, boolean hostsStore) throws Exception {
        Vertx vertx = join(Clustering.start(s.cluster()));
        instances.add(vertx);
        MetasrvNode node = join(MetasrvNode.deploy(vertx, new MetasrvNode.Options(s, NodeClock.SYSTEM,
                hostsStore ? v -> RocksMetaStore.open(v, RocksConfig.defaults(s.dataDir().resolve("rocks"))) : null,
                Bus.STORE, true)));
        nodes.add(node);
        return node;
    }

    /**
     * A RocksDB store host "a" and a remote node "b" with {@code tokens} and a cluster secret (each
     * node's settings passed through {@code adjust}); returns the leader's id once one leads, as
     * the token {@code asking} sees it. {@link #http} is set.
     */
    String startPair(List<lake.config.access.AuthToken> tokens, String asking, java.util.function.UnaryOperator<Settings> adjust) throws Exception {
        int pa = freePort();
        int pb = freePort();
        List<String> members = List.of("127.0.0.1:" + pa, "127.0.0.1:" + pb);
        String clusterSecret = "cluster-secret-for-the-test";
        MetasrvNode a = start(adjust.apply(settings("a", pa, members, ClusterSettings.StoreRole.HOST, tokens, clusterSecret)), true);
        start(adjust.apply(settings("b", pb, members, ClusterSettings.StoreRole.REMOTE, tokens, clusterSecret)), false);
        http = WebClient.create(instances.get(0));
        await().atMost(Duration.ofSeconds(20)).until(() -> join(http.get(a.httpPort(), "127.0.0.1", "/v1/leader")
                .bearerTokenAuthentication(asking).send()).bodyAsJsonObject().getString("leader") != null);
        return join(http.get(a.httpPort(), "127.0.0.1", "/v1/leader").bearerTokenAuthentication(asking).send())
                .bodyAsJsonObject().getString("leader");
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = nodes.size() - 1; i >= 0; i--) join(nodes.get(i).stop().recover(t -> io.vertx.core.Future.succeededFuture()));
        if (http != null) http.close();
        for (Vertx v : instances) join(v.close());
    }

    JsonObject get(MetasrvNode n, String uri) throws Exception {
        return join(http.get(n.httpPort(), "127.0.0.1", uri).send()).bodyAsJsonObject();
    }

    HttpResponse<Buffer> post(MetasrvNode n, String uri, JsonObject body) throws Exception {
        return join(http.post(n.httpPort(), "127.0.0.1", uri).sendJsonObject(body));
    }

    @Test
    void followerForwardsAndResignationHandsOver() throws Exception {
        int pa = freePort();
        int pb = freePort();
        List<String> members = List.of("127.0.0.1:" + pa, "127.0.0.1:" + pb);
        MetasrvNode a = start(settings("a", pa, members, ClusterSettings.StoreRole.HOST), true);
        MetasrvNode b = start(settings("b", pb, members, ClusterSettings.StoreRole.REMOTE), false);
        http = WebClient.create(instances.get(0));

        await().atMost(Duration.ofSeconds(20)).until(() -> get(a, "/v1/leader").getString("leader") != null);
        String leaderId = get(b, "/v1/leader").getString("leader");
        MetasrvNode leader = leaderId.equals("a") ? a : b;
        MetasrvNode follower = leader == a ? b : a;
        long epoch = get(follower, "/v1/leader").getLong("epoch");
        assertThat(get(follower, "/v1/leader").getString("role")).isEqualTo("follower");

        String value = Base64.getEncoder().encodeToString("via follower".getBytes());
        HttpResponse<Buffer> forwarded = post(follower, "/v1/kv/cas",
                new JsonObject().put("key", "kv/f").putNull("expected").put("value", value));
        assertThat(lake.node.ApiFixture.withoutRevision(forwarded.bodyAsJsonObject())).isEqualTo(new JsonObject().put("applied", true).put("epoch", epoch));
        assertThat(get(a, "/v1/kv/kv/f").getString("value")).isEqualTo(value);
        assertThat(get(b, "/v1/kv/kv/f").getString("value")).isEqualTo(value);
        // A transaction through the follower: forwarded, one atomic step on the leader (whose store
        // may be the other node's, reached as JSON over the clustered bus), all or nothing.
        io.vertx.core.json.JsonArray ops = new io.vertx.core.json.JsonArray()
                .add(new JsonObject().put("key", "kv/f").put("expected", value).put("delete", true))
                .add(new JsonObject().put("key", "kv/f2").putNull("expected").put("value", value));
        assertThat(lake.node.ApiFixture.withoutRevision(post(follower, "/v1/txn", new JsonObject().put("ops", ops)).bodyAsJsonObject()))
                .isEqualTo(new JsonObject().put("applied", true).put("epoch", epoch));
        assertThat(post(follower, "/v1/txn", new JsonObject().put("ops", ops)).bodyAsJsonObject()).isEqualTo(new JsonObject()
                .put("applied", false).put("failed", new io.vertx.core.json.JsonArray().add(0).add(1)).put("epoch", epoch));
        assertThat(get(b, "/v1/kv/kv/f2").getString("value")).isEqualTo(value);
        assertThat(post(a, "/v1/kv/cas", new JsonObject().put("key", "kv/f").putNull("expected").put("value", value))
                .bodyAsJsonObject().getBoolean("applied")).isTrue();
        // Catalog writes sent to the follower are forwarded whole and run on the leader; reads are local.
        assertThat(post(follower, "/v1/namespaces", new JsonObject().put("namespace", "fwd")).statusCode()).isEqualTo(200);
        HttpResponse<Buffer> table = post(follower, "/v1/namespaces/fwd/tables",
                new JsonObject().put("name", "t").put("columns", new io.vertx.core.json.JsonArray().add("id:i64")));
        assertThat(table.statusCode()).as(table.bodyAsString()).isEqualTo(200);
        HttpResponse<Buffer> commit = post(follower, "/v1/namespaces/fwd/tables/t/versions",
                new JsonObject().put("expected_version", 0).put("version", 1));
        assertThat(commit.bodyAsJsonObject().getJsonObject("registration").getLong("current_version")).isEqualTo(1L);
        HttpResponse<Buffer> stale = post(follower, "/v1/namespaces/fwd/tables/t/versions",
                new JsonObject().put("expected_version", 0).put("version", 2));
        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(stale.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("version_conflict");
        assertThat(get(leader, "/v1/namespaces/fwd/tables/t").getJsonObject("registration").getLong("current_version")).isEqualTo(1L);
        assertThat(post(follower, "/v1/namespaces", new JsonObject().put("namespace", "a/b")).statusCode())
                .as("refused on the follower, before any forwarding").isEqualTo(400);
        // A stale expected epoch is refused by the leader, even when forwarded.
        HttpResponse<Buffer> staleEpoch = post(follower, "/v1/kv/cas",
                new JsonObject().put("key", "kv/g").putNull("expected").put("value", value).put("epoch", epoch + 5));
        assertThat(staleEpoch.statusCode()).isEqualTo(409);
        assertThat(staleEpoch.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("epoch_mismatch");

        await().atMost(Duration.ofSeconds(10)).until(() -> get(a, "/v1/cluster").getJsonArray("members").size() == 2);

        // Handed over, not waited out: the follower saw itself take epoch+1 (its timeline, at or after
        // the takeover) before the resigned lease would have expired. Read from the nodes' own
        // records, not the test's polling, so a loaded host cannot make it flaky.
        long oldExpiry = get(leader, "/v1/leader").getLong("expires_at_ms");
        assertThat(post(leader, "/v1/leader/resign", new JsonObject()).bodyAsJsonObject().getBoolean("resigned")).isTrue();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> "leader".equals(get(follower, "/v1/leader").getString("role")));
        long takenAt = get(follower, lake.console.ConsoleRoutes.TIMELINE).getJsonArray("changes").stream()
                .map(JsonObject.class::cast)
                .filter(c -> c.getString("kind").equals("takeover") && c.getLong("epoch") == epoch + 1)
                .mapToLong(c -> c.getLong("at_ms")).findFirst().orElseThrow();
        assertThat(takenAt).as("handover after resignation, before the old lease's expiry").isLessThan(oldExpiry);
        assertThat(get(leader, "/v1/leader").getLong("epoch")).isEqualTo(epoch + 1);
        HttpResponse<Buffer> viaOldLeader = post(leader, "/v1/kv/cas",
                new JsonObject().put("key", "kv/h").putNull("expected").put("value", value));
        assertThat(lake.node.ApiFixture.withoutRevision(viaOldLeader.bodyAsJsonObject())).isEqualTo(new JsonObject().put("applied", true).put("epoch", epoch + 1));
    }

    @Test
    void forwardedWritesPresentTheClientsToken() throws Exception {
        String secret = "rw-token-for-the-forwarding-test";
        List<lake.config.access.AuthToken> tokens = List.of(
                new lake.config.access.AuthToken("writer", lake.config.AuthTokens.sha256(secret), true));
        String leaderId = startPair(tokens, secret, s -> s);
        MetasrvNode follower = nodes.get(leaderId.equals("a") ? 1 : 0);
        String value = Base64.getEncoder().encodeToString("v".getBytes());
        JsonObject cas = new JsonObject().put("key", "kv/t").putNull("expected").put("value", value);

        // Through a follower over HTTP with the token: forwarded, and the leader accepts the token.
        HttpResponse<Buffer> ok = join(http.post(follower.httpPort(), "127.0.0.1", "/v1/kv/cas")
                .bearerTokenAuthentication(secret).sendJsonObject(cas));
        assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(200);
        assertThat(ok.bodyAsJsonObject().getBoolean("applied")).isTrue();

        // Straight to the leader's clustered forward address without a token: refused, nothing written.
        io.vertx.core.eventbus.DeliveryOptions forged = new io.vertx.core.eventbus.DeliveryOptions()
                .addHeader(Bus.OP_HEADER, "cas").addHeader(Bus.FORWARDED_EPOCH_HEADER, "1");
        JsonObject other = new JsonObject().put("key", "kv/forged").putNull("expected").put("value", value);
        Vertx outsider = instances.get(leaderId.equals("a") ? 1 : 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> join(outsider.eventBus().request(Bus.nodeForward(leaderId), other, forged)))
                .isInstanceOfSatisfying(io.vertx.core.eventbus.ReplyException.class,
                        e -> assertThat(e.failureCode()).isEqualTo(401));
        HttpResponse<Buffer> absent = join(http.get(follower.httpPort(), "127.0.0.1", "/v1/kv/kv/forged")
                .bearerTokenAuthentication(secret).send());
        assertThat(absent.statusCode()).isEqualTo(404);

        // A batch to the leader's forward address, as a follower sends one (three requests in one
        // turn): each item's own credentials are checked; only the item with a valid token writes.
        java.util.concurrent.atomic.AtomicInteger batches = new java.util.concurrent.atomic.AtomicInteger();
        outsider.eventBus().addOutboundInterceptor(ctx -> {
            if (ctx.message().address().equals(lake.bus.BusBatch.address(Bus.nodeForward(leaderId)))) batches.incrementAndGet();
            ctx.next();
        });
        String epoch = String.valueOf(join(http.get(follower.httpPort(), "127.0.0.1", "/v1/leader").bearerTokenAuthentication(secret).send())
                .bodyAsJsonObject().getValue("epoch"));
        java.util.function.Function<String, io.vertx.core.eventbus.DeliveryOptions> item = key -> new io.vertx.core.eventbus.DeliveryOptions()
                .setSendTimeout(10_000).addHeader(Bus.OP_HEADER, "cas").addHeader(Bus.FORWARDED_EPOCH_HEADER, epoch)
                .addHeader(Bus.FORWARDED_BY_HEADER, "outsider");
        java.util.function.Function<String, Buffer> text = key -> Buffer.buffer(
                new JsonObject().put("key", key).putNull("expected").put("value", value).encode());
        io.vertx.core.Promise<List<io.vertx.core.Future<JsonObject>>> sent = io.vertx.core.Promise.promise();
        io.vertx.core.Context turn = outsider.getOrCreateContext();
        turn.runOnContext(v -> {
            lake.bus.BusBatch.Sender sender = lake.bus.BusBatch.Sender.standard(outsider);
            sent.complete(List.of(
                    sender.request(Bus.nodeForward(leaderId), text.apply("kv/batch-token"),
                            item.apply("kv/batch-token").addHeader(Bus.TOKEN_HEADER, secret)),
                    sender.request(Bus.nodeForward(leaderId), text.apply("kv/batch-none"), item.apply("kv/batch-none")),
                    sender.request(Bus.nodeForward(leaderId), text.apply("kv/batch-vouch"), item.apply("kv/batch-vouch")
                            .addHeader(Bus.PRINCIPAL_HEADER, "writer").addHeader(Bus.SECRET_HEADER, "a-guess-at-the-secret"))));
        });
        List<io.vertx.core.Future<JsonObject>> answers = join(sent.future());
        join(io.vertx.core.Future.join(new java.util.ArrayList<>(answers)).otherwiseEmpty());
        assertThat(batches.get()).as("the three left as one batch").isEqualTo(1);
        assertThat(answers.get(0).succeeded()).as(String.valueOf(answers.get(0).cause())).isTrue();
        assertThat(answers.get(0).result().getBoolean("applied")).isTrue();
        for (io.vertx.core.Future<JsonObject> refused : answers.subList(1, 3)) {
            assertThat(refused.cause()).isInstanceOfSatisfying(io.vertx.core.eventbus.ReplyException.class, e -> {
                assertThat(e.failureType()).isEqualTo(io.vertx.core.eventbus.ReplyFailure.RECIPIENT_FAILURE);
                assertThat(e.failureCode()).isEqualTo(401);
            });
        }
        for (String key : List.of("kv/batch-none", "kv/batch-vouch")) {
            assertThat(join(http.get(follower.httpPort(), "127.0.0.1", "/v1/kv/" + key).bearerTokenAuthentication(secret).send())
                    .statusCode()).as(key).isEqualTo(404);
        }
        assertThat(join(http.get(follower.httpPort(), "127.0.0.1", "/v1/kv/kv/batch-token").bearerTokenAuthentication(secret).send())
                .statusCode()).isEqualTo(200);

        // Straight to the store host's clustered store address without the cluster secret: refused.
        io.vertx.core.eventbus.DeliveryOptions raw = new io.vertx.core.eventbus.DeliveryOptions()
                .addHeader(Bus.OP_HEADER, "cas").addHeader(Bus.EPOCH_HEADER, "99");
        JsonObject seizeLease = new JsonObject().put("key", "election/leader").putNull("expected").put("value", value);
        Vertx remote = instances.get(1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> join(remote.eventBus().request(Bus.STORE, seizeLease, raw)))
                .isInstanceOfSatisfying(io.vertx.core.eventbus.ReplyException.class,
                        e -> assertThat(e.failureCode()).isEqualTo(lake.bus.StoreProtocol.UNAUTHORIZED));
        JsonObject lease = join(http.get(follower.httpPort(), "127.0.0.1", "/v1/leader").bearerTokenAuthentication(secret).send())
                .bodyAsJsonObject();
        assertThat(lease.getString("leader")).isEqualTo(leaderId);
    }

    /**
     * A JWT of the OIDC provider on a write sent to a follower: the follower checks it (fetching
     * the provider's rotated key once), forwards the write with the token, and the leader checks
     * it again (fetching the key once itself) before it applies. The same token authenticates a
     * public bus request; a forged one is 401 there and at the leader's forward address.
     */
    @Test
    void forwardedWritesWithAJwtAreCheckedOnTheLeader() throws Exception {
        try (lake.oidc.TestIdp idp = new lake.oidc.TestIdp(System::currentTimeMillis)) {
            String secret = "rw-token-for-the-forwarding-test";
            List<lake.config.access.AuthToken> tokens = List.of(
                    new lake.config.access.AuthToken("writer", lake.config.AuthTokens.sha256(secret), true));
            // No refetch floor: the nodes fetched at start moments ago, and the rotation must be fetched now.
            lake.config.SecuritySettings security = new lake.config.SecuritySettings(null, tokens).withOidc(idp.settings(0));
            String leaderId = startPair(tokens, secret, s -> s.with(f -> f.security = security));
            MetasrvNode follower = nodes.get(leaderId.equals("a") ? 1 : 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> idp.jwksFetches() >= 2); // each node's fetch at start

            idp.rotate();
            int fetched = idp.jwksFetches();
            String jwt = idp.mint("platform-bot", "lake-admin");
            String value = Base64.getEncoder().encodeToString("v".getBytes());
            HttpResponse<Buffer> ok = join(http.post(follower.httpPort(), "127.0.0.1", "/v1/kv/cas").bearerTokenAuthentication(jwt)
                    .sendJsonObject(new JsonObject().put("key", "kv/jwt").putNull("expected").put("value", value)));
            assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(200);
            assertThat(ok.bodyAsJsonObject().getBoolean("applied")).isTrue();
            assertThat(idp.jwksFetches()).as("the follower and the leader each fetched the new key once").isEqualTo(fetched + 2);

            // The public bus takes the same token in its lake-token header.
            Vertx client = instances.get(1);
            JsonObject read = join(client.eventBus().<JsonObject>request(Bus.KV_GET, new JsonObject().put("key", "kv/jwt"),
                    new io.vertx.core.eventbus.DeliveryOptions().addHeader(Bus.TOKEN_HEADER, jwt))).body();
            assertThat(read.getString("value")).isEqualTo(value);
            String forged = idp.mint(lake.oidc.TestIdp.foreignKey(idp.signingKey().getKeyID()),
                    c -> c.subject("platform-bot").claim("roles", List.of("lake-admin")));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> join(client.eventBus().request(Bus.KV_GET, new JsonObject().put("key", "kv/jwt"),
                            new io.vertx.core.eventbus.DeliveryOptions().addHeader(Bus.TOKEN_HEADER, forged))))
                    .isInstanceOfSatisfying(io.vertx.core.eventbus.ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(401));
            // Straight to the leader's forward address with the forged token: the leader refuses it itself.
            String epoch = String.valueOf(join(http.get(follower.httpPort(), "127.0.0.1", "/v1/leader").bearerTokenAuthentication(secret).send())
                    .bodyAsJsonObject().getValue("epoch"));
            Vertx outsider = instances.get(leaderId.equals("a") ? 1 : 0);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> join(outsider.eventBus().request(Bus.nodeForward(leaderId),
                            new JsonObject().put("key", "kv/forged-jwt").putNull("expected").put("value", value),
                            new io.vertx.core.eventbus.DeliveryOptions().addHeader(Bus.OP_HEADER, "cas")
                                    .addHeader(Bus.FORWARDED_EPOCH_HEADER, epoch).addHeader(Bus.TOKEN_HEADER, forged))))
                    .isInstanceOfSatisfying(io.vertx.core.eventbus.ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(401));
            assertThat(join(http.get(follower.httpPort(), "127.0.0.1", "/v1/kv/kv/forged-jwt").bearerTokenAuthentication(secret).send())
                    .statusCode()).isEqualTo(404);

            // A batch to the leader's forward address, as a follower sends one: two items with a JWT
            // of a key the leader must fetch first, one with a forged JWT; each decided alone.
            idp.rotate();
            String rotated = idp.mint("platform-bot", "lake-admin");
            java.util.concurrent.atomic.AtomicInteger batches = new java.util.concurrent.atomic.AtomicInteger();
            outsider.eventBus().addOutboundInterceptor(ctx -> {
                if (ctx.message().address().equals(lake.bus.BusBatch.address(Bus.nodeForward(leaderId)))) batches.incrementAndGet();
                ctx.next();
            });
            java.util.function.BiFunction<String, String, io.vertx.core.eventbus.DeliveryOptions> item = (key, token) ->
                    new io.vertx.core.eventbus.DeliveryOptions().setSendTimeout(10_000).addHeader(Bus.OP_HEADER, "cas")
                            .addHeader(Bus.FORWARDED_EPOCH_HEADER, epoch).addHeader(Bus.FORWARDED_BY_HEADER, "outsider").addHeader(Bus.TOKEN_HEADER, token);
            java.util.function.Function<String, Buffer> body = key -> Buffer.buffer(
                    new JsonObject().put("key", key).putNull("expected").put("value", value).encode());
            io.vertx.core.Promise<List<io.vertx.core.Future<JsonObject>>> sent = io.vertx.core.Promise.promise();
            outsider.getOrCreateContext().runOnContext(v -> {
                lake.bus.BusBatch.Sender sender = lake.bus.BusBatch.Sender.standard(outsider);
                sent.complete(List.of(
                        sender.request(Bus.nodeForward(leaderId), body.apply("kv/batch-jwt-1"), item.apply("kv/batch-jwt-1", rotated)),
                        sender.request(Bus.nodeForward(leaderId), body.apply("kv/batch-forged"), item.apply("kv/batch-forged", forged)),
                        sender.request(Bus.nodeForward(leaderId), body.apply("kv/batch-jwt-2"), item.apply("kv/batch-jwt-2", rotated))));
            });
            List<io.vertx.core.Future<JsonObject>> answers = join(sent.future());
            join(io.vertx.core.Future.join(new java.util.ArrayList<>(answers)).otherwiseEmpty());
            assertThat(batches.get()).as("the three left as one batch").isEqualTo(1);
            for (int i : new int[] {0, 2}) {
                assertThat(answers.get(i).succeeded()).as(String.valueOf(answers.get(i).cause())).isTrue();
                assertThat(answers.get(i).result().getBoolean("applied")).isTrue();
            }
            assertThat(answers.get(1).cause()).isInstanceOfSatisfying(io.vertx.core.eventbus.ReplyException.class,
                    e -> assertThat(e.failureCode()).isEqualTo(401));
            assertThat(join(http.get(follower.httpPort(), "127.0.0.1", "/v1/kv/kv/batch-forged").bearerTokenAuthentication(secret).send())
                    .statusCode()).isEqualTo(404);
        }
    }

    /**
     * A principal named by a client certificate (no token) writes through a follower: the follower
     * vouches for it with the cluster secret, and the leader applies the principal's grants.
     * A forged vouch without the secret is 401 and writes nothing.
     */
    @Test
    void certificatePrincipalWritesThroughAFollower() throws Exception {
        lake.security.TestPki pki = new lake.security.TestPki(dir.resolve("pki"), "http");
        lake.security.TestPki.Pair server = pki.issue("localhost");
        lake.security.TestPki.Pair client = pki.issue("robots-client");
        List<lake.config.access.AuthToken> tokens = List.of(new lake.config.access.AuthToken("robots", null,
                lake.config.access.AuthToken.Access.READ_WRITE, List.of("tables/robots/"), null, "robots-client"));
        int pa = freePort();
        int pb = freePort();
        List<String> members = List.of("127.0.0.1:" + pa, "127.0.0.1:" + pb);
        String clusterSecret = "cluster-secret-for-the-test";
        java.util.function.UnaryOperator<Settings> https = s -> s.with(f -> f.security = new lake.config.SecuritySettings(null, tokens)
                .withHttpsFiles(server.cert(), server.key(), pki.caCert));
        MetasrvNode a = start(https.apply(settings("a", pa, members, ClusterSettings.StoreRole.HOST, tokens, clusterSecret)), true);
        MetasrvNode b = start(https.apply(settings("b", pb, members, ClusterSettings.StoreRole.REMOTE, tokens, clusterSecret)), false);
        http = WebClient.create(instances.get(0), new io.vertx.ext.web.client.WebClientOptions().setSsl(true).setVerifyHost(false)
                .setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(pki.caCert.toString()))
                .setKeyCertOptions(new io.vertx.core.net.PemKeyCertOptions().setCertPath(client.cert().toString())
                        .setKeyPath(client.key().toString())));
        await().atMost(Duration.ofSeconds(20)).until(() -> get(a, "/v1/leader").getString("leader") != null);
        String leaderId = get(a, "/v1/leader").getString("leader");
        MetasrvNode follower = leaderId.equals("a") ? b : a;
        String value = Base64.getEncoder().encodeToString("v".getBytes());

        HttpResponse<Buffer> ok = post(follower, "/v1/kv/cas", new JsonObject().put("key", "tables/robots/t").putNull("expected").put("value", value));
        assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(200);
        assertThat(ok.bodyAsJsonObject().getBoolean("applied")).isTrue();
        assertThat(post(follower, "/v1/kv/cas", new JsonObject().put("key", "tables/cars/t").putNull("expected").put("value", value))
                .statusCode()).as("the grants still hold").isEqualTo(403);

        // A member naming the principal without the cluster secret is not believed.
        io.vertx.core.eventbus.DeliveryOptions forged = new io.vertx.core.eventbus.DeliveryOptions()
                .addHeader(Bus.OP_HEADER, "cas").addHeader(Bus.FORWARDED_EPOCH_HEADER, "1").addHeader(Bus.PRINCIPAL_HEADER, "robots")
                .addHeader(Bus.SECRET_HEADER, "a-guess-at-the-secret");
        Vertx outsider = instances.get(leaderId.equals("a") ? 1 : 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> join(outsider.eventBus().request(Bus.nodeForward(leaderId),
                        new JsonObject().put("key", "tables/robots/forged").putNull("expected").put("value", value), forged)))
                .isInstanceOfSatisfying(io.vertx.core.eventbus.ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(401));
        assertThat(join(http.get(follower.httpPort(), "127.0.0.1", "/v1/kv/tables/robots/forged").send()).statusCode()).isEqualTo(404);
    }
}
