package lake.config.access;

import java.net.URI;

/**
 * Storage access handed to engines (docs/iceberg.md, "Storage access"): short-lived S3 credentials
 * from STS {@code AssumeRole}, each limited by a session policy to one table's location.
 *
 * @param roleArn         the role assumed for every vended credential ({@code null}: no vending)
 * @param region          the STS region (also the region engines are told)
 * @param stsEndpoint     STS endpoint for an S3-compatible deployment ({@code null}: the SDK's for the region)
 * @param durationSeconds how long each credential lives; AWS accepts 900 to the role's maximum
 *                        session (43200 at most), S3-compatible services often less
 * @param remoteSigning   whether engines may have their S3 requests signed by the catalog (with the
 *                        node's own credentials) instead of holding keys; {@code region} is the signing region
 */
public record StorageAccessSettings(String roleArn, String region, URI stsEndpoint, int durationSeconds, boolean remoteSigning) {
    /** No vending, no signing: engines bring their own keys. */
    public static final StorageAccessSettings NONE = new StorageAccessSettings(null, "us-east-1", null, 3600, false);

    /** Vending only. */
    public StorageAccessSettings(String roleArn, String region, URI stsEndpoint, int durationSeconds) {
        this(roleArn, region, stsEndpoint, durationSeconds, false);
    }

    public StorageAccessSettings {
        if (roleArn != null && !roleArn.matches("arn:[a-z0-9-]+:iam::\\d{12}:role/[\\w+=,.@/-]{1,512}")) {
            throw new IllegalArgumentException("iceberg-vending-role-arn: '" + roleArn + "' is not an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)");
        }
        if (region == null || !region.matches("[a-z0-9-]{2,32}")) {
            throw new IllegalArgumentException("iceberg-s3-region: '" + region + "' is not a region name such as us-east-1");
        }
        if (stsEndpoint != null && (stsEndpoint.getHost() == null || !("https".equals(stsEndpoint.getScheme()) || "http".equals(stsEndpoint.getScheme())))) {
            throw new IllegalArgumentException("iceberg-sts-endpoint: '" + stsEndpoint + "' is not an http(s) URL");
        }
        if (durationSeconds < 1 || durationSeconds > 43_200) {
            throw new IllegalArgumentException("iceberg-vending-duration-s: must be 1 to 43200, got " + durationSeconds);
        }
    }

    public boolean vending() {
        return roleArn != null;
    }
}
