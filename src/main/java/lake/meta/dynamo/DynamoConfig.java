package lake.meta.dynamo;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where and how a {@link DynamoMetaStore} reaches its table.
 *
 * @param endpointOverride  the endpoint to call instead of the region's (a local test server); empty for AWS
 * @param region            the AWS region the client signs for
 * @param tableName         the table holding every entry (see {@link DynamoLayout})
 * @param credentials       static credentials; empty means the SDK's default provider chain
 * @param createTable       create the table (on-demand billing) when it does not exist
 * @param readinessChecks   how many DescribeTable calls to make, at most, before giving up on ACTIVE
 * @param readinessInterval the pause between two readiness checks
 * @param apiCallTimeout    the bound on one API call, all SDK retries included
 */
public record DynamoConfig(Optional<URI> endpointOverride, String region, String tableName,
                           Optional<StaticCredentials> credentials, boolean createTable,
                           int readinessChecks, Duration readinessInterval, Duration apiCallTimeout) {

    // DynamoDB's own rule for table names.
    private static final Pattern TABLE_NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");

    /** An access key pair given in configuration; the secret never appears in {@link #toString()}. */
    public record StaticCredentials(String accessKeyId, String secretAccessKey) {
        public StaticCredentials {
            if (accessKeyId == null || accessKeyId.isBlank()) throw new IllegalArgumentException("accessKeyId is required");
            if (secretAccessKey == null || secretAccessKey.isBlank()) throw new IllegalArgumentException("secretAccessKey is required");
        }

        @Override public String toString() { return "StaticCredentials[" + accessKeyId + ", ****]"; }
    }

    public DynamoConfig {
        Objects.requireNonNull(endpointOverride, "endpointOverride");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(readinessInterval, "readinessInterval");
        Objects.requireNonNull(apiCallTimeout, "apiCallTimeout");
        if (region == null || region.isBlank()) throw new IllegalArgumentException("region is required");
        if (tableName == null || !TABLE_NAME.matcher(tableName).matches()) {
            throw new IllegalArgumentException("table name '" + tableName + "' is not a valid DynamoDB table name");
        }
        if (readinessChecks < 1) throw new IllegalArgumentException("readinessChecks must be at least 1");
        if (readinessInterval.isNegative()) throw new IllegalArgumentException("readinessInterval must not be negative");
        if (apiCallTimeout.isNegative() || apiCallTimeout.isZero()) throw new IllegalArgumentException("apiCallTimeout must be positive");
    }

    /** AWS defaults: the region's endpoint, the default credential chain, an existing table. */
    public static DynamoConfig of(String region, String tableName) {
        return new DynamoConfig(Optional.empty(), region, tableName, Optional.empty(), false,
                30, Duration.ofSeconds(2), Duration.ofSeconds(10));
    }

    public DynamoConfig withEndpoint(URI endpoint) {
        return new DynamoConfig(Optional.of(endpoint), region, tableName, credentials, createTable,
                readinessChecks, readinessInterval, apiCallTimeout);
    }

    public DynamoConfig withCredentials(StaticCredentials staticCredentials) {
        return new DynamoConfig(endpointOverride, region, tableName, Optional.of(staticCredentials), createTable,
                readinessChecks, readinessInterval, apiCallTimeout);
    }

    public DynamoConfig withCreateTable(boolean create) {
        return new DynamoConfig(endpointOverride, region, tableName, credentials, create,
                readinessChecks, readinessInterval, apiCallTimeout);
    }

    public DynamoConfig withReadiness(int checks, Duration interval) {
        return new DynamoConfig(endpointOverride, region, tableName, credentials, createTable,
                checks, interval, apiCallTimeout);
    }

    public DynamoConfig withTableName(String name) {
        return new DynamoConfig(endpointOverride, region, name, credentials, createTable,
                readinessChecks, readinessInterval, apiCallTimeout);
    }
}
