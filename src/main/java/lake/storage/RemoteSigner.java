package lake.storage;

import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The S3 remote signer (docs/iceberg.md, "Storage access"): signs, with SigV4 and the node's own
 * credentials (the SDK's default chain), exactly the requests {@link SignCheck} allows for a
 * table, and refuses the rest with the reason. Payloads are unsigned (the engine streams them
 * after signing), except a batch delete's, whose body the check read and whose hash is signed.
 */
public final class RemoteSigner implements AutoCloseable {
    /** Headers the signer sets itself; Host from the uri (a Host the check let through equals it). */
    private static final List<String> REPLACED = List.of("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256", "host");

    private final SignCheck.Target target;
    private final AwsCredentialsProvider credentials;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    public RemoteSigner(SignCheck.Target target, AwsCredentialsProvider credentials) {
        this.target = target;
        this.credentials = credentials;
    }

    /** A signer with the node's credentials from the SDK's default chain. */
    public static RemoteSigner create(SignCheck.Target target) {
        return new RemoteSigner(target, DefaultCredentialsProvider.builder().build());
    }

    public SignCheck.Target target() {
        return target;
    }

    /** The outcome: the headers to send, or why the request is not signed. */
    public sealed interface Outcome {
        record Signed(Map<String, List<String>> headers) implements Outcome {}

        record Refused(String reason) implements Outcome {}
    }

    public Outcome sign(S3Location table, boolean write, SignCheck.Request r) {
        Optional<String> refused = SignCheck.refusal(target, table, write, r);
        if (refused.isPresent()) return new Outcome.Refused(refused.get());
        SdkHttpRequest.Builder request = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(r.method())).uri(r.uri());
        if (r.headers() != null) {
            r.headers().forEach((name, values) -> {
                if (!REPLACED.contains(name.toLowerCase(Locale.ROOT))) request.putHeader(name, values);
            });
        }
        // The operation the check recognised, not a guess at the raw query: a batch delete's body is signed.
        boolean signsBody = SignCheck.batchDelete(r);
        AwsCredentialsIdentity identity = credentials.resolveCredentials();
        SignedRequest signed = signer.sign(s -> {
            s.identity(identity).request(request.build())
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, target.region())
                    .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                    .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                    .putProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, false)
                    .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, signsBody);
            if (signsBody) s.payload(ContentStreamProvider.fromString(r.body(), java.nio.charset.StandardCharsets.UTF_8));
        });
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(signed.request().headers());
        return new Outcome.Signed(headers);
    }

    @Override
    public void close() {
        if (credentials instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // Closing the node's credential provider: nothing to hand back to.
            }
        }
    }
}
