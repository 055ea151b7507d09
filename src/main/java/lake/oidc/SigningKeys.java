package lake.oidc;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
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
 * fetch replaces the set whole, so a key the provider withdrew stops verifying, and a different
 * set moves the {@link Snapshot#generation()} (what was verified under an earlier one is verified
 * again). A fetch is bounded as a whole: from before its name lookup and connection to its last
 * byte within 5 s, at most 512 KiB read; a refresh the provider fails is retried no more often than
 * the refetch floor (at least a second apart).
 * Only public signing keys are kept. Nothing here blocks: fetches go through Vert.x's HTTP client.
 */
public final class SigningKeys {
    private static final Logger log = LoggerFactory.getLogger(SigningKeys.class);
    /** The most a JWK set may weigh: a provider publishes a handful of keys. */
    static final int MAX_BYTES = 512 * 1024;
    static final int TIMEOUT_MS = 5_000;
    /** The least time between two background refreshes while the provider fails them. */
    static final long RETRY_FLOOR_MS = 1_000;

    private final OidcSettings settings;
    private final Vertx vertx;
    private final HttpClient http;
    private final LongSupplier clock;
    private final long timeoutMs;
    private final int maxBytes;
    private final AtomicLong fetches = new AtomicLong();

    /** A key set and its generation, which moves whenever a fetch brings a different set (a key added or withdrawn). */
    public record Snapshot(JWKSet keys, long generation) {}

    /** The keys at hand; empty until the first fetch succeeds. Guarded by {@code this}. */
    private Snapshot keys = new Snapshot(new JWKSet(), 0);
    private long fetchedAt;
    private boolean fetched;
    private long lastAttempt;
    private Future<Snapshot> inFlight;

    public SigningKeys(Vertx vertx, OidcSettings settings, LongSupplier clock) {
        this(vertx, settings, clock, TIMEOUT_MS, MAX_BYTES);
    }

    /** With the bounds of one fetch: the whole of it (name lookup to last byte) within {@code timeoutMs}, at most {@code maxBytes}. */
    SigningKeys(Vertx vertx, OidcSettings settings, LongSupplier clock, long timeoutMs, int maxBytes) {
        this(vertx, settings, clock, timeoutMs, maxBytes, timeoutMs);
    }

