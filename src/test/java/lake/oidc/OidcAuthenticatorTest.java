package lake.oidc;

import io.vertx.core.Vertx;
import lake.config.access.AuthToken;
import lake.config.access.OidcSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configured claims, as identity providers shape them: Keycloak's nested realm roles and
 * {@code preferred_username}, Auth0's namespaced claim whose name holds dots, a space-separated
 * string as OAuth's {@code scope}. Keys come from {@link TestIdp} over real HTTP.
 */
class OidcAuthenticatorTest {
    static final long NOW = 1_700_000_000_000L;
    final Vertx vertx = Vertx.vertx();
    final TestIdp idp;
    SigningKeys keys;

    OidcAuthenticatorTest() throws Exception {
        idp = new TestIdp(() -> NOW);
    }

    @AfterEach
    void stop() {
        if (keys != null) keys.close();
        idp.close();
        vertx.close();
    }

    OidcAuthenticator.Verified verify(String principalClaim, String rolesClaim, String token) throws Exception {
        OidcSettings s = new OidcSettings(idp.issuer(), TestIdp.AUDIENCE, idp.jwksUrl(), principalClaim, rolesClaim,
                "lake-admin", "lake-write", "lake-read", 60_000, 300_000, 0);
        keys = new SigningKeys(vertx, s, () -> NOW);
        return new OidcAuthenticator(s, keys, () -> NOW).verify(token).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void keycloakRealmRolesAndUsernameAreRead() throws Exception {
        String token = idp.mint(idp.signingKey(), c -> c.subject("f3a9c1d2-uuid").claim("preferred_username", "service-account-spark")
                .claim("realm_access", Map.of("roles", List.of("offline_access", "lake-write"))));
        OidcAuthenticator.Verified v = verify("preferred_username", "realm_access.roles", token);
        assertThat(v.principal()).isEqualTo("service-account-spark");
        assertThat(v.access()).isEqualTo(AuthToken.Access.READ_WRITE);
    }

    @Test
    void aClaimWhoseNameHoldsDotsIsReadByItsName() throws Exception {
        String token = idp.mint(idp.signingKey(), c -> c.subject("auth0|42").claim("https://lake.example.com/roles", List.of("lake-admin")));
        OidcAuthenticator.Verified v = verify("sub", "https://lake.example.com/roles", token);
        assertThat(v.principal()).isEqualTo("auth0|42");
        assertThat(v.access()).isEqualTo(AuthToken.Access.ADMIN);
    }

    @Test
    void rolesAsOneSpaceSeparatedStringAreRead() throws Exception {
        String token = idp.mint(idp.signingKey(), c -> c.subject("reader").claim("scope", "openid lake-read profile"));
        assertThat(verify("sub", "scope", token).access()).isEqualTo(AuthToken.Access.READ);
    }
}
