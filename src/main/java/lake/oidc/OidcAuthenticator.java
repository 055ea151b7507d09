package lake.oidc;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.factories.DefaultJWSVerifierFactory;
import com.nimbusds.jose.jwk.AsymmetricJWK;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.vertx.core.Future;
import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.access.OidcSettings;

import java.security.Key;
import java.text.ParseException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Checks a bearer JWT from the configured OpenID Connect provider: its signature against one of
 * the provider's keys ({@link SigningKeys}), then its issuer, audience and lifetime against this
 * node's clock, and reads its principal and role from the configured claims.
 *
 * <p>Invariants: only asymmetric signatures (RSA, RSASSA-PSS, ECDSA) are accepted, so neither an
 * unsigned token nor one "signed" with a public key as an HMAC secret passes; the algorithm must
 * be one the selected key is for; a token must carry {@code exp}. A verified token is remembered
 * by its SHA-256 (never the token itself) until it expires, so a client that reuses its token costs
 * one map lookup per request; what the principal may do is still decided per request from the
 * grants of the moment.
 */
public final class OidcAuthenticator {
    /** Signature algorithms accepted: the asymmetric families. */
    static final Set<JWSAlgorithm> ALGORITHMS = Set.copyOf(new ArrayList<JWSAlgorithm>() {{
        addAll(JWSAlgorithm.Family.RSA);
        addAll(JWSAlgorithm.Family.EC);
    }});
    /** Verified tokens remembered at most; beyond it, expired ones are dropped, then all. */
    static final int REMEMBERED = 10_000;

    /**
     * What a verified token says: who, in which role, until when (this node's clock, skew
     * included), and under which keys ({@link SigningKeys#generation()}: once they change, the
     * token is verified again, so a withdrawn key stops verifying what it signed).
     */
    public record Verified(String principal, AuthToken.Access access, long validUntilMs, long keys) {}

    /** A token that is not accepted, with why (safe to tell its bearer: it names no key material). */
    public static final class Refused extends RuntimeException {
        public Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    private final OidcSettings settings;
    private final SigningKeys keys;
    private final LongSupplier clock;
    private final Map<String, Verified> remembered = new ConcurrentHashMap<>();
    private final DefaultJWSVerifierFactory verifiers = new DefaultJWSVerifierFactory();

    public OidcAuthenticator(OidcSettings settings, SigningKeys keys, LongSupplier clock) {
        this.settings = settings;
        this.keys = keys;
        this.clock = clock;
    }

    /** Whether {@code token} has a JWT's shape (three base64url parts, a JSON header): only such tokens are checked here. */
    public static boolean looksLikeJwt(String token) {
        if (token == null || !token.startsWith("eyJ")) return false;
        int first = token.indexOf('.');
        return first > 0 && token.indexOf('.', first + 1) > first && token.indexOf('.', token.indexOf('.', first + 1) + 1) < 0;
    }

    /** The token's principal and role, or a failed future with {@link Refused} naming why it is not accepted. */
    public Future<Verified> verify(String token) {
        String digest = HexFormat.of().formatHex(AuthTokens.sha256(token));
        Verified known = remembered.get(digest);
        long now = clock.getAsLong();
        Future<SigningKeys.Snapshot> current = keys.current(); // also starts the periodic refresh when the keys are due
        if (known != null && now < known.validUntilMs() && known.keys() == keys.generation()) return Future.succeededFuture(known);
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(token);
        } catch (ParseException e) {
            return refused("the token is not a signed JWT: " + e.getMessage());
        }
        JWSHeader header = jwt.getHeader();
        if (!ALGORITHMS.contains(header.getAlgorithm())) {
            return refused("the token's algorithm " + header.getAlgorithm() + " is not accepted (RSA, RSASSA-PSS or ECDSA signatures only)");
        }
        return current.compose(set -> {
            if (select(set.keys(), header).isEmpty() && header.getKeyID() != null) {
                // A key id the keys at hand lack: the provider may have rotated. Ask it (at most so often).
                return keys.lookFor(header.getKeyID());
            }
            return Future.succeededFuture(set);
        }).compose(set -> {
            try {
                Verified v = check(jwt, set.keys(), set.generation());
                remember(digest, v);
                return Future.succeededFuture(v);
            } catch (Refused r) {
                return Future.failedFuture(r);
            }
        });
    }