    /** As above, the TLS handshake's own bound apart (tests show the deadline holds without it). */
    SigningKeys(Vertx vertx, OidcSettings settings, LongSupplier clock, long timeoutMs, int maxBytes, long handshakeTimeoutMs) {
        this.settings = settings;
        this.vertx = vertx;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
        this.maxBytes = maxBytes;
        this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs))
                .setSslHandshakeTimeout(handshakeTimeoutMs).setSslHandshakeTimeoutUnit(java.util.concurrent.TimeUnit.MILLISECONDS)
                .setKeepAlive(false).setVerifyHost(true));
    }

    /** The generation of the keys at hand: what was verified under an earlier one is verified again. */
    public synchronized long generation() {
        return keys.generation();
    }

    /** How many fetches this node has started (each one request to the provider). */
    public long fetches() {
        return fetches.get();
    }

    /**
     * The keys to verify with: those at hand (a background fetch is started when they are older
     * than the refresh interval), or the first fetch's result when there are none yet.
     */
    public synchronized Future<Snapshot> current() {
        if (!fetched) {
            if (inFlight != null) return inFlight;
            // None yet (the provider was down): ask again, as a failed refresh is, once per floor and at least a second apart.
            if (fetches.get() > 0 && clock.getAsLong() - lastAttempt < Math.max(settings.jwksMinRefetchMs(), RETRY_FLOOR_MS)) {
                return Future.succeededFuture(keys);
            }
            return fetch();
        }
        long now = clock.getAsLong();
        // Due for refresh; a refresh that failed (the provider down) is retried no more often than
        // the refetch floor, and at least a second apart, so an outage costs the provider little.
        if (now - fetchedAt >= settings.jwksRefreshMs() && inFlight == null
                && now - lastAttempt >= Math.max(settings.jwksMinRefetchMs(), RETRY_FLOOR_MS)) {
            fetch();
        }
        return Future.succeededFuture(keys);
    }

    /**
     * The keys after looking for {@code kid} at the provider: joins a fetch in flight, else
     * fetches unless the last attempt was less than {@code jwksMinRefetchMs} ago (then the keys at
     * hand, which do not hold it).
     */
    public synchronized Future<Snapshot> lookFor(String kid) {
        if (inFlight != null) return inFlight;
        if (keys.keys().getKeyByKeyId(kid) != null) return Future.succeededFuture(keys);
        if (fetches.get() > 0 && clock.getAsLong() - lastAttempt < settings.jwksMinRefetchMs()) return Future.succeededFuture(keys);
        return fetch();
    }

    /** Guarded by {@code this}. */
    private Future<Snapshot> fetch() {
        lastAttempt = clock.getAsLong();
        fetches.incrementAndGet();
        Future<JWKSet> f = download().map(this::parse);
        // Whoever waits gets the keys at hand when a fetch fails: a verification then fails for want of a key, not of the provider.
        Future<Snapshot> settled = f.transform(ar -> {
            Snapshot now;
            synchronized (SigningKeys.this) {
                inFlight = null;
                if (ar.succeeded()) {
                    boolean changed = !ar.result().toJSONObject(true).equals(keys.keys().toJSONObject(true));
                    keys = new Snapshot(ar.result(), keys.generation() + (changed ? 1 : 0));
                    fetched = true;
                    fetchedAt = clock.getAsLong();
                }
                now = keys;
            }
            if (ar.failed()) log.warn("OIDC signing keys not fetched from {} (keeping the {} at hand): {}", settings.jwksUrl(),
                    now.keys().getKeys().size(), ar.cause().getMessage());
            else log.debug("OIDC signing keys fetched from {}: {}", settings.jwksUrl(), now.keys().getKeys().size());
            return Future.succeededFuture(now);
        });
        // A fetch that failed at once has already settled (and cleared inFlight): only one still running is joined.
        if (!settled.isComplete()) inFlight = settled;
        return settled;
    }

    /**
     * The JWK set's bytes: the whole exchange within {@code timeoutMs} (a provider that trickles
     * bytes is cut off, not only one that goes quiet), at most {@code maxBytes} read (the request
     * is reset once they are exceeded, before more are buffered).
     */
    private Future<Buffer> download() {
        Promise<Buffer> body = Promise.promise();
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(settings.jwksUrl().toString())
                .putHeader("Accept", "application/jwk-set+json, application/json");
        // The deadline runs from before the connection (name lookup, connect, TLS handshake
        // included); a request obtained after it is reset at once.
        java.util.concurrent.atomic.AtomicReference<HttpClientRequest> sending = new java.util.concurrent.atomic.AtomicReference<>();
        long timer = vertx.setTimer(timeoutMs, id -> {
            if (body.tryFail("the JWK set did not arrive within " + timeoutMs + " ms")) {
                HttpClientRequest req = sending.get();
                if (req != null) req.reset();
            }
        });
        body.future().onComplete(done -> vertx.cancelTimer(timer));
        http.request(options).onComplete(requested -> {
            if (requested.failed()) {
                body.tryFail(requested.cause());
                return;
            }
            HttpClientRequest req = requested.result();
            sending.set(req);
            if (body.future().isComplete()) {
                req.reset();
                return;
            }
            req.send().onComplete(sent -> {
                if (sent.failed()) {
                    body.tryFail(sent.cause());
                    return;
                }
                HttpClientResponse resp = sent.result();
                if (resp.statusCode() != 200) {
                    if (body.tryFail("the JWK set answered HTTP " + resp.statusCode())) req.reset();
                    return;
                }
                Buffer bytes = Buffer.buffer();
                resp.handler(chunk -> {
                    if (body.future().isComplete()) return;
                    if (bytes.length() + chunk.length() > maxBytes) {
                        if (body.tryFail("the JWK set is larger than " + maxBytes + " bytes")) req.reset();
                    } else {
                        bytes.appendBuffer(chunk);
                    }
                });
                resp.exceptionHandler(body::tryFail);
                resp.endHandler(v -> body.tryComplete(bytes));
            });
        });
        return body.future();
    }

    private JWKSet parse(Buffer body) {
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
