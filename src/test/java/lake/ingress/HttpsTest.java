package lake.ingress;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import lake.bus.Bus;
import lake.config.AuthTokens;
import lake.config.SecuritySettings;
import lake.config.Settings;
import lake.node.AuditLog;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.security.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static lake.node.ApiFixture.b64;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * HTTPS with real TLS handshakes: certificates made by the real {@code openssl} ({@link TestPki}),
 * a real node serving them, real clients trusting the test CA (and presenting client
 * certificates), the files rewritten while the node serves.
 */
class HttpsTest {
    @TempDir Path dir;
    NodeHarness h;
    TestPki pki;
    TestPki.Pair server;
    Path certFile;
    Path keyFile;
    MetasrvNode node;
    AuditLog audit;

    @BeforeEach
    void pki() throws Exception {
        audit = new AuditLog();
        h = new NodeHarness();
        pki = new TestPki(dir.resolve("pki"), "http");
        server = pki.issue("localhost");
        certFile = dir.resolve("server.crt");
        keyFile = dir.resolve("server.key");
        install(server);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
        audit.close();
        audit.assertNoLineContains(TestPki.keyBody(server));
    }

    /** Puts {@code p} where the node reads its certificate, each file renamed into place. */
    void install(TestPki.Pair p) throws Exception {
        Files.copy(p.key(), dir.resolve("key.tmp"), StandardCopyOption.REPLACE_EXISTING);
        Files.move(dir.resolve("key.tmp"), keyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.copy(p.cert(), dir.resolve("cert.tmp"), StandardCopyOption.REPLACE_EXISTING);
        Files.move(dir.resolve("cert.tmp"), certFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    MetasrvNode start(Path clientCa, Path tokensFile) throws Exception {
        Settings s = NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> {
            f.security = new SecuritySettings(tokensFile, List.of()).withHttpsFiles(certFile, keyFile, clientCa);
            if (tokensFile != null) f.authTokens = AuthTokens.withFile(List.of(), tokensFile);
        });
        return node = h.publicLeader(s);
    }

    WebClientOptions trusting() {
        return new WebClientOptions().setSsl(true).setVerifyHost(true).setTrustOptions(new PemTrustOptions().addCertPath(pki.caCert.toString()));
    }

    HttpResponse<Buffer> get(WebClient c, String uri) throws Exception {
        return NodeHarness.await(c.get(node.httpPort(), "localhost", uri).send());
    }

    @Test
    void httpsServesWithConfiguredCertificate() throws Exception {
        start(null, null);
        WebClient c = WebClient.create(h.vertx, trusting());
        assertThat(get(c, "/health").bodyAsJsonObject().getString("status")).isEqualTo("up");
        HttpResponse<Buffer> cas = NodeHarness.await(c.post(node.httpPort(), "localhost", "/v1/kv/cas")
                .sendJsonObject(new JsonObject().put("key", "k").putNull("expected").put("value", b64("v"))));
        assertThat(cas.bodyAsJsonObject().getBoolean("applied")).isTrue();
        assertThat(get(c, "/v1/kv/k").bodyAsJsonObject().getString("value")).isEqualTo(b64("v"));

        // The certificate presented is the configured one, over TLS 1.2 or later.
        HttpClient raw = h.vertx.createHttpClient(new HttpClientOptions(trusting()).setKeepAlive(false));
        List<Object> seen = NodeHarness.await(raw.request(new RequestOptions().setHost("localhost").setPort(node.httpPort()).setURI("/health"))
                .compose(req -> req.send().compose(resp -> resp.body().map(b -> List.<Object>of(
                        req.connection().sslSession().getProtocol(), peerSerial(req.connection()))))));
        assertThat((String) seen.get(0)).isIn("TLSv1.2", "TLSv1.3");
        assertThat(seen.get(1)).isEqualTo(serialOf(server.cert()));

        // A client that does not trust the test CA gets no answer; nor does one allowing only TLS 1.1.
        WebClient untrusting = WebClient.create(h.vertx, new WebClientOptions().setSsl(true));
        assertThatThrownBy(() -> get(untrusting, "/health")).isInstanceOf(Exception.class);
        WebClient old = WebClient.create(h.vertx, new WebClientOptions(trusting()).setEnabledSecureTransportProtocols(java.util.Set.of("TLSv1.1")));
        assertThatThrownBy(() -> get(old, "/health")).isInstanceOf(Exception.class);
    }

    static String peerSerial(io.vertx.core.http.HttpConnection conn) {
        try {
            return ((X509Certificate) conn.peerCertificates().get(0)).getSerialNumber().toString(16);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String serialOf(Path cert) throws Exception {
        try (InputStream in = Files.newInputStream(cert)) {
            return ((X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in))
                    .getSerialNumber().toString(16);
        }
    }

    @Test
    void plaintextOnTlsPortGetsNoData() throws Exception {
        start(null, null);
        NodeHarness.await(h.vertx.eventBus().request(Bus.KV_CAS, new JsonObject().put("key", "secret-key").putNull("expected")
                .put("value", b64("secret-value"))));
        for (String request : List.of("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", "GET /v1/kv/secret-key HTTP/1.0\r\n\r\n")) {
            byte[] answer;
            try (Socket s = new Socket("127.0.0.1", node.httpPort())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try {
                    s.getInputStream().transferTo(got);
                } catch (SocketTimeoutException | java.net.SocketException e) {
                    // reset or silence: either way no data
                }
                answer = got.toByteArray();
            }
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            assertThat(text).as("what a plaintext client got").doesNotContain("HTTP/").doesNotContain("up")
                    .doesNotContain(b64("secret-value")).doesNotContain("secret");
        }
        // And the port still serves TLS clients.
        assertThat(get(WebClient.create(h.vertx, trusting()), "/health").statusCode()).isEqualTo(200);
    }

    @Test
    void clientCertificateRequiredWhenCaConfigured() throws Exception {
        TestPki clients = new TestPki(dir.resolve("clients"), "clients");
        TestPki stranger = new TestPki(dir.resolve("stranger"), "stranger");
        TestPki.Pair robots = clients.issue("robots-client");
        TestPki.Pair unnamed = clients.issue("someone-else");
        TestPki.Pair foreign = stranger.issue("robots-client");
        String token = "admin-token-0123456789abcdef";
        Path tokens = dir.resolve("tokens.json");
        Files.writeString(tokens, "[{\"name\":\"robots\",\"access\":\"read-write\",\"client_cert_cn\":\"robots-client\","
                + "\"prefixes\":[\"tables/robots/\"]},{\"name\":\"admin\",\"access\":\"admin\",\"token_sha256\":\""
                + HexFormat.of().formatHex(AuthTokens.sha256(token)) + "\"}]");
        Files.setPosixFilePermissions(tokens, PosixFilePermissions.fromString("rw-------"));
        start(clients.caCert, tokens);

        WebClient none = WebClient.create(h.vertx, trusting());
        assertThatThrownBy(() -> get(none, "/health")).as("no client certificate: no handshake").isInstanceOf(Exception.class);
        WebClient alien = WebClient.create(h.vertx, trusting().setKeyCertOptions(keyCert(foreign)));
        assertThatThrownBy(() -> get(alien, "/health")).as("a certificate from another CA").isInstanceOf(Exception.class);

        // The certificate's subject names the principal: its grants hold without a token.
        WebClient robot = WebClient.create(h.vertx, trusting().setKeyCertOptions(keyCert(robots)));
        HttpResponse<Buffer> inside = NodeHarness.await(robot.post(node.httpPort(), "localhost", "/v1/kv/cas")
                .sendJsonObject(new JsonObject().put("key", "tables/robots/k").putNull("expected").put("value", b64("v"))));
        assertThat(inside.statusCode()).as(inside.bodyAsString()).isEqualTo(200);
        assertThat(get(robot, "/v1/kv/tables/cars/k").statusCode()).isEqualTo(403);
        assertThat(audit.lines("refused")).anySatisfy(l -> assertThat(l.getString("principal")).isEqualTo("robots"));
        // A certificate naming no principal authenticates the connection only: no token, 401.
        WebClient other = WebClient.create(h.vertx, trusting().setKeyCertOptions(keyCert(unnamed)));
        assertThat(get(other, "/v1/kv/tables/robots/k").statusCode()).isEqualTo(401);
        assertThat(NodeHarness.await(other.get(node.httpPort(), "localhost", "/v1/kv/tables/cars/k").bearerTokenAuthentication(token)
                .send()).statusCode()).as("with a token, the token decides").isEqualTo(404);
    }

    static PemKeyCertOptions keyCert(TestPki.Pair p) {
        return new PemKeyCertOptions().addCertPath(p.cert().toString()).addKeyPath(p.key().toString());
    }

    @Test
    void certificateRotationKeepsServing() throws Exception {
        start(null, null);
        // Every request a new connection, so every request is a handshake during the rotation.
        WebClient load = WebClient.create(h.vertx, trusting().setKeepAlive(false));
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger ok = new AtomicInteger();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Future<Void>> loops = new ArrayList<>();
        for (int i = 0; i < 4; i++) loops.add(loop(load, running, ok, failures));
        await().atMost(Duration.ofSeconds(30)).until(() -> ok.get() >= 20);

        // A bad new certificate is refused; the old one keeps serving.
        Files.writeString(dir.resolve("cert.tmp"), "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n");
        Files.move(dir.resolve("cert.tmp"), certFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        await().atMost(Duration.ofSeconds(10)).until(() -> audit.lines("reload").stream()
                .anyMatch(l -> "refused".equals(l.getString("outcome")) && l.getString("detail").contains("tls-cert-file")));
        int before = ok.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> ok.get() >= before + 20);
        assertThat(servedSerial()).isEqualTo(serialOf(server.cert()));

        // A good new pair is taken up without a restart.
        TestPki.Pair next = pki.issue("localhost");
        install(next);
        String nextSerial = serialOf(next.cert());
        await().atMost(Duration.ofSeconds(15)).until(() -> nextSerial.equals(servedSerial()));
        int after = ok.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> ok.get() >= after + 20);
        running.set(false);
        NodeHarness.await(Future.all(loops));
        assertThat(failures).as("failed requests during the rotation").isEmpty();
    }

    /** Requests one after another until stopped, counting successes and recording failures. */
    Future<Void> loop(WebClient c, AtomicBoolean running, AtomicInteger ok, List<String> failures) {
        if (!running.get()) return Future.succeededFuture();
        return c.get(node.httpPort(), "localhost", "/v1/leader").send().transform(ar -> {
            if (ar.succeeded() && ar.result().statusCode() == 200) ok.incrementAndGet();
            else failures.add(ar.succeeded() ? "status " + ar.result().statusCode() : ar.cause().toString());
            return loop(c, running, ok, failures);
        });
    }

    String servedSerial() throws Exception {
        HttpClient raw = h.vertx.createHttpClient(new HttpClientOptions(trusting()).setKeepAlive(false));
        try {
            return NodeHarness.await(raw.request(new RequestOptions().setHost("localhost").setPort(node.httpPort()).setURI("/health"))
                    .compose(req -> req.send().compose(resp -> resp.body().map(b -> peerSerial(req.connection())))));
        } finally {
            raw.close();
        }
    }
}
