package lake.api;

import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import lake.bus.Bus;
import lake.config.AuthToken;
import lake.metrics.NodeMetrics;
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
 * of the node's {@link Principals}, or the request is {@code 401}. Authorization, in
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

    public AccessControl(Principals principals, NodeMetrics metrics) {
        this(principals, metrics, null);
    }

    public AccessControl(Principals principals, NodeMetrics metrics, String clusterSecret) {
        this.principals = principals;
        this.metrics = metrics;
        this.clusterSecret = clusterSecret == null ? null : clusterSecret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A fixed set of principals, never reloaded (tests, embedding). */
    public AccessControl(List<AuthToken> tokens, NodeMetrics metrics) {
        this(new Principals(tokens, new lake.config.SecuritySettings(null, tokens)), metrics);
    }

    public Principals principals() {
        return principals;
    }

    /** The 401 for a request presenting {@code token} ({@code null}: none), or {@code null} when it names a principal. */
    private ApiError authenticate(String token, Caller[] out, String ingress) {
        if (!principals.enabled()) {
            out[0] = new Caller(ingress, null);
            return null;
        }
        if (token == null || token.isEmpty()) return unauthorized("a token is required");
        Optional<AuthToken> match = principals.byToken(token);
        if (match.isEmpty()) return unauthorized("the token is not valid");
        out[0] = new Caller(ingress, match.get());
        return null;
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
        throw ApiError.from(new lake.catalog.CatalogException.NotFound(name == null ? "namespace '" + ns + "' does not exist"
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
        Caller[] caller = new Caller[1];
        // A token, when given, decides; else a verified client certificate may name the principal.
        Optional<AuthToken> byCertificate = token == null && principals.enabled()
                ? clientCertificateCn(ctx).flatMap(principals::byCertificateCn) : Optional.empty();
        ApiError refused;
        if (byCertificate.isPresent()) {
            caller[0] = new Caller("http", byCertificate.get());
            refused = null;
        } else {
            refused = authenticate(token, caller, "http");
        }
        if (refused == null) {
            ctx.put(CALLER, caller[0]);
            // Kept for the request's event-bus hop: a follower forwarding the write presents it to the leader.
            if (token != null) ctx.put(Bus.TOKEN_HEADER, token);
            ctx.next();
            return;
        }
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

    /** Event-bus ingress: the {@link Bus#TOKEN_HEADER} header. Fails the message with 401 and returns {@code null}, or the caller. */
    public Caller bus(Message<?> msg, String op) {
        Caller[] caller = new Caller[1];
        ApiError refused = bus(msg.headers(), op, caller);
        if (refused == null) return caller[0];
        msg.fail(refused.status(), refused.toJson().encode());
        return null;
    }

    /**
     * A write a follower forwarded: its client's token, or, when the follower authenticated the
     * client by certificate, the principal it names in {@link Bus#PRINCIPAL_HEADER} — believed
     * only with this node's cluster secret (compared in constant time) and only while the
     * principal is still configured here. Public addresses never take the header.
     */
    public ApiError forwarded(io.vertx.core.MultiMap headers, String op, Caller[] out) {
        String named = headers.get(Bus.PRINCIPAL_HEADER);
        if (headers.get(Bus.TOKEN_HEADER) == null && named != null && clusterSecret != null && principals.enabled()) {
            String presented = headers.get(Bus.SECRET_HEADER);
            Optional<AuthToken> p = principals.byName(named);
            if (presented != null && MessageDigest.isEqual(clusterSecret, presented.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    && p.isPresent()) {
                out[0] = new Caller("bus", p.get());
                return null;
            }
        }
        return bus(headers, op, out);
    }

    /** Event-bus ingress for a request known by its headers (one item of a batch): the refusal, counted and audited, or {@code null}. */
    ApiError bus(io.vertx.core.MultiMap headers, String op, Caller[] out) {
        ApiError refused = authenticate(headers.get(Bus.TOKEN_HEADER), out, "bus");
        if (refused != null) refusedUnauthenticated("bus", op, refused);
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
