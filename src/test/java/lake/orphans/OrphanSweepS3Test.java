package lake.orphans;

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
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The orphan sweep on an {@code s3://} warehouse (Iceberg's S3FileIO, which lists by prefix), against moto's S3. */
class OrphanSweepS3Test {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final String TABLE = "{\"name\":\"episodes\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
            + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]},\"properties\":{\"format-version\":\"2\"}";

    @TempDir Path dir;

    @Test
    void orphanSweepOnS3ReportsAndDeletesOnlyTheOrphans() throws Exception {
        String endpoint = MotoServer.endpoint().toString();
        String bucket = "lake-orphans-" + ProcessHandle.current().pid();
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
            s3.createBucket(b -> b.bucket(bucket));
            Map<String, String> props = Map.of("aws.accessKeyId", "test", "aws.secretAccessKey", "test", "aws.region", "us-east-1");
            props.forEach(System::setProperty);
            try (NodeHarness h = new NodeHarness()) {
                Settings s = NodeHarness.settings("a", dir, 10_000, 0, 1_000).with(f -> {
                    f.catalogRoot = "s3://" + bucket + "/warehouse";
                    f.icebergS3Endpoint = endpoint;
                });
                // Moto stamps objects with the real time: the node's clock starts there.
                ManualClock clock = new ManualClock(System.currentTimeMillis());
                MetasrvNode node = h.deploy(s, clock, v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
                assertThat(h.campaign(node).isLeader()).isTrue();
                int port = node.httpPort();
                String root = "s3://" + bucket + "/";

                post(port, "/iceberg/v1/namespaces", "{\"namespace\":[\"robots\"]}");
                // An engine stage-creates robots.episodes, writes a data file there, and never commits.
                HttpResponse<String> staged = post(port, "/iceberg/v1/namespaces/robots/tables", TABLE + ",\"stage-create\":true}");
                assertThat(staged.statusCode()).as(staged.body()).isEqualTo(200);
                String stagedKey = json(staged).at("/metadata/location").asText().substring(root.length()) + "/data/abandoned.parquet";
                s3.putObject(b -> b.bucket(bucket).key(stagedKey), RequestBody.fromBytes(new byte[] {1, 2, 3}));

                HttpResponse<String> created = post(port, "/iceberg/v1/namespaces/robots/tables", TABLE + "}");
                assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
                String tableDir = json(created).at("/metadata/location").asText().substring(root.length());
                HttpResponse<String> commit = post(port, "/iceberg/v1/namespaces/robots/tables/episodes",
                        "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"owner\":\"lab\"}}]}");
                assertThat(commit.statusCode()).as(commit.body()).isEqualTo(200);
                // A stale leader's metadata file: written, its pointer swap never applied.
                String staleKey = tableDir + "/metadata/00099-" + UUID.randomUUID() + ".metadata.json";
                s3.putObject(b -> b.bucket(bucket).key(staleKey), RequestBody.fromString("{}"));
                String nameDir = tableDir.substring(0, tableDir.lastIndexOf('/') + 1);
                List<String> before = keys(s3, bucket, nameDir);
                assertThat(before).hasSize(4);

                clock.advanceWall(4L * 24 * 3600 * 1000);
                String route = "/iceberg/management/v1/namespaces/robots/tables/episodes/orphan-files";
                JsonNode dryRun = json(post(port, route, "{}"));
                assertThat(OrphanSweepContract.reported(dryRun)).containsExactlyInAnyOrderEntriesOf(Map.of(
                        root + staleKey, "stale-metadata", root + stagedKey, "abandoned-create"));
                assertThat(dryRun.get("scanned").asInt()).isEqualTo(4);
                assertThat(keys(s3, bucket, nameDir)).as("a dry run deletes nothing").isEqualTo(before);

                HttpResponse<String> deleting = post(port, route, "{\"delete\":true}");
                assertThat(deleting.statusCode()).as(deleting.body()).isEqualTo(200);
                assertThat(json(deleting).get("deleted").asInt()).isEqualTo(2);
                assertThat(keys(s3, bucket, nameDir)).as("the table's two metadata files are left, nothing else")
                        .hasSize(2).allMatch(k -> k.startsWith(tableDir + "/metadata/") && !k.equals(staleKey));
                HttpResponse<String> loaded = get(port, "/iceberg/v1/namespaces/robots/tables/episodes");
                assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);
                assertThat(json(loaded).at("/metadata/properties/owner").asText()).isEqualTo("lab");
            } finally {
                props.keySet().forEach(System::clearProperty);
            }
        }
    }

    private static List<String> keys(S3Client s3, String bucket, String prefix) {
        return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream().map(S3Object::key).sorted().toList();
    }

    private static HttpResponse<String> post(int port, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return OrphanSweepContract.JSON.readTree(r.body());
    }
}
