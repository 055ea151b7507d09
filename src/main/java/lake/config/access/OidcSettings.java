package lake.config.access;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Bearer JWTs from an external OpenID Connect provider (docs/configuration.md, "OIDC principals"):
 * a token is accepted when its signature checks against a key of the provider's JWK set and its
 * issuer, audience and lifetime do; its principal and role come from configured claims.
 *
 * @param issuer         the exact {@code iss} every token must carry
 * @param audience       a value the token's {@code aud} must contain
 * @param jwksUrl        where the provider publishes its signing keys: {@code https}, or {@code http} on a loopback host only
 * @param principalClaim the claim naming the principal (grants are given to this name)
 * @param rolesClaim     the claim holding the token's roles (a list, or one space-separated string); a dotted
 *                       name reads a nested claim ({@code realm_access.roles})
 * @param adminRole      the role value that makes the principal an admin
 * @param writeRole      the role value that makes it read-write
 * @param readRole       the role value that makes it read-only; a token with none of the three is refused
 * @param clockSkewMs    how far {@code exp} and {@code nbf} may be off this node's clock
 * @param jwksRefreshMs  how long fetched keys are used before they are fetched again (in the background)
 * @param jwksMinRefetchMs the least time between two fetches caused by an unknown key id, so forged key ids
 *                       cannot make the node hammer the provider
 */
public record OidcSettings(String issuer, String audience, URI jwksUrl, String principalClaim, String rolesClaim,
                           String adminRole, String writeRole, String readRole, long clockSkewMs, long jwksRefreshMs,
                           long jwksMinRefetchMs) {
    public OidcSettings {
        require(issuer, "oidc-issuer");
        require(audience, "oidc-audience");
        if (jwksUrl == null) throw new IllegalArgumentException("oidc-jwks-url: required with oidc-issuer");
        String scheme = jwksUrl.getScheme();
        if (jwksUrl.getHost() == null || !("https".equals(scheme) || "http".equals(scheme))) {
            throw new IllegalArgumentException("oidc-jwks-url: '" + jwksUrl + "' is not an https:// URL");
        }
        if ("http".equals(scheme) && !loopback(jwksUrl.getHost())) {
            // Keys fetched in clear over a network could be replaced in transit: every token would then be forgeable.
            throw new IllegalArgumentException("oidc-jwks-url: '" + jwksUrl + "' is plain http to a host that is not a loopback address (127.0.0.1, [::1], localhost); keys must come over https");
        }
        require(principalClaim, "oidc-principal-claim");
        require(rolesClaim, "oidc-roles-claim");
        require(adminRole, "oidc-admin-role");
        require(writeRole, "oidc-write-role");
        require(readRole, "oidc-read-role");
        if (List.of(adminRole, writeRole, readRole).stream().distinct().count() != 3) {
            throw new IllegalArgumentException("oidc-admin-role, oidc-write-role and oidc-read-role must differ, got " + adminRole + ", "
                    + writeRole + ", " + readRole);
        }
        if (clockSkewMs < 0 || clockSkewMs > 600_000) throw new IllegalArgumentException("oidc-clock-skew-ms: must be 0 to 600000, got " + clockSkewMs);
        if (jwksRefreshMs < 1_000) throw new IllegalArgumentException("oidc-jwks-refresh-ms: must be at least 1000, got " + jwksRefreshMs);
        if (jwksMinRefetchMs < 0 || jwksMinRefetchMs > jwksRefreshMs) {
            throw new IllegalArgumentException("oidc-jwks-min-refetch-ms: must be 0 to oidc-jwks-refresh-ms (" + jwksRefreshMs + "), got " + jwksMinRefetchMs);
        }
    }

    private static void require(String v, String setting) {
        if (v == null || v.isBlank()) throw new IllegalArgumentException(setting + ": required with oidc-issuer (must not be empty)");
    }

    /**
     * A literal loopback address or {@code localhost}: a name is never resolved here, since the
     * fetch resolves it again later and a changed DNS answer would move where keys come from.
     */
    private static boolean loopback(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.equalsIgnoreCase("localhost")) return true;
        // Only canonical literals: a dotted quad (not "2130706433", which a resolver would look up as a name) or IPv6.
        boolean quad = h.matches("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
        if (!quad && !h.contains(":")) return false;
        try {
            return InetAddress.getByName(h).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
