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
        onS3("lake-orphans-", (s3, bucket, endpoint, clock, port, root) -> {

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
        });
    }

    /**
     * Hadoop's S3A spelling: an engine on s3a:// commits a data file as {@code s3a://bucket/key},
     * while the warehouse's listing returns that object as {@code s3://bucket/key}. The sweep
     * compares them as one file: it never reports or deletes the s3a-named file, and it does report
     * (and delete) an unreferenced file beside it, so the sweep did look at that directory. The
     * table still plans the file, which is still there.
     */
    @Test
    void dataFileReferencedAsS3aIsNotAnOrphanOfItsS3Listing() throws Exception {
        onS3("lake-orphans-s3a-", (s3, bucket, endpoint, clock, port, root) -> {

            org.apache.iceberg.catalog.TableIdentifier id = org.apache.iceberg.catalog.TableIdentifier.of("robots", "episodes");
            try (org.apache.iceberg.rest.RESTCatalog engine = engine(port, endpoint)) {
                engine.createNamespace(org.apache.iceberg.catalog.Namespace.of("robots"));
                org.apache.iceberg.Table t = engine.createTable(id, OrphanSweepContract.SCHEMA);
                String tableDir = t.location().substring(root.length());
                String namedKey = tableDir + "/data/part-s3a.parquet";
                String strayKey = tableDir + "/data/failed-write.parquet";
                s3.putObject(b -> b.bucket(bucket).key(namedKey), RequestBody.fromBytes(new byte[] {1, 2, 3}));
                s3.putObject(b -> b.bucket(bucket).key(strayKey), RequestBody.fromBytes(new byte[] {1, 2, 3}));
                String s3a = "s3a://" + bucket + "/" + namedKey;
                t.newFastAppend().appendFile(org.apache.iceberg.DataFiles.builder(org.apache.iceberg.PartitionSpec.unpartitioned())
                        .withPath(s3a).withFormat(org.apache.iceberg.FileFormat.PARQUET).withFileSizeInBytes(3).withRecordCount(1).build()).commit();
                String nameDir = tableDir.substring(0, tableDir.lastIndexOf('/') + 1);
                assertThat(keys(s3, bucket, nameDir)).as("the listing spells the committed file s3://").contains(namedKey);

                clock.advanceWall(4L * 24 * 3600 * 1000);
                String route = "/iceberg/management/v1/namespaces/robots/tables/episodes/orphan-files";
                JsonNode dryRun = json(post(port, route, "{}"));
                assertThat(OrphanSweepContract.reported(dryRun)).as("only the file nothing names; the s3a-named one is referenced")
                        .containsExactlyEntriesOf(Map.of(root + strayKey, "unreferenced-file"));

                JsonNode deleting = json(post(port, route, "{\"delete\":true}"));
                assertThat(deleting.get("deleted").asInt()).isEqualTo(1);
                assertThat(keys(s3, bucket, nameDir)).as("the s3a-named file stays, the stray one is gone")
                        .contains(namedKey).doesNotContain(strayKey);
                List<String> planned = new java.util.ArrayList<>();
                try (var tasks = engine.loadTable(id).newScan().planFiles()) {
                    tasks.forEach(task -> planned.add(task.file().location()));
                }
                assertThat(planned).as("the table still plans it, by the name it was committed under").containsExactly(s3a);
            }
        });
    }

    /** An engine's catalog client on the node at {@code port}, its files on moto's S3 through Iceberg's S3FileIO. */
    private static org.apache.iceberg.rest.RESTCatalog engine(int port, String endpoint) {
        org.apache.iceberg.rest.RESTCatalog c = new org.apache.iceberg.rest.RESTCatalog();
        c.setConf(new org.apache.hadoop.conf.Configuration());
        c.initialize("engine", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg", "io-impl", "org.apache.iceberg.aws.s3.S3FileIO",
                "s3.endpoint", endpoint, "s3.path-style-access", "true", "s3.access-key-id", "test", "s3.secret-access-key", "test",
                "client.region", "us-east-1", "http-client.type", "urlconnection"));
        return c;
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

    /** What a test does with a leader over RocksDB whose warehouse is a fresh bucket on moto S3. */
    @FunctionalInterface
    interface OnS3 {
        void run(S3Client s3, String bucket, String endpoint, ManualClock clock, int port, String root) throws Exception;
    }

    /** Runs {@code test} against a leader whose warehouse is {@code s3://<prefix><pid>/warehouse} on moto. */
    private void onS3(String prefix, OnS3 test) throws Exception {
        String endpoint = MotoServer.endpoint().toString();
        String bucket = prefix + ProcessHandle.current().pid();
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
                test.run(s3, bucket, endpoint, clock, node.httpPort(), "s3://" + bucket + "/");
            } finally {
                props.keySet().forEach(System::clearProperty);
            }
        }
    }
}
