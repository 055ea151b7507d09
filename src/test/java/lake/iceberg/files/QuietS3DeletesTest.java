package lake.iceberg.files;

import lake.iceberg.IamMoto;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.sts.StsClient;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The purge's quiet {@code DeleteObjects} against moto with IAM enforced: the node's own keys
 * delete every key (more than one call's thousand, so the split is exercised; a location's key
 * read as S3FileIO reads it, up to a {@code ?} or {@code #}); keys the store
 * refuses one by one (a role that may not delete them) are counted as failed, and stay.
 */
class QuietS3DeletesTest {
    @Test
    void deletesEveryKeyAndCountsTheKeysTheStoreRefused() throws Exception {
        String bucket = "lake-quiet-" + ProcessHandle.current().pid();
        try (IamMoto aws = new IamMoto(bucket, List.of("theirs/"))) {
            StaticCredentialsProvider server = StaticCredentialsProvider.create(aws.serverKeys);
            List<String> mine = IntStream.range(0, 1_003).mapToObj(i -> "s3://" + bucket + "/t/data/f-" + String.format("%04d", i)).toList();
            List<String> kept = IntStream.range(0, 3).mapToObj(i -> "s3://" + bucket + "/t/kept/k-" + i).toList();
            String queried = "s3://" + bucket + "/t/q/obj";
            try (S3Client s3 = IamMoto.s3(aws.motoEndpoint(), server)) {
                List<String> all = new ArrayList<>(mine);
                all.addAll(kept);
                all.add(queried);
                for (String p : all) s3.putObject(b -> b.bucket(bucket).key(p.substring(("s3://" + bucket + "/").length())), RequestBody.fromBytes(new byte[] {1}));

                FileIO asServer = QuietS3Deletes.of(new S3FileIO(() -> IamMoto.s3(aws.motoEndpoint(), server)));
                assertThat(asServer).isInstanceOf(SupportsBulkOperations.class);
                List<String> named = new ArrayList<>(mine);
                named.add(queried + "?versionId=1#x"); // S3FileIO reads a location's key up to '?' or '#'
                ((SupportsBulkOperations) asServer).deleteFiles(named);
                assertThat(keys(s3, bucket, "t/")).as("every key of the two calls gone, the others kept").containsExactly("t/kept/k-0", "t/kept/k-1", "t/kept/k-2");

                // The vending role may delete under theirs/ only: moto refuses each key of t/kept/.
                var role = StsClient.builder().endpointOverride(aws.motoEndpoint()).region(Region.US_EAST_1).credentialsProvider(server)
                        .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()
                        .assumeRole(b -> b.roleArn(IamMoto.ROLE).roleSessionName("quiet")).credentials();
                StaticCredentialsProvider limited = StaticCredentialsProvider.create(
                        AwsSessionCredentials.create(role.accessKeyId(), role.secretAccessKey(), role.sessionToken()));
                FileIO asRole = QuietS3Deletes.of(new S3FileIO(() -> IamMoto.s3(aws.motoEndpoint(), limited)));
                BulkDeletionFailureException refused = catchThrowableOfType(() -> ((SupportsBulkOperations) asRole).deleteFiles(kept),
                        BulkDeletionFailureException.class);
                assertThat(refused).as("the refused keys are a failure, not a success").isNotNull();
                assertThat(refused.numberFailedObjects()).isEqualTo(3);
                assertThat(keys(s3, bucket, "t/")).as("refused keys stay").hasSize(3);
            }
        }
    }

    @Test
    void leavesAFileIoThatIsNotS3sAsItIs() {
        FileIO local = new NioFileIO();
        assertThat(QuietS3Deletes.of(local)).isSameAs(local);
    }

    private static List<String> keys(S3Client s3, String bucket, String prefix) {
        return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream().map(S3Object::key).toList();
    }
}
