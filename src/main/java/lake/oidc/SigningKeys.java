package lake.oidc;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import lake.config.access.OidcSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The identity provider's signing keys, fetched from its JWK set URL and shared by every ingress of
 * the node.
 *
 * <p>Invariants: at most one fetch is in flight (concurrent askers join it); a fetch caused by an
 * unknown key id happens at most once per {@code jwksMinRefetchMs} (forged key ids cannot make the
 * node hammer the provider: within that time they are refused from the keys at hand); keys older
 * than {@code jwksRefreshMs} are still used while a background fetch replaces them, and a failed
 * fetch keeps the keys at hand (a provider outage does not lock out tokens already valid); a
 * fetch replaces the set whole, so a key the provider withdrew stops verifying. Only public
 * signing keys are kept. Nothing here blocks: fetches go through Vert.x's HTTP client.
 */
public final class SigningKeys {
    private static final Logger log = LoggerFactory.getLogger(SigningKeys.class);
    /** The most a JWK set may weigh: a provider publishes a handful of keys. */
    static final int MAX_BYTES = 512 * 1024;
    static final int TIMEOUT_MS = 5_000;

    private final OidcSettings settings;
    private final HttpClient http;
    private final LongSupplier clock;
    private final AtomicLong fetches = new AtomicLong();

    /** The keys at hand; empty until the first fetch succeeds. Guarded by {@code this}. */
    private JWKSet keys = new JWKSet();
    private long fetchedAt;
    private boolean fetched;
    private long lastAttempt;
    private boolean attempted;
    private Future<JWKSet> inFlight;

    public SigningKeys(Vertx vertx, OidcSettings settings, LongSupplier clock) {
        this.settings = settings;
        this.clock = clock;
        this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(TIMEOUT_MS)
                .setKeepAlive(false).setVerifyHost(true));
    }

    /** How many fetches this node has started (each one request to the provider). */
    public long fetches() {
        return fetches.get();
    }

    /**
     * The keys to verify with: those at hand (a background fetch is started when they are older
     * than the refresh interval), or the first fetch's result when there are none yet.
     */
    public synchronized Future<JWKSet> current() {
        if (!fetched) {
            if (inFlight != null) return inFlight;
            // None yet (the provider was down): ask again, but no more often than an unknown key id may.
            if (attempted && clock.getAsLong() - lastAttempt < settings.jwksMinRefetchMs()) return Future.succeededFuture(keys);
            return fetch();
        }
        if (clock.getAsLong() - fetchedAt >= settings.jwksRefreshMs() && inFlight == null) fetch();
        return Future.succeededFuture(keys);
    }

    /**
     * The keys after looking for {@code kid} at the provider: joins a fetch in flight, else
     * fetches unless the last attempt was less than {@code jwksMinRefetchMs} ago (then the keys at
     * hand, which do not hold it).
     */
    public synchronized Future<JWKSet> lookFor(String kid) {
        if (inFlight != null) return inFlight;
        if (keys.getKeyByKeyId(kid) != null) return Future.succeededFuture(keys);
        if (attempted && clock.getAsLong() - lastAttempt < settings.jwksMinRefetchMs()) return Future.succeededFuture(keys);
        return fetch();
    }

    /** Guarded by {@code this}. */
    private Future<JWKSet> fetch() {
        attempted = true;
        lastAttempt = clock.getAsLong();
        fetches.incrementAndGet();
        RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(settings.jwksUrl().toString())
                .setIdleTimeout(TIMEOUT_MS).putHeader("Accept", "application/jwk-set+json, application/json");
        Future<JWKSet> f = http.request(request)
                .compose(req -> req.send())
                .compose(resp -> {
                    if (resp.statusCode() != 200) {
                        return Future.failedFuture("the JWK set answered HTTP " + resp.statusCode());
                    }
                    String length = resp.getHeader("Content-Length");
                    if (length != null && length.length() < 12 && length.chars().allMatch(Character::isDigit) && Long.parseLong(length) > MAX_BYTES) {
                        return Future.failedFuture("the JWK set is larger than " + MAX_BYTES + " bytes");
                    }
                    return resp.body();
                })
                .map(this::parse);
        // Whoever waits gets the keys at hand when a fetch fails: a verification then fails for want of a key, not of the provider.
        Future<JWKSet> settled = f.transform(ar -> {
            JWKSet now;
            synchronized (SigningKeys.this) {
                inFlight = null;
                if (ar.succeeded()) {
                    keys = ar.result();
                    fetched = true;
                    fetchedAt = clock.getAsLong();
                }
                now = keys;
            }
            if (ar.failed()) log.warn("OIDC signing keys not fetched from {} (keeping the {} at hand): {}", settings.jwksUrl(),
                    now.getKeys().size(), ar.cause().getMessage());
            else log.debug("OIDC signing keys fetched from {}: {}", settings.jwksUrl(), now.getKeys().size());
            return Future.succeededFuture(now);
        });
        // A fetch that failed at once has already settled (and cleared inFlight): only one still running is joined.
        if (!settled.isComplete()) inFlight = settled;
        return settled;
    }

    private JWKSet parse(Buffer body) {
        if (body.length() > MAX_BYTES) throw new IllegalStateException("the JWK set is larger than " + MAX_BYTES + " bytes");
        try {
            List<JWK> signing = JWKSet.parse(body.toString()).getKeys().stream()
                    .filter(k -> k.getKeyUse() == null || KeyUse.SIGNATURE.equals(k.getKeyUse()))
                    .map(JWK::toPublicJWK)
                    .filter(k -> k != null)
                    .toList();
            return new JWKSet(signing);
        } catch (java.text.ParseException e) {
            throw new IllegalStateException("the JWK set does not parse: " + e.getMessage());
        }
    }

    public void close() {
        http.close();
    }
}
