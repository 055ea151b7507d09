package lake.oidc;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import lake.config.access.OidcSettings;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A small OpenID Connect provider of the tests' own, on loopback: it generates RSA keys (with
 * nimbus-jose-jwt, no crypto of its own), publishes them at {@code /jwks} (counting every fetch),
 * mints JWTs, and answers OAuth2 client-credentials requests at {@code /token} the way Iceberg's
 * REST client sends them ({@code credential} = {@code client_id:client_secret}, {@code scope},
 * and token exchange when it refreshes).
 */
public final class TestIdp implements AutoCloseable {
    public static final String AUDIENCE = "lake-metasrv";

    /** A registered OAuth2 client: its secret and the roles its tokens carry. */
    public record Client(String secret, List<String> roles) {}

    private final HttpServer server;
    private final List<RSAKey> published = new CopyOnWriteArrayList<>();
    private volatile RSAKey signing;
    private final AtomicInteger jwksFetches = new AtomicInteger();
    private final AtomicInteger tokensIssued = new AtomicInteger();
    private final Map<String, Client> clients = new HashMap<>();
    /** Mint time: the node's clock in tests that move it. */
    private final LongSupplier clock;

    public TestIdp(LongSupplier clock) throws IOException {
        this.clock = clock;
        rotate();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/jwks", this::jwks);
        server.createContext("/token", this::token);
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(2));
        server.start();
    }

    public String issuer() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public URI jwksUrl() {
        return URI.create(issuer() + "/jwks");
    }

    public String tokenUrl() {
        return issuer() + "/token";
    }

    /** OIDC settings for a node that trusts this provider (default claims and roles, a 1 s refetch floor, keys refreshed every 300 s). */
    public OidcSettings settings() {
        return settings(1_000);
    }

    /** The same, with the least time between two fetches caused by an unknown key id. */
    public OidcSettings settings(long minRefetchMs) {
        return new OidcSettings(issuer(), AUDIENCE, jwksUrl(), "sub", "roles", "lake-admin", "lake-write", "lake-read", 60_000, 300_000, minRefetchMs);
    }

    /**
     * A leader over {@code backend} that trusts this provider, with one configured admin token
     * ({@code operator}), started on {@code h} with {@code clock} and settled (its stored grants read).
     */
    public lake.node.MetasrvNode leader(lake.node.NodeHarness h, java.nio.file.Path dir, lake.node.ManualClock clock, String adminToken,
            java.util.function.Function<io.vertx.core.Vertx, io.vertx.core.Future<? extends lake.meta.MetaStore>> backend) throws Exception {
        List<lake.config.access.AuthToken> tokens = List.of(new lake.config.access.AuthToken("operator",
                lake.config.AuthTokens.sha256(adminToken), lake.config.access.AuthToken.Access.ADMIN, null, null));
        lake.node.MetasrvNode node = h.deploy(lake.node.NodeHarness.settings("a", dir.resolve("a"), 10_000, 0, 1_000).with(f -> {
            f.authTokens = tokens;
            f.security = new lake.config.SecuritySettings(null, tokens).withOidc(settings());
        }), clock, backend);
        if (!h.campaign(node).isLeader()) throw new IllegalStateException("the node did not win the lease");
        lake.node.NodeHarness.settled(node);
        return node;
    }

    public synchronized void register(String clientId, String secret, String... roles) {
        clients.put(clientId, new Client(secret, List.of(roles)));
    }

    public int jwksFetches() {
        return jwksFetches.get();
    }

    public int tokensIssued() {
        return tokensIssued.get();
    }

    /** A new signing key, published beside the old ones: tokens signed before stay valid. */
    public void rotate() {
        try {
            RSAKey k = new RSAKeyGenerator(2048).keyID("k-" + UUID.randomUUID()).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256).generate();
            published.add(k);
            signing = k;
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops publishing {@code key} (a compromised key withdrawn): the next fetch no longer has it. */
    public void withdraw(RSAKey key) {
        published.removeIf(k -> k.getKeyID().equals(key.getKeyID()));
    }

    /** A key this provider never publishes (a forger's), with key id {@code kid}. */
    public static RSAKey foreignKey(String kid) {
        try {
            return new RSAKeyGenerator(2048).keyID(kid).keyUse(KeyUse.SIGNATURE).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    public RSAKey signingKey() {
        return signing;
    }

    /** A valid token for {@code subject} with {@code roles}, for an hour. */
    public String mint(String subject, String... roles) {
        return mint(signing, c -> c.subject(subject).claim("roles", List.of(roles)));
    }

    /** A token signed by {@code key}: the valid claims (issuer, audience, an hour's life), then {@code claims} applied. */
    public String mint(RSAKey key, Consumer<JWTClaimsSet.Builder> claims) {
        long now = clock.getAsLong();
        JWTClaimsSet.Builder b = new JWTClaimsSet.Builder().issuer(issuer()).audience(AUDIENCE).issueTime(new Date(now))
                .expirationTime(new Date(now + Duration.ofHours(1).toMillis())).jwtID(UUID.randomUUID().toString());
        claims.accept(b);
        return sign(key, b.build());
    }

    public static String sign(RSAKey key, JWTClaimsSet claims) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(), claims);
            jwt.sign(new RSASSASigner(key));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    private void jwks(HttpExchange x) throws IOException {
        jwksFetches.incrementAndGet();
        List<com.nimbusds.jose.jwk.JWK> keys = new ArrayList<>();
        for (RSAKey k : published) keys.add(k.toPublicJWK());
        respond(x, 200, new JWKSet(keys).toString(true));
    }

    private void token(HttpExchange x) throws IOException {
        if (!"POST".equals(x.getRequestMethod())) {
            respond(x, 405, "{\"error\":\"invalid_request\"}");
            return;
        }
        Map<String, String> form = form(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        String basic = x.getRequestHeaders().getFirst("Authorization");
        if (basic != null && basic.startsWith("Basic ")) {
            String[] idSecret = new String(Base64.getDecoder().decode(basic.substring(6)), StandardCharsets.UTF_8).split(":", 2);
            form.putIfAbsent("client_id", URLDecoder.decode(idSecret[0], StandardCharsets.UTF_8));
            form.putIfAbsent("client_secret", idSecret.length > 1 ? URLDecoder.decode(idSecret[1], StandardCharsets.UTF_8) : "");
        }
        String subject;
        String grant = form.getOrDefault("grant_type", "");
        if (grant.equals("client_credentials")) {
            Client c;
            synchronized (this) {
                c = clients.get(form.get("client_id"));
            }
            if (c == null || !c.secret().equals(form.get("client_secret"))) {
                respond(x, 401, "{\"error\":\"invalid_client\",\"error_description\":\"unknown client or wrong secret\"}");
                return;
            }
            subject = form.get("client_id");
        } else if (grant.equals("urn:ietf:params:oauth:grant-type:token-exchange") && form.containsKey("subject_token")) {
            // Iceberg's refresh: a new token for the subject of one this provider issued.
            try {
                subject = SignedJWT.parse(form.get("subject_token")).getJWTClaimsSet().getSubject();
            } catch (java.text.ParseException e) {
                respond(x, 400, "{\"error\":\"invalid_grant\"}");
                return;
            }
        } else {
            respond(x, 400, "{\"error\":\"unsupported_grant_type\"}");
            return;
        }
        List<String> roles;
        synchronized (this) {
            Client c = clients.get(subject);
            roles = c == null ? List.of() : c.roles();
        }
        tokensIssued.incrementAndGet();
        String token = mint(signing, b -> b.subject(subject).claim("roles", roles).claim("scope", form.getOrDefault("scope", "")));
        respond(x, 200, "{\"access_token\":\"" + token + "\",\"token_type\":\"bearer\",\"expires_in\":3600,"
                + "\"issued_token_type\":\"urn:ietf:params:oauth:token-type:access_token\"}");
    }

    private static Map<String, String> form(String body) {
        Map<String, String> out = new HashMap<>();
        for (String pair : body.split("&")) {
            if (pair.isEmpty()) continue;
            String[] kv = pair.split("=", 2);
            out.put(URLDecoder.decode(kv[0], StandardCharsets.UTF_8), kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
        }
        return out;
    }

    private static void respond(HttpExchange x, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(status, b.length);
        x.getResponseBody().write(b);
        x.close();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
