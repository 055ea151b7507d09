package lake.server;

import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import lake.config.AuthToken;
import lake.config.AuthTokens;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * Bearer-token access control for the API: one check per ingress, called before a request reaches
 * the {@link ApiVerticle} and {@link HttpVerticle}. With no tokens configured every request is allowed.
 *
 * <p>Invariants: a presented token is hashed with SHA-256 and compared against every configured
 * digest with {@link MessageDigest#isEqual} (constant time, and no early exit across entries), so
 * timing tells nothing about how much of a token matched; tokens are never logged, echoed in an
 * error or kept in memory beyond the request. A refused request is answered before anything is
 * sent to the store, so it writes nothing.
 */
public final class AccessControl {
    /** The event-bus header carrying the token on {@code lake.v1.*} requests. */
    public static final String TOKEN_HEADER = "lake-token";
    private static final String BEARER = "Bearer ";

    private final List<AuthToken> tokens;
    /** The digests of {@link #tokens}, same order, copied once so a check allocates only the presented digest. */
    private final byte[][] digests;
    private final NodeMetrics metrics;

    public AccessControl(List<AuthToken> tokens, NodeMetrics metrics) {
        this.tokens = List.copyOf(tokens);
        this.digests = this.tokens.stream().map(AuthToken::sha256).toArray(byte[][]::new);
        this.metrics = metrics;
    }

    /**
     * The refusal for a request presenting {@code token} ({@code null}: none), or {@code null}
     * when it may proceed. {@code write}: the request would change the store or the lease.
     */
    public ApiError check(String token, boolean write) {
        if (tokens.isEmpty()) return null;
        if (token == null || token.isEmpty()) return unauthorized("a token is required");
        byte[] presented = AuthTokens.sha256(token);
        AuthToken match = null;
        for (int i = 0; i < digests.length; i++) {
            // Every entry is compared, whatever matched before: the loop's time does not depend on the token.
            if (MessageDigest.isEqual(presented, digests[i]) && match == null) match = tokens.get(i);
        }
        if (match == null) return unauthorized("the token is not valid");
        if (write && !match.readWrite()) {
            return new ApiError(403, "forbidden", "token '" + match.name() + "' is read-only; writes need a read-write token", null);
        }
        return null;
    }

    /** Whether requests need a token at all. */
    public boolean required() {
        return !tokens.isEmpty();
    }

    /** Whether {@code token} ({@code null}: none) may write; counts nothing (it is a question, not a request). */
    public boolean mayWrite(String token) {
        return check(token, true) == null;
    }

    private static ApiError unauthorized(String why) {
        return new ApiError(401, "unauthorized", why, null);
    }

    /**
     * HTTP ingress: {@code Authorization: Bearer <token>}. Every method under {@code /v1} but
     * {@code GET} and {@code HEAD} is a write (CAS, delete, transactions, resign, catalog changes).
     * Ends the response on refusal, else passes the request on.
     */
    void http(RoutingContext ctx) {
        String header = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
        String token = header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? header.substring(BEARER.length()).trim() : null;
        HttpMethod method = ctx.request().method();
        ApiError refused = check(token, method != HttpMethod.GET && method != HttpMethod.HEAD);
        if (refused == null) {
            // Kept for the request's event-bus hop: a follower forwarding the write presents it to the leader.
            if (token != null) ctx.put(TOKEN_HEADER, token);
            ctx.next();
            return;
        }
        metrics.authRejected("http", refused.code());
        ctx.response().setStatusCode(refused.status()).putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        if (refused.status() == 401) {
            // RFC 6750: a missing token gets the bare challenge; a wrong one says so.
            ctx.response().putHeader("WWW-Authenticate",
                    token == null ? "Bearer realm=\"lake-metasrv\"" : "Bearer realm=\"lake-metasrv\", error=\"invalid_token\"");
        }
        ctx.response().end(refused.toJson().encode());
    }

    /** Event-bus ingress: the {@link #TOKEN_HEADER} header. Fails the message on refusal; {@code true} to proceed. */
    boolean bus(Message<?> msg, boolean write) {
        ApiError refused = bus(msg.headers(), write);
        if (refused == null) return true;
        msg.fail(refused.status(), refused.toJson().encode());
        return false;
    }

    /** Event-bus ingress for a request known by its headers (one item of a batch): the refusal, counted, or {@code null}. */
    ApiError bus(io.vertx.core.MultiMap headers, boolean write) {
        ApiError refused = check(headers.get(TOKEN_HEADER), write);
        if (refused != null) metrics.authRejected("bus", refused.code());
        return refused;
    }

    /** The same warning for the cluster address: the clustered event bus serves the API there. */
    public static Optional<String> clusterExposureWarning(String clusterHost, boolean tokensConfigured) {
        return exposureWarning(clusterHost, tokensConfigured).map(w -> "cluster-host " + clusterHost
                + " is not a loopback address and no auth-tokens are configured: any process that joins the cluster"
                + " can read and write every key through the event-bus API");
    }

    /** The start-up warning for an API reachable beyond this host without tokens, if any. */
    public static Optional<String> exposureWarning(String httpHost, boolean tokensConfigured) {
        if (tokensConfigured) return Optional.empty();
        boolean loopback;
        try {
            loopback = InetAddress.getByName(httpHost).isLoopbackAddress();
        } catch (UnknownHostException e) {
            loopback = false;
        }
        return loopback ? Optional.empty() : Optional.of("http-host " + httpHost + " is not a loopback address and no"
                + " auth-tokens are configured: anyone who can reach this port can read and write every key");
    }
}