    private static List<JWK> select(JWKSet set, JWSHeader header) {
        JWKMatcher matcher = JWKMatcher.forJWSHeader(header);
        return matcher == null ? List.of() : new JWKSelector(matcher).select(set);
    }

    private Verified check(SignedJWT jwt, JWKSet set, long generation) {
        List<JWK> candidates = select(set, jwt.getHeader());
        if (candidates.isEmpty()) {
            throw new Refused(jwt.getHeader().getKeyID() == null ? "no signing key of the provider fits the token's algorithm"
                    : "the token's key id '" + jwt.getHeader().getKeyID() + "' is not among the provider's signing keys");
        }
        boolean signed = false;
        for (JWK k : candidates) {
            if (!(k instanceof AsymmetricJWK asymmetric)) continue;
            try {
                Key key = asymmetric.toPublicKey();
                if (jwt.verify(verifiers.createJWSVerifier(jwt.getHeader(), key))) {
                    signed = true;
                    break;
                }
            } catch (JOSEException | IllegalStateException e) {
                // A key that cannot verify this algorithm: try the next candidate.
            }
        }
        if (!signed) throw new Refused("the token's signature does not check against the provider's keys");
        JWTClaimsSet claims;
        try {
            claims = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            throw new Refused("the token's claims do not parse: " + e.getMessage());
        }
        if (!settings.issuer().equals(claims.getIssuer())) {
            throw new Refused("the token's issuer '" + claims.getIssuer() + "' is not the one this node accepts");
        }
        if (claims.getAudience() == null || !claims.getAudience().contains(settings.audience())) {
            throw new Refused("the token's audience " + claims.getAudience() + " does not include '" + settings.audience() + "'");
        }
        long now = clock.getAsLong();
        Date exp = claims.getExpirationTime();
        if (exp == null) throw new Refused("the token has no expiry (exp)");
        if (now > exp.getTime() + settings.clockSkewMs()) throw new Refused("the token expired at " + Instant.ofEpochMilli(exp.getTime()));
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && now < nbf.getTime() - settings.clockSkewMs()) {
            throw new Refused("the token is not valid before " + Instant.ofEpochMilli(nbf.getTime()));
        }
        Object named = claims.getClaim(settings.principalClaim());
        if (!(named instanceof String principal) || principal.isEmpty() || principal.length() > 255
                || principal.chars().anyMatch(Character::isISOControl)) {
            throw new Refused("the token's claim '" + settings.principalClaim() + "' must name the principal (1-255 characters without control characters)");
        }
        List<String> roles = roles(claims.getClaims());
        AuthToken.Access access = roles.contains(settings.adminRole()) ? AuthToken.Access.ADMIN
                : roles.contains(settings.writeRole()) ? AuthToken.Access.READ_WRITE
                : roles.contains(settings.readRole()) ? AuthToken.Access.READ : null;
        if (access == null) {
            throw new Refused("the token's claim '" + settings.rolesClaim() + "' holds none of the roles '" + settings.adminRole() + "', '"
                    + settings.writeRole() + "', '" + settings.readRole() + "'");
        }
        return new Verified(principal, access, exp.getTime() + settings.clockSkewMs(), generation);
    }

    /** The roles claim, by its name or its dotted path: a list of strings, or one space-separated string (as OAuth's scope). */
    private List<String> roles(Map<String, Object> claims) {
        // A claim named with dots (Auth0's "https://example.com/roles") first, then the dotted path (Keycloak's realm_access.roles).
        Object at = claims.get(settings.rolesClaim());
        if (at == null) {
            at = claims;
            for (String part : settings.rolesClaim().split("\\.")) {
                at = at instanceof Map<?, ?> m ? m.get(part) : null;
            }
        }
        if (at instanceof String s) return List.of(s.trim().split("\\s+"));
        if (at instanceof List<?> l) return l.stream().filter(String.class::isInstance).map(String.class::cast).toList();
        return List.of();
    }

    private void remember(String digest, Verified v) {
        if (remembered.size() >= REMEMBERED) {
            long now = clock.getAsLong();
            remembered.values().removeIf(x -> now >= x.validUntilMs());
            if (remembered.size() >= REMEMBERED) remembered.clear();
        }
        remembered.put(digest, v);
    }

    private static Future<Verified> refused(String why) {
        return Future.failedFuture(new Refused(why));
    }
}
