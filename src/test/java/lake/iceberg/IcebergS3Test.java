package lake.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import lake.config.Settings;
import lake.meta.dynamo.MotoServer;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** An {@code s3://} warehouse through Iceberg's S3FileIO, against moto's S3 (the same moto server as the DynamoDB tests). */
class IcebergS3Test {
    @TempDir Path dir;

    @Test
    void s3WarehouseOnMoto() throws Exception {
        String endpoint = MotoServer.endpoint().toString();
        String bucket = "lake-iceberg-" + ProcessHandle.current().pid();
        try (S3Client s3 = S3Client.builder().endpointOverride(java.net.URI.create(endpoint)).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
            s3.createBucket(b -> b.bucket(bucket));
            // The node's S3FileIO takes its credentials from the SDK's default chain, as in production.
            Map<String, String> props = Map.of("aws.accessKeyId", "test", "aws.secretAccessKey", "test", "aws.region", "us-east-1");
            props.forEach(System::setProperty);
            try (NodeHarness h = new NodeHarness()) {
                Settings s = NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> {
                    f.catalogRoot = "s3://" + bucket + "/warehouse";
                    f.icebergS3Endpoint = endpoint;
                    f.lifecycle = NodeHarness.PURGING;
                });
                MetasrvNode node = h.deploy(s, new ManualClock(1_700_000_000_000L),
                        v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
                assertThat(h.campaign(node).isLeader()).isTrue();
                int port = node.httpPort();

                JsonNode created = Rest.createTable(port, "robots", "episodes");
                String first = created.get("metadata-location").asText();
                String tableDir = created.at("/metadata/location").asText().substring(("s3://" + bucket + "/").length());
                assertThat(tableDir).as("the directory the catalog assigned").matches("warehouse/robots/episodes/[0-9a-f-]{36}");
                assertThat(first).startsWith("s3://" + bucket + "/" + tableDir + "/metadata/");
                HttpResponse<String> commit = Rest.post(port, "/v1/namespaces/robots/tables/episodes", Rest.setProperty("owner", "lab"));
                assertThat(commit.statusCode()).as(commit.body()).isEqualTo(200);
                String second = Rest.json(commit).get("metadata-location").asText();

                List<String> keys = s3.listObjectsV2(b -> b.bucket(bucket).prefix(tableDir + "/metadata/"))
                        .contents().stream().map(S3Object::key).toList();
                assertThat(keys).as("both metadata files are objects in the bucket")
                        .contains(first.substring(("s3://" + bucket + "/").length()), second.substring(("s3://" + bucket + "/").length()));
                JsonNode loaded = Rest.json(Rest.get(port, "/v1/namespaces/robots/tables/episodes"));
                assertThat(loaded.at("/metadata/properties/owner").asText()).isEqualTo("lab");

                HttpResponse<String> purged = Rest.call(port, "DELETE", "/v1/namespaces/robots/tables/episodes?purgeRequested=true", null, Map.of());
                assertThat(purged.statusCode()).as(purged.body()).isEqualTo(204);
                org.awaitility.Awaitility.await("the purge worker deletes the table's files").atMost(java.time.Duration.ofSeconds(30))
                        .until(() -> s3.listObjectsV2(b -> b.bucket(bucket).prefix(tableDir + "/")).contents().isEmpty());
            } finally {
                props.keySet().forEach(System::clearProperty);
            }
        }
    }
}
