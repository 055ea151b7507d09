package lake.api;

import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import lake.bus.Bus;
import lake.config.access.AuthToken;
import lake.metrics.NodeMetrics;
import lake.oidc.OidcAuthenticator;
import lake.protocol.ApiError;
import lake.protocol.Ops;
import lake.security.Action;
import lake.security.Audit;
import lake.security.Authorizer;
import lake.security.Caller;
import lake.security.Principals;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * Access control for the API, in two steps. Authentication, at each ingress before a request is
 * parsed: a bearer token (HTTP {@code Authorization}, bus {@link Bus#TOKEN_HEADER}) names a principal
 * of the node's {@link Principals}, or is a JWT the configured OIDC provider signed
 * ({@link OidcAuthenticator}), or the request is {@code 401}. Authorization, in
 * {@link NodeApi} after the request is decoded and before anything is read, written or
 * forwarded: the principal's role and grants must cover the {@link Action} ({@link Authorizer}),
 * or the request is {@code 403}. With no principals configured every request is allowed.
 *
 * <p>Invariants: tokens are compared by digest in constant time, never logged, echoed in an
 * error or kept beyond the request; every refusal is counted and written to the audit log
 * ({@link Audit}) by principal name; a refused request writes nothing.
 */
public final class AccessControl {
    /** Where the HTTP ingress keeps the authenticated {@link Caller} in the routing context. */
    public static final String CALLER = "lake-caller";
    private static final String BEARER = "Bearer ";

    private final Principals principals;
    private final NodeMetrics metrics;
    /** The cluster secret, which lets a follower vouch for a certificate principal on a forwarded write; or {@code null}. */
    private final byte[] clusterSecret;
    /** Checks bearer JWTs of the configured OIDC provider, or {@code null}. */
    private final OidcAuthenticator oidc;

    public AccessControl(Principals principals, NodeMetrics metrics) {
        this(principals, metrics, null);
    }

    public AccessControl(Principals principals, NodeMetrics metrics, String clusterSecret) {
        this(principals, metrics, clusterSecret, null);
    }

    /** With {@code oidc}: bearer JWTs of that provider name principals too ({@code null}: configured principals only). */
    public AccessControl(Principals principals, NodeMetrics metrics, String clusterSecret, OidcAuthenticator oidc) {
        this.principals = principals;
        this.metrics = metrics;
        this.clusterSecret = clusterSecret == null ? null : clusterSecret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.oidc = oidc;
    }

    /** A fixed set of principals, never reloaded (tests, embedding). */
    public AccessControl(List<AuthToken> tokens, NodeMetrics metrics) {
        this(new Principals(tokens, new lake.config.SecuritySettings(null, tokens)), metrics);
    }

    public Principals principals() {
        return principals;
    }

    /**
     * The caller {@code token} names ({@code null}: none): a configured principal's token, or a JWT
     * the OIDC provider signed; else a failed future holding the 401. Complete at once unless the
     * provider's keys must be fetched first (only for a JWT).
     */
    private Future<Caller> authenticate(String token, String ingress) {
        if (!principals.enabled()) return Future.succeededFuture(new Caller(ingress, null));
        if (token == null || token.isEmpty()) return Future.failedFuture(unauthorized("a token is required"));
        Optional<AuthToken> match = principals.byToken(token);
        if (match.isPresent()) return Future.succeededFuture(new Caller(ingress, match.get()));
        if (oidc == null || !OidcAuthenticator.looksLikeJwt(token)) return Future.failedFuture(unauthorized("the token is not valid"));
        return onCallersContext(oidc.verify(token).transform(ar -> {
            if (ar.failed()) {
                return Future.failedFuture(unauthorized(ar.cause() instanceof OidcAuthenticator.Refused r ? r.getMessage()
                        : "the token could not be checked: " + ar.cause().getMessage()));
            }
            OidcAuthenticator.Verified v = ar.result();
            return principals.external(v.principal(), v.access()).map(p -> Future.succeededFuture(new Caller(ingress, p)))
                    .orElseGet(() -> Future.failedFuture(unauthorized("the token names principal '" + v.principal()
                            + "', which this node configures itself; a provider's token may not speak for it")));
        }));
    }

    /** {@code f}, its callbacks run on the calling context (a key fetch completes on another). */
    private static <T> Future<T> onCallersContext(Future<T> f) {
        io.vertx.core.Context here = io.vertx.core.Vertx.currentContext();
        if (f.isComplete() || here == null) return f;
        io.vertx.core.Promise<T> p = io.vertx.core.Promise.promise();
        f.onComplete(ar -> here.runOnContext(v -> p.handle(ar)));
        return p.future();
    }

    /**
     * Throws {@code 403 forbidden} (counted and audited) unless {@code caller} may do {@code action}.
     * Called by {@link NodeApi} once the request is decoded, before anything else happens.
     */
    void authorize(Caller caller, Action action) {
        if (action instanceof Action.CatalogObject o) {
            refuseObject(caller, o.op(), o.namespace(), o.name(),
                    Authorizer.catalogRefusal(caller.principal(), lake.security.CatalogAccess.of(caller.principal()), o.namespace(), o.name(), o.need()));
            return;
        }
        if (action instanceof Action.NamespaceChange n) {
            refuseObject(caller, n.op(), n.namespace(), null,
                    Authorizer.namespaceChangeRefusal(caller.principal(), lake.security.CatalogAccess.of(caller.principal()), n.namespace(), n.need()));
            return;
        }
        Optional<String> refused = Authorizer.refusal(caller.principal(), action);
        if (refused.isEmpty()) return;
        metrics.authRejected(caller.ingress(), "forbidden");
        String[] subject = subject(action);
        Audit.refused(caller.ingress(), caller.name(), action.op(), subject[0], subject[1], 403, refused.get());
        throw new ApiError(403, "forbidden", refused.get(), null);
    }

    /**
     * A catalog object's refusal: one the principal may not see is answered exactly as a missing
     * one (the catalog's own 404), one it sees without the privilege is {@code 403}; both counted
     * and audited with their status.
     */
    private void refuseObject(Caller caller, String op, String ns, String name, Optional<Authorizer.CatalogRefusal> refused) {
        if (refused.isEmpty()) return;
        boolean hidden = refused.get().hidden();
        metrics.authRejected(caller.ingress(), hidden ? "hidden" : "forbidden");
        Audit.refused(caller.ingress(), caller.name(), op, name == null ? "namespace" : "object",
                name == null ? ns : ns + "." + name, hidden ? 404 : 403, refused.get().reason());
        if (!hidden) throw new ApiError(403, "forbidden", refused.get().reason(), null);
        throw ApiError.from(new lake.catalog.model.CatalogException.NotFound(name == null ? "namespace '" + ns + "' does not exist"
                : "table '" + ns + "." + name + "' does not exist"));
    }

    /** The field and value an audit line names for {@code action}: its key, prefix or namespace. */
    private static String[] subject(Action action) {
        if (action instanceof Action.Key k) return new String[] {"key", k.key()};
        if (action instanceof Action.Keys t) return new String[] {"keys", String.join(",", t.keys())};
        if (action instanceof Action.Scan s) return new String[] {"prefix", s.prefix()};
        if (action instanceof Action.CatalogObject o) return new String[] {"namespace", o.namespace()};
        if (action instanceof Action.NamespaceChange n) return new String[] {"namespace", n.namespace()};
        if (action instanceof Action.Admin a && a.namespace() != null) return new String[] {"namespace", a.namespace()};
        if (action instanceof Action.Grants g && g.principal() != null) return new String[] {"grantee", g.principal()};
        if (action instanceof Action.GrantChange g) return new String[] {"grantee", g.principal()};
        return new String[] {null, null};
    }

    /** Whether requests need a token at all. */
    public boolean required() {
        return principals.enabled();
    }

    /**
     * Whether the principal {@code token} names ({@code null}: none) may resign the lease, the one
     * write the console offers; counts and audits nothing (it is a question, not a request).
     */
    public boolean mayWrite(String token) {
        if (!principals.enabled()) return true;
        if (token == null || token.isEmpty()) return false;
        return principals.byToken(token)
                .map(p -> Authorizer.refusal(p, new Action.Admin(Ops.RESIGN, null)).isEmpty())
                .orElse(false);
    }

    private static ApiError unauthorized(String why) {
        return new ApiError(401, "unauthorized", why, null);
    }

    private void refusedUnauthenticated(String ingress, String op, ApiError refused) {
        metrics.authRejected(ingress, refused.code());
        Audit.refused(ingress, null, op, null, null, refused.status(), refused.getMessage());
    }

    /**
     * HTTP ingress: {@code Authorization: Bearer <token>}. Ends the response with 401 when no
     * principal is named, else keeps the {@link Caller} in the context and passes the request on.
     */
    public void http(RoutingContext ctx) {
        String header = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
        String token = header != null && header.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? header.substring(BEARER.length()).trim() : null;
        // A token, when given, decides; else a verified client certificate may name the principal.
        Optional<AuthToken> byCertificate = token == null && principals.enabled()
                ? clientCertificateCn(ctx).flatMap(principals::byCertificateCn) : Optional.empty();
        Future<Caller> caller = byCertificate.isPresent() ? Future.succeededFuture(new Caller("http", byCertificate.get()))
                : authenticate(token, "http");
        if (caller.isComplete()) {
            admit(ctx, token, caller);
            return;
        }
        // The body (and its end) must wait for the route that reads it: held back while the key is fetched.
        ctx.request().pause();
        caller.onComplete(ar -> admit(ctx, token, caller));
    }

    /** Passes the request on with its caller, or answers the 401 (counted and audited). */
    private void admit(RoutingContext ctx, String token, Future<Caller> caller) {
        if (caller.succeeded()) {
            ctx.put(CALLER, caller.result());
            // Kept for the request's event-bus hop: a follower forwarding the write presents it to the leader.
            if (token != null) ctx.put(Bus.TOKEN_HEADER, token);
            ctx.next();
            return;
        }
        ApiError refused = (ApiError) caller.cause();
        refusedUnauthenticated("http", ctx.request().method() + " " + ctx.request().path(), refused);
        ctx.response().setStatusCode(refused.status()).putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        // RFC 6750: a missing token gets the bare challenge; a wrong one says so.
        ctx.response().putHeader("WWW-Authenticate",
                token == null ? "Bearer realm=\"lake-metasrv\"" : "Bearer realm=\"lake-metasrv\", error=\"invalid_token\"");
        ctx.response().end(refused.toJson().encode());
    }

    /**
     * The subject CN of the client certificate this TLS connection verified (against
     * {@code tls_client_ca_file}), if any. Only a certificate the handshake verified is here.
     */
    private static Optional<String> clientCertificateCn(RoutingContext ctx) {
        if (!ctx.request().isSSL()) return Optional.empty();
        try {
            List<java.security.cert.Certificate> chain = ctx.request().connection().peerCertificates();
            if (chain == null || chain.isEmpty() || !(chain.get(0) instanceof java.security.cert.X509Certificate leaf)) {
                return Optional.empty();
            }
            javax.naming.ldap.LdapName dn = new javax.naming.ldap.LdapName(leaf.getSubjectX500Principal().getName());
            for (javax.naming.ldap.Rdn rdn : dn.getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) return Optional.of(String.valueOf(rdn.getValue()));
            }
            return Optional.empty();
        } catch (javax.net.ssl.SSLPeerUnverifiedException | javax.naming.InvalidNameException e) {
            return Optional.empty();
        }
    }

    /** Event-bus ingress: the caller the {@link Bus#TOKEN_HEADER} header names, or a failed future holding the 401 (counted and audited). */
    public Future<Caller> bus(io.vertx.core.MultiMap headers, String op) {
        return authenticate(headers.get(Bus.TOKEN_HEADER), "bus").onFailure(refused -> refusedUnauthenticated("bus", op, (ApiError) refused));
    }

    /**
     * A write a follower forwarded: its client's token, or, when the follower authenticated the
     * client by certificate, the principal it names in {@link Bus#PRINCIPAL_HEADER} — believed
     * only with this node's cluster secret (compared in constant time) and only while the
     * principal is still configured here. Public addresses never take the header.
     */
    public Future<Caller> forwarded(io.vertx.core.MultiMap headers, String op) {
        String named = headers.get(Bus.PRINCIPAL_HEADER);
        if (headers.get(Bus.TOKEN_HEADER) == null && named != null && clusterSecret != null && principals.enabled()) {
            String presented = headers.get(Bus.SECRET_HEADER);
            Optional<AuthToken> p = principals.byName(named);
            if (presented != null && MessageDigest.isEqual(clusterSecret, presented.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    && p.isPresent()) {
                return Future.succeededFuture(new Caller("bus", p.get()));
            }
        }
        return bus(headers, op);
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
