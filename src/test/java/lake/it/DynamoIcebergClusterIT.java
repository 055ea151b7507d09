package lake.it;

import lake.meta.dynamo.MotoServer;
import org.junit.jupiter.api.AfterEach;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The dropped table's life across a leader's SIGKILL ({@link IcebergLifecycleClusterContract}) on
 * DynamoDB: every node its own DynamoDB client to one table on moto, and the warehouse an
 * {@code s3://} bucket on the same moto (each node's Iceberg S3FileIO reaching it through
 * {@code --iceberg-s3-endpoint}), its files counted by listing the bucket.
 */
class DynamoIcebergClusterIT extends IcebergLifecycleClusterContract {
    private S3Client s3;
    private String bucket;

    @AfterEach
    void closeS3() {
        if (s3 != null) s3.close();
    }

    @Override
    protected List<List<String>> storeArgs() throws Exception {
        List<String> dynamo = List.of("--store", "dynamo", "--dynamo-endpoint", MotoServer.endpoint().toString(),
                "--dynamo-region", MotoServer.REGION, "--dynamo-table", MotoServer.createFreshTable());
        return List.of(dynamo, dynamo, dynamo);
    }

    @Override
    protected Map<String, String> env() {
        // The nodes' S3FileIO and DynamoDB clients take their credentials from the SDK's default chain, as in production.
        return Map.of("AWS_ACCESS_KEY_ID", MotoServer.CREDENTIALS.accessKeyId(), "AWS_SECRET_ACCESS_KEY", MotoServer.CREDENTIALS.secretAccessKey(),
                "AWS_REGION", MotoServer.REGION);
    }

    @Override
    protected String storeHost() {
        return null;
    }

    @Override
    protected List<String> warehouseArgs() {
        s3 = S3Client.builder().endpointOverride(MotoServer.endpoint()).region(Region.of(MotoServer.REGION)).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(MotoServer.CREDENTIALS.accessKeyId(),
                        MotoServer.CREDENTIALS.secretAccessKey())))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build();
        bucket = "lake-cluster-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        s3.createBucket(b -> b.bucket(bucket));
        return List.of("--catalog-root", "s3://" + bucket + "/warehouse", "--iceberg-s3-endpoint", MotoServer.endpoint().toString());
    }

    /** Iceberg's S3FileIO on moto, as an engine on S3 writes. */
    @Override
    protected Map<String, String> engineOptions() {
        return Map.of("io-impl", "org.apache.iceberg.aws.s3.S3FileIO", "s3.endpoint", MotoServer.endpoint().toString(),
                "s3.path-style-access", "true", "s3.access-key-id", MotoServer.CREDENTIALS.accessKeyId(),
                "s3.secret-access-key", MotoServer.CREDENTIALS.secretAccessKey(), "client.region", MotoServer.REGION,
                "http-client.type", "urlconnection");
    }

    /** The bucket's objects under {@code location} (ListObjectsV2, every page), as {@code s3://} locations in key order. */
    @Override
    protected List<String> filesUnder(String location) {
        String rest = location.substring("s3://".length());
        String b = rest.substring(0, rest.indexOf('/'));
        String prefix = rest.substring(b.length() + 1) + "/";
        List<String> out = new ArrayList<>();
        for (S3Object o : s3.listObjectsV2Paginator(r -> r.bucket(b).prefix(prefix)).contents()) out.add("s3://" + b + "/" + o.key());
        out.sort(null);
        return out;
    }
}
