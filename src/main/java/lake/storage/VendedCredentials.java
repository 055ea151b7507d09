package lake.storage;

import java.util.Map;

/** One vended S3 credential for one location, as Iceberg's REST spec hands it to engines. */
public record VendedCredentials(S3Location location, boolean write, String accessKeyId, String secretAccessKey, String sessionToken,
                                long expiresAtMs) {
    public VendedCredentials {
        if (accessKeyId == null || secretAccessKey == null || sessionToken == null) throw new IllegalArgumentException("STS answered without a whole credential");
    }

    /** The FileIO properties Iceberg's S3FileIO reads ({@code s3.*}, with the expiry its refresh uses). */
    public Map<String, String> config() {
        return Map.of("s3.access-key-id", accessKeyId, "s3.secret-access-key", secretAccessKey, "s3.session-token", sessionToken,
                "s3.session-token-expires-at-ms", Long.toString(expiresAtMs));
    }

    @Override
    public String toString() {
        // Never the secret or the token: this may reach a log.
        return "VendedCredentials[" + location.uri() + (write ? " read-write" : " read-only") + " " + accessKeyId + " until " + expiresAtMs + "]";
    }
}
