package lake.oidc;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.Payload;
import com.nimbusds.jose.JWSObject;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import lake.meta.MetaStore;
import lake.node.AuditLog;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OIDC principals (issue 37): bearer JWTs of an identity provider of the test's own
 * ({@link TestIdp}: keys it generates, its JWK set, its OAuth2 token endpoint) are accepted when
 * signed by a published key and issued for this service, refused otherwise, and take their
 * catalog rights from grants. Run against every backend.
 */
public abstract class OidcContract {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final long T0 = 1_700_000_000_000L;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;
    TestIdp idp;
    ManualClock clock;
    MetasrvNode node;
    int port;
    final List<RESTCatalog> catalogs = new ArrayList<>();

    @BeforeEach
    void node() throws Exception {
        h = new NodeHarness();
        clock = new ManualClock(T0);
        idp = new TestIdp(clock::wallMillis);
        idp.register("analyst", "analyst-secret", "lake-write");
        node = idp.leader(h, dir, clock, ADMIN, backend(dir));
        port = node.httpPort();
        for (String ns : List.of("team", "other")) {
            assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"" + ns + "\"]}", ADMIN).statusCode()).isEqualTo(200);
        }
        HttpResponse<String> granted = call("POST", "/v1/grants", "{\"principal\":\"analyst\",\"namespace\":\"team\",\"privileges\":"
                + "[\"read\",\"write\",\"create\",\"drop\"]}", ADMIN);
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
    }

    @AfterEach
    void stop() throws Exception {
        for (RESTCatalog c : catalogs) c.close();
        h.close();
        idp.close();
    }

    HttpResponse<String> call(String method, String path, String body, String token) throws Exception {
        return HTTP.send(request(method, path, body, token), HttpResponse.BodyHandlers.ofString());
    }

    HttpRequest request(String method, String path, String body, String token) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
    }

    RESTCatalog catalog(Map<String, String> auth) {
        RESTCatalog c = new RESTCatalog();
        c.setConf(new org.apache.hadoop.conf.Configuration());
        Map<String, String> props = new LinkedHashMap<>(auth);
        props.put("uri", "http://127.0.0.1:" + port + "/iceberg");
        c.initialize("oidc" + catalogs.size(), props);
        catalogs.add(c);
        return c;
    }

    /** The stored grants reach the node's principals through the change feed: wait until the analyst's have. */
    void awaitGrantApplied(String token) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> call("GET", "/iceberg/v1/namespaces/team", null, token).statusCode() == 200);
    }

    @Test
    void jwtFromJwksIsAccepted() throws Exception {
        String jwt = idp.mint("analyst", "lake-write");
        awaitGrantApplied(jwt);
        try (AuditLog audit = new AuditLog()) {
            // Iceberg Java's OAuth2 client-credentials settings, against the provider's token endpoint.
            RESTCatalog oauth = catalog(Map.of("credential", "analyst:analyst-secret", "oauth2-server-uri", idp.tokenUrl(),
                    "scope", "catalog"));
            assertThat(idp.tokensIssued()).as("the client fetched its token from the provider").isPositive();
            oauth.createTable(TableIdentifier.of("team", "events"), SCHEMA);
            assertThat(oauth.listNamespaces()).as("listings are the analyst's grants").containsExactly(Namespace.of("team"));
            assertThat(oauth.listTables(Namespace.of("team"))).containsExactly(TableIdentifier.of("team", "events"));
            // Iceberg Java's `token` setting: a JWT minted beforehand.
            RESTCatalog byToken = catalog(Map.of("token", jwt));
            assertThat(byToken.loadTable(TableIdentifier.of("team", "events")).schema().asStruct()).isEqualTo(SCHEMA.asStruct());
            assertThat(byToken.tableExists(TableIdentifier.of("other", "x"))).as("outside its grants: hidden").isFalse();
            assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"mine\"]}", jwt).statusCode())
                    .as("no grant on 'mine': a top-level namespace needs an admin or a grant on it; forbidden, authenticated").isEqualTo(403);
            assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"team\",\"sub\"]}", jwt).statusCode())
                    .as("a grant on team covers its children").isEqualTo(200);
            assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"other\",\"sub\"]}", jwt).statusCode())
                    .as("under a namespace it may not see: hidden").isEqualTo(404);
            // An admin reserves a top-level name for the analyst by granting on it before it exists.
            assertThat(call("POST", "/v1/grants", "{\"principal\":\"analyst\",\"namespace\":\"reserved\",\"privileges\":"
                    + "[\"read\",\"create\",\"drop\"]}", ADMIN).statusCode()).isEqualTo(200);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
                    call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"reserved\"]}", jwt).statusCode() == 200);
            assertThat(call("DELETE", "/iceberg/v1/namespaces/reserved", null, jwt).statusCode()).as("and drops it").isEqualTo(204);
            HttpResponse<String> again = call("POST", "/v1/namespaces", "{\"namespace\":\"reserved\"}", jwt);
            assertThat(again.statusCode()).as("the same on the catalog API: " + again.body()).isEqualTo(200);
            assertThat(call("DELETE", "/v1/namespaces/reserved", null, jwt).statusCode()).isEqualTo(200);
            assertThat(call("GET", "/v1/namespaces/reserved", null, ADMIN).statusCode()).as("dropped").isEqualTo(404);
            assertThat(call("POST", "/v1/namespaces", "{\"namespace\":\"mine\"}", jwt).statusCode()).isEqualTo(403);
            assertThat(call("DELETE", "/iceberg/v1/namespaces/team", null, jwt).statusCode())
                    .as("drop granted on team itself: allowed, refused only because it is not empty").isEqualTo(409);
            assertThat(call("GET", "/v1/kv/some-key", null, jwt).statusCode())
                    .as("an OIDC principal holds no key prefixes: the key-value API is for configured principals").isEqualTo(403);
            assertThat(audit.lines().stream().filter(l -> "analyst".equals(l.getString("principal"))))
                    .as("decisions are audited by the token's principal").isNotEmpty();
        }
        // An admin role takes the whole service, as an admin token does.
        String admin = idp.mint("platform-bot", "lake-admin");
        assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"platform\"]}", admin).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/v1/kv/some-key", null, admin).statusCode()).as("absent, not refused").isEqualTo(404);
        // A read role reads what it is granted, and writes nothing.
        String reader = idp.mint("auditor", "lake-read");
        assertThat(call("POST", "/v1/grants", "{\"principal\":\"auditor\",\"namespace\":\"team\",\"privileges\":[\"read\"]}", ADMIN)
                .statusCode()).isEqualTo(200);
        awaitGrantApplied(reader);
        assertThat(call("GET", "/iceberg/v1/namespaces/team/tables/events", null, reader).statusCode()).isEqualTo(200);
        assertThat(call("DELETE", "/iceberg/v1/namespaces/team/tables/events", null, reader).statusCode()).isEqualTo(403);
        assertThat(call("GET", "/iceberg/v1/namespaces/team/tables/events", null, ADMIN).statusCode()).as("not dropped").isEqualTo(200);
    }

    @Test
    void expiredOrForeignJwtIsRefused() throws Exception {
        RSAKey key = idp.signingKey();
        RSAKey forger = TestIdp.foreignKey(key.getKeyID());
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("expired beyond the clock skew", idp.mint(key, c -> c.subject("analyst").claim("roles", List.of("lake-write"))
                .expirationTime(new Date(T0 - 120_000))));
        bad.put("not valid yet", idp.mint(key, c -> c.subject("analyst").claim("roles", List.of("lake-write"))
                .notBeforeTime(new Date(T0 + 3_600_000))));
        bad.put("no expiry", idp.mint(key, c -> c.subject("analyst").claim("roles", List.of("lake-write")).expirationTime(null)));
        bad.put("another issuer", idp.mint(key, c -> c.subject("analyst").claim("roles", List.of("lake-write")).issuer("https://evil.example")));
        bad.put("another audience", idp.mint(key, c -> c.subject("analyst").claim("roles", List.of("lake-write")).audience("another-service")));
        bad.put("signed by a foreign key under a published key id", idp.mint(forger, c -> c.subject("analyst").claim("roles", List.of("lake-write"))));
        bad.put("signed by a foreign key under its own key id", idp.mint(TestIdp.foreignKey("forged"), c -> c.subject("analyst")
                .claim("roles", List.of("lake-write"))));
        bad.put("no role of this service", idp.mint(key, c -> c.subject("analyst").claim("roles", List.of("someone-else"))));
        bad.put("naming a configured principal", idp.mint("operator", "lake-admin"));
        String valid = idp.mint("analyst", "lake-write");
        String[] parts = valid.split("\\.");
        String tamperedClaims = Base64.getUrlEncoder().withoutPadding().encodeToString(new String(Base64.getUrlDecoder().decode(parts[1]),
                StandardCharsets.UTF_8).replace("\"analyst\"", "\"operator\"").getBytes(StandardCharsets.UTF_8));
        bad.put("claims changed after signing", parts[0] + "." + tamperedClaims + "." + parts[2]);
        String none = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
        bad.put("unsigned (alg none)", none + "." + parts[1] + ".");
        // The algorithm confusion attack: HMAC keyed with the provider's public key, which anyone has.
        JWSObject hs = new JWSObject(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(key.getKeyID()).build(),
                new Payload(JWTClaimsSet.parse(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)).toJSONObject()));
        hs.sign(new MACSigner(java.security.MessageDigest.getInstance("SHA-256").digest(key.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8))));
        bad.put("HMAC with the public key as its secret", hs.serialize());

        double before = refusals();
        try (AuditLog audit = new AuditLog()) {
            for (Map.Entry<String, String> b : bad.entrySet()) {
                HttpResponse<String> r = call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"team_" + Math.abs(b.getKey().hashCode()) + "\"]}", b.getValue());
                assertThat(r.statusCode()).as(b.getKey() + ": " + r.body()).isEqualTo(401);
                assertThat(r.headers().firstValue("WWW-Authenticate")).as(b.getKey()).hasValueSatisfying(v -> assertThat(v).contains("invalid_token"));
                assertThat(call("GET", "/v1/grants?principal=analyst", null, b.getValue()).statusCode()).as(b.getKey()).isEqualTo(401);
            }
            audit.assertNoLineContains(bad.values().toArray(String[]::new));
        }
        assertThat(refusals() - before).as("every refusal counted").isEqualTo(2.0 * bad.size());
        HttpResponse<String> listed = call("GET", "/iceberg/v1/namespaces", null, ADMIN);
        assertThat(new JsonObject(listed.body()).getJsonArray("namespaces").size()).as("nothing was created: " + listed.body()).isEqualTo(2);
        // The same token, still valid: accepted (the refusals left nothing behind that refuses it).
        awaitGrantApplied(valid);
        // Expiry follows the node's clock, skew included, even for a token the node already accepted.
        clock.advanceWall(Duration.ofHours(1).toMillis() + 61_000);
        assertThat(call("GET", "/iceberg/v1/namespaces/team", null, valid).statusCode()).isEqualTo(401);
    }

    @Test
    void rotatedSigningKeyIsFetchedOnce() throws Exception {
        String before = idp.mint("analyst", "lake-write");
        awaitGrantApplied(before);
        int fetched = idp.jwksFetches();
        assertThat(fetched).as("the node fetched the keys at start, once").isEqualTo(1);

        // The provider rotates; the node learns the new key id from the first token that carries it.
        idp.rotate();
        clock.advanceWall(1_000); // past the least time between two fetches (1 s in TestIdp.settings())
        String after = idp.mint("analyst", "lake-write");
        List<CompletableFuture<HttpResponse<String>>> concurrent = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            concurrent.add(HTTP.sendAsync(request("GET", "/iceberg/v1/namespaces/team", null, after), HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> r : concurrent) assertThat(r.get().statusCode()).as(r.get().body()).isEqualTo(200);
        assertThat(idp.jwksFetches()).as("16 concurrent requests with the new key id: one fetch").isEqualTo(fetched + 1);
        assertThat(call("GET", "/iceberg/v1/namespaces/team", null, before).statusCode()).as("the old key is still published").isEqualTo(200);
        assertThat(call("GET", "/iceberg/v1/namespaces/team", null, idp.mint("analyst", "lake-write")).statusCode()).isEqualTo(200);
        assertThat(idp.jwksFetches()).as("known keys fetch nothing").isEqualTo(fetched + 1);

        // Forged key ids cannot make the node hammer the provider: within the refetch floor, none fetches.
        for (int i = 0; i < 10; i++) {
            String forged = idp.mint(TestIdp.foreignKey("forged-" + UUID.randomUUID()), c -> c.subject("analyst").claim("roles", List.of("lake-write")));
            assertThat(call("GET", "/iceberg/v1/namespaces/team", null, forged).statusCode()).isEqualTo(401);
        }
        assertThat(idp.jwksFetches()).as("forged key ids within the floor").isEqualTo(fetched + 1);
        clock.advanceWall(1_000);
        String forged = idp.mint(TestIdp.foreignKey("forged-late"), c -> c.subject("analyst").claim("roles", List.of("lake-write")));
        assertThat(call("GET", "/iceberg/v1/namespaces/team", null, forged).statusCode()).isEqualTo(401);
        assertThat(idp.jwksFetches()).as("after the floor, one more").isEqualTo(fetched + 2);

        // A request whose body arrives while its key is fetched keeps its body (held back, then read).
        idp.rotate();
        clock.advanceWall(1_000);
        HttpResponse<String> created = call("POST", "/iceberg/v1/namespaces/team/tables", "{\"name\":\"after_rotation\",\"schema\":"
                + "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}",
                idp.mint("analyst", "lake-write"));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        assertThat(idp.jwksFetches()).isEqualTo(fetched + 3);
        assertThat(call("GET", "/iceberg/v1/namespaces/team/tables/after_rotation", null, ADMIN).statusCode()).isEqualTo(200);
    }

    @Test
    void withdrawnKeyStopsVerifyingWhatItSigned() throws Exception {
        RSAKey compromised = idp.signingKey();
        String signedByIt = idp.mint("analyst", "lake-write");
        awaitGrantApplied(signedByIt); // verified, and remembered
        idp.rotate();
        idp.withdraw(compromised);
        String signedByTheNewKey = idp.mint("analyst", "lake-write");
        // The keys are due for their refresh (300 s); the lease is renewed across the jump.
        clock.advanceWall(300_000);
        assertThat(h.campaign(node).isLeader()).isTrue();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> call("GET", "/iceberg/v1/namespaces/team", null, signedByIt).statusCode() == 401);
        assertThat(call("GET", "/iceberg/v1/namespaces/team", null, signedByTheNewKey).statusCode()).isEqualTo(200);
    }

    private double refusals() {
        return node.metrics().registry().find("lake.auth.rejections").tag("code", "unauthorized").counters().stream()
                .mapToDouble(c -> c.count()).sum();
    }
}
