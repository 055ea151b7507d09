package lake.bench;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import lake.oidc.TestIdp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Date;
import java.util.List;

/**
 * The identity provider of the OIDC benchmark rows (scripts/bench/iceberg-access): writes a JWK
 * set ({@code jwks.json}, served by any static file server at {@code ISSUER/jwks.json}) and one
 * token for {@code SUBJECT} with the write role, valid a day ({@code token.txt}), into {@code DIR}.
 * Usage: {@code BenchIdp DIR ISSUER SUBJECT}
 */
public final class BenchIdp {
    private BenchIdp() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        RSAKey key = new RSAKeyGenerator(2048).keyID("bench").keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256).generate();
        Files.writeString(dir.resolve("jwks.json"), new JWKSet(key.toPublicJWK()).toString(true));
        long now = System.currentTimeMillis();
        Files.writeString(dir.resolve("token.txt"), TestIdp.sign(key, new JWTClaimsSet.Builder().issuer(args[1]).audience(TestIdp.AUDIENCE)
                .subject(args[2]).claim("roles", List.of("lake-write")).issueTime(new Date(now))
                .expirationTime(new Date(now + Duration.ofDays(1).toMillis())).build()));
    }
}
