package lake.iceberg;

import lake.meta.dynamo.MotoServer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A moto of its own with IAM enforced after its setup ({@code INITIAL_NO_AUTH_ACTION_COUNT}), behind
 * an {@link AwsGate}: a bucket, the node's IAM user (full rights: its own S3 access and
 * {@code sts:AssumeRole}), and the vending role, which trusts that user and whose own policy reaches
 * only the given prefixes of the bucket (moto ignores session policies: the role's policy stands
 * in for them). The node's identity is set as the JVM's {@code aws.*} properties (the SDK's
 * default chain, as in production) until {@link #close}.
 */
public final class IamMoto implements AutoCloseable {
    public static final String ROLE = "arn:aws:iam::123456789012:role/lake-vended";

    public final String bucket;
    public final AwsBasicCredentials serverKeys;
    private final MotoServer.Own moto;
    final AwsGate gate;
    private final Map<String, String> props;

    /** @param rolePrefixes key prefixes (each ending in '/') the vending role's own policy allows */
    public IamMoto(String bucket, List<String> rolePrefixes) throws Exception {
        this.bucket = bucket;
        // Six requests go unchecked (the setup below, as moto's root); every later one must be signed by an IAM identity.
        moto = MotoServer.own(Map.of("INITIAL_NO_AUTH_ACTION_COUNT", "6"));
        gate = new AwsGate(moto.endpoint());
        var root = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
        String objects = rolePrefixes.stream().map(p -> "\"arn:aws:s3:::" + bucket + "/" + p + "*\"").collect(Collectors.joining(","));
        try (IamClient iam = IamClient.builder().endpointOverride(moto.endpoint()).region(Region.AWS_GLOBAL).credentialsProvider(root)
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
            iam.createUser(b -> b.userName("lake-server"));
            iam.putUserPolicy(b -> b.userName("lake-server").policyName("all").policyDocument(
                    "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"*\",\"Resource\":\"*\"}]}"));
            var key = iam.createAccessKey(b -> b.userName("lake-server")).accessKey();
            serverKeys = AwsBasicCredentials.create(key.accessKeyId(), key.secretAccessKey());
            iam.createRole(b -> b.roleName("lake-vended").assumeRolePolicyDocument("{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
                    + "\"Principal\":{\"AWS\":\"arn:aws:iam::123456789012:user/lake-server\"},\"Action\":\"sts:AssumeRole\"}]}"));
            iam.putRolePolicy(b -> b.roleName("lake-vended").policyName("stand-in").policyDocument("{\"Version\":\"2012-10-17\",\"Statement\":["
                    + "{\"Effect\":\"Allow\",\"Action\":[\"s3:GetObject\",\"s3:PutObject\",\"s3:DeleteObject\"],\"Resource\":[" + objects + "]},"
                    + "{\"Effect\":\"Allow\",\"Action\":\"s3:ListBucket\",\"Resource\":\"arn:aws:s3:::" + bucket + "\"}]}"));
        }
        try (S3Client s3 = s3(moto.endpoint(), root)) {
            s3.createBucket(b -> b.bucket(bucket));
        }
        props = Map.of("aws.accessKeyId", serverKeys.accessKeyId(), "aws.secretAccessKey", serverKeys.secretAccessKey(), "aws.region", "us-east-1");
        props.forEach(System::setProperty);
    }

    /** moto itself (IAM enforced, no expiry of session tokens). */
    public URI motoEndpoint() {
        return moto.endpoint();
    }

    /** The gate in front of moto: what the node and engines are pointed at. */
    public URI endpoint() {
        return gate.endpoint();
    }

    /** The access key ids of every credential STS vended, in order. */
    public List<String> assumed() {
        return gate.assumed.stream().map(AwsGate.Assumed::accessKeyId).toList();
    }

    /** Every S3 request the gate saw, in order. */
    public List<AwsGate.S3Request> s3Requests() {
        return List.copyOf(gate.s3);
    }

    /** An S3 client of moto with {@code credentials}; checksums only when required (moto does not verify the SDK's signed chunked uploads). */
    public static S3Client s3(URI endpoint, AwsCredentialsProvider credentials) {
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true).credentialsProvider(credentials)
                .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build();
    }

    @Override
    public void close() throws Exception {
        props.keySet().forEach(System::clearProperty);
        gate.close();
        moto.close();
    }
}
