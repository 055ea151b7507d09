package lake.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import lake.config.AuthTokens;
import lake.config.access.AuthToken;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;
import lake.config.access.StorageAccessSettings;
import lake.meta.dynamo.MotoServer;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Vended credentials (issue 38) against moto with IAM enforced ({@code INITIAL_NO_AUTH_ACTION_COUNT}),
 * behind {@link AwsGate}, which records each {@code AssumeRole} and refuses expired session tokens.
 *
 * <p>moto enforces the assumed role's own policy but ignores the session policy of
 * {@code AssumeRole} (checked with moto 5.2.1). So the role here stands in for the session policy:
 * its own policy reaches only {@code ns/t1} (and {@code ns/job}, the table of the refresh test), which shows that the credentials moto hands out are
 * refused another table's objects; that the node asks for exactly that scope is asserted on the
 * session policy the gate recorded. On AWS the session policy itself does the limiting.
 */
class StorageAccessTest {
    static final String ROLE = "arn:aws:iam::123456789012:role/lake-vended";
    static final String BUCKET = "lake-vend-" + ProcessHandle.current().pid();
    static final String ADMIN = "admin-token-0123456789";
    static final String WRITER = "writer-token-0123456789";
    static final String READER = "reader-token-0123456789";
    static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

    static MotoServer.Own moto;
    static AwsGate gate;
    static AwsBasicCredentials serverKeys;
    static final Map<String, String> SERVER_PROPS = new java.util.HashMap<>();

    @TempDir Path dir;

    @BeforeAll
    static void iam() throws Exception {
        // Six requests go unchecked (the setup below, as moto's root); every later one must be signed by an IAM identity.
        moto = MotoServer.own(Map.of("INITIAL_NO_AUTH_ACTION_COUNT", "6"));
        gate = new AwsGate(moto.endpoint());
        var root = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
        try (IamClient iam = IamClient.builder().endpointOverride(moto.endpoint()).region(Region.AWS_GLOBAL).credentialsProvider(root)
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
            iam.createUser(b -> b.userName("lake-server"));
            iam.putUserPolicy(b -> b.userName("lake-server").policyName("all").policyDocument(
                    "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"*\",\"Resource\":\"*\"}]}"));
            var key = iam.createAccessKey(b -> b.userName("lake-server")).accessKey();
            serverKeys = AwsBasicCredentials.create(key.accessKeyId(), key.secretAccessKey());
            iam.createRole(b -> b.roleName("lake-vended").assumeRolePolicyDocument("{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
                    + "\"Principal\":{\"AWS\":\"arn:aws:iam::123456789012:user/lake-server\"},\"Action\":\"sts:AssumeRole\"}]}"));
            iam.putRolePolicy(b -> b.roleName("lake-vended").policyName("t1-and-job-only").policyDocument("{\"Version\":\"2012-10-17\",\"Statement\":["
                    + "{\"Effect\":\"Allow\",\"Action\":[\"s3:GetObject\",\"s3:PutObject\",\"s3:DeleteObject\"],\"Resource\":[\"arn:aws:s3:::" + BUCKET + "/whouse/ns/t1/*\",\"arn:aws:s3:::" + BUCKET + "/whouse/ns/job/*\"]},"
                    + "{\"Effect\":\"Allow\",\"Action\":\"s3:ListBucket\",\"Resource\":\"arn:aws:s3:::" + BUCKET + "\"}]}"));
        }
        try (S3Client s3 = s3(moto.endpoint(), root)) {
            s3.createBucket(b -> b.bucket(BUCKET));
        }
        // The node's own S3 access takes the SDK's default chain, as in production: the server user's keys.
        SERVER_PROPS.putAll(Map.of("aws.accessKeyId", serverKeys.accessKeyId(), "aws.secretAccessKey", serverKeys.secretAccessKey(), "aws.region", "us-east-1"));
        SERVER_PROPS.forEach(System::setProperty);
    }

    @AfterAll
    static void stop() throws Exception {
        SERVER_PROPS.keySet().forEach(System::clearProperty);
        if (gate != null) gate.close();
        if (moto != null) moto.close();
    }

    static S3Client s3(URI endpoint, AwsCredentialsProvider credentials) {
        // Checksums only when an operation requires them: moto does not verify the SDK's signed chunked uploads.
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true).credentialsProvider(credentials)
                .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build();
    }

    MetasrvNode node(NodeHarness h, String name, int durationSeconds, List<AuthToken> tokens) throws Exception {
        var s = NodeHarness.settings(name, dir.resolve(name), 10_000, 0, 1_000).with(f -> {
            f.catalogRoot = "s3://" + BUCKET + "/whouse";
            f.icebergS3Endpoint = gate.endpoint().toString();
            f.storageAccess = new StorageAccessSettings(ROLE, "us-east-1", gate.endpoint(), durationSeconds);
            if (tokens != null) f.authTokens = tokens;
        });
        MetasrvNode node = h.deploy(s, new ManualClock(1_700_000_000_000L), v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve(name + "-rocks"))));
        assertThat(h.campaign(node).isLeader()).isTrue();
        return node;
    }

    static HttpResponse<String> vendedLoad(int port, String table, String token) throws Exception {
        Map<String, String> headers = new java.util.HashMap<>(Map.of("X-Iceberg-Access-Delegation", "vended-credentials"));
        if (token != null) headers.put("Authorization", "Bearer " + token);
        return Rest.call(port, "GET", "/v1/namespaces/ns/tables/" + table, null, headers);
    }

    static AwsSessionCredentials credentials(JsonNode config) {
        return AwsSessionCredentials.create(config.get("s3.access-key-id").asText(), config.get("s3.secret-access-key").asText(),
                config.get("s3.session-token").asText());
    }

    /** The session policy of the last AssumeRole the node asked for, parsed. */
    static JsonNode lastPolicy() throws Exception {
        return Rest.JSON.readTree(gate.assumed.get(gate.assumed.size() - 1).params().get("Policy"));
    }

    static List<String> actions(JsonNode policy) {
        List<String> out = new ArrayList<>();
        for (JsonNode st : policy.get("Statement")) for (JsonNode a : st.get("Action")) out.add(a.asText());
        return out;
    }

    @Test
    void vendedCredentialsAreScopedToTheTableLocation() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h, "scoped", 3600, null).httpPort();
            Rest.createTable(port, "ns", "t1");
            JsonNode t2 = Rest.createTable(port, "ns", "t2");
            String t2Metadata = t2.get("metadata-location").asText().substring(("s3://" + BUCKET + "/").length());

            assertThat(Rest.json(Rest.get(port, "/v1/config")).get("endpoints").toString())
                    .contains("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials");
            assertThat(Rest.json(Rest.get(port, "/v1/namespaces/ns/tables/t1")).has("storage-credentials"))
                    .as("no credentials unless asked for").isFalse();

            int before = gate.assumed.size();
            HttpResponse<String> load = vendedLoad(port, "t1", null);
            assertThat(load.statusCode()).as(load.body()).isEqualTo(200);
            assertThat(load.headers().firstValue("ETag")).as("a body with credentials is never revalidated").isEmpty();
            JsonNode body = Rest.json(load);
            JsonNode credential = body.get("storage-credentials").get(0);
            assertThat(body.get("storage-credentials")).hasSize(1);
            assertThat(credential.get("prefix").asText()).isEqualTo("s3://" + BUCKET + "/whouse/ns/t1");
            assertThat(body.get("config").get("client.refresh-credentials-endpoint").asText()).isEqualTo("v1/namespaces/ns/tables/t1/credentials");
            assertThat(body.get("config").get("s3.session-token-expires-at-ms").asLong()).isGreaterThan(System.currentTimeMillis() + 1_800_000);

            // What the node asked STS for: this table's prefix only, read-write (no access control: an admin).
            assertThat(gate.assumed).hasSize(before + 1);
            AwsGate.Assumed asked = gate.assumed.get(before);
            assertThat(asked.params()).containsEntry("RoleArn", ROLE).containsEntry("DurationSeconds", "3600");
            JsonNode policy = lastPolicy();
            List<String> resources = new ArrayList<>();
            for (JsonNode st : policy.get("Statement")) for (JsonNode r : st.get("Resource")) resources.add(r.asText());
            assertThat(resources).containsExactlyInAnyOrder("arn:aws:s3:::" + BUCKET + "/whouse/ns/t1/*", "arn:aws:s3:::" + BUCKET, "arn:aws:s3:::" + BUCKET);
            assertThat(policy.toString()).doesNotContain("t2").contains("\"s3:prefix\":[\"whouse/ns/t1/*\"]");
            assertThat(actions(policy)).contains("s3:GetObject", "s3:PutObject", "s3:DeleteObject");
            assertThat(asked.accessKeyId()).isEqualTo(credential.get("config").get("s3.access-key-id").asText());

            // With IAM enforced, the credentials read and write the table's objects and are refused the others'.
            var vended = StaticCredentialsProvider.create(credentials(credential.get("config")));
            try (S3Client s3 = s3(moto.endpoint(), vended)) {
                String t1Metadata = body.get("metadata-location").asText().substring(("s3://" + BUCKET + "/").length());
                assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(t1Metadata)).asByteArray()).isNotEmpty();
                s3.putObject(b -> b.bucket(BUCKET).key("whouse/ns/t1/data/written-by-an-engine.bin"), RequestBody.fromString("x"));
                assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("whouse/ns/t1/data/written-by-an-engine.bin")).asUtf8String()).isEqualTo("x");
                for (String key : List.of(t2Metadata, "whouse/ns/t10/data/x.bin", "whouse/ns/t2/data/x.bin", "elsewhere.bin")) {
                    assertThatThrownBy(() -> s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("x")))
                            .as("put %s", key).isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
                }
                assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(t2Metadata)))
                        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
            }

            // loadCredentials: the same scope, from the cache while the answer has life left.
            HttpResponse<String> refreshed = Rest.get(port, "/v1/namespaces/ns/tables/t1/credentials");
            assertThat(refreshed.statusCode()).as(refreshed.body()).isEqualTo(200);
            JsonNode again = Rest.json(refreshed).get("storage-credentials").get(0);
            assertThat(again.get("prefix").asText()).isEqualTo("s3://" + BUCKET + "/whouse/ns/t1");
            assertThat(gate.assumed).as("one STS call per table and rights while the answer lasts").hasSize(before + 1);
            assertThat(Rest.get(port, "/v1/namespaces/ns/tables/nope/credentials").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void readOnlyPrincipalGetsReadOnlyCredentials() throws Exception {
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("writer", AuthTokens.sha256(WRITER), AuthToken.Access.READ_WRITE, null, null, null,
                        List.of(new CatalogGrant("ns", null, EnumSet.of(Privilege.READ, Privilege.WRITE)))),
                new AuthToken("reader", AuthTokens.sha256(READER), AuthToken.Access.READ, null, null, null,
                        List.of(new CatalogGrant("ns", "t1", Set.of(Privilege.READ)))));
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h, "rights", 3600, tokens).httpPort();
            Map<String, String> admin = Map.of("Authorization", "Bearer " + ADMIN);
            Rest.call(port, "POST", "/v1/namespaces", "{\"namespace\":[\"ns\"]}", admin);
            for (String t : List.of("t1", "t2")) {
                HttpResponse<String> c = Rest.call(port, "POST", "/v1/namespaces/ns/tables", "{\"name\":\"" + t + "\",\"schema\":{\"type\":\"struct\","
                        + "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}", admin);
                assertThat(c.statusCode()).as(c.body()).isEqualTo(200);
            }

            HttpResponse<String> read = vendedLoad(port, "t1", READER);
            assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
            JsonNode readPolicy = lastPolicy();
            assertThat(actions(readPolicy)).contains("s3:GetObject", "s3:ListBucket")
                    .doesNotContain("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload");
            String readKey = Rest.json(read).get("storage-credentials").get(0).get("config").get("s3.access-key-id").asText();

            HttpResponse<String> refresh = Rest.call(port, "GET", "/v1/namespaces/ns/tables/t1/credentials", null, Map.of("Authorization", "Bearer " + READER));
            assertThat(refresh.statusCode()).as(refresh.body()).isEqualTo(200);
            assertThat(Rest.json(refresh).get("storage-credentials").get(0).get("config").get("s3.access-key-id").asText())
                    .as("loadCredentials hands the reader the same read-only answer").isEqualTo(readKey);

            HttpResponse<String> write = vendedLoad(port, "t1", WRITER);
            assertThat(write.statusCode()).as(write.body()).isEqualTo(200);
            assertThat(actions(lastPolicy())).contains("s3:GetObject", "s3:PutObject", "s3:DeleteObject");
            assertThat(Rest.json(write).get("storage-credentials").get(0).get("config").get("s3.access-key-id").asText())
                    .as("read-write credentials are another STS answer").isNotEqualTo(readKey);

            // A table the reader may not see: no credentials, and the same 404 as a missing table.
            assertThat(vendedLoad(port, "t2", READER).statusCode()).isEqualTo(404);
            assertThat(Rest.call(port, "GET", "/v1/namespaces/ns/tables/t2/credentials", null, Map.of("Authorization", "Bearer " + READER))
                    .statusCode()).isEqualTo(404);
        }
    }

    @Test
    void loadCredentialsRefreshesBeforeExpiry() throws Exception {
        int lifetime = 6;
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h, "refresh", lifetime, null).httpPort();
            RESTCatalog engine = new RESTCatalog();
            engine.setConf(new org.apache.hadoop.conf.Configuration());
            // No keys: the engine's S3 access is only what the catalog vends (the JVM's aws.* properties are the node's,
            // so every request the engine makes is checked below for a vended key).
            engine.initialize("engine", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg",
                    "header.X-Iceberg-Access-Delegation", "vended-credentials",
                    "io-impl", "org.apache.iceberg.aws.s3.S3FileIO", "http-client.type", "urlconnection"));
            try {
                engine.createNamespace(Namespace.of("ns"));
                Table table = engine.createTable(TableIdentifier.of("ns", "job"), SCHEMA);
                long start = System.currentTimeMillis();
                int commits = 0;
                // A job that outlives two lifetimes of its credentials: files written and committed throughout.
                while (commits < 4 || System.currentTimeMillis() - start < 2_500L * lifetime) {
                    if (commits >= 200) throw new AssertionError("the job never outlived two lifetimes");
                    String path = table.locationProvider().newDataLocation("part-" + commits + ".bin");
                    try (var out = table.io().newOutputFile(path).createOrOverwrite()) {
                        out.write(("row " + commits).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                    DataFile file = DataFiles.builder(table.spec()).withPath(path).withFormat(FileFormat.PARQUET)
                            .withFileSizeInBytes(("row " + commits).length()).withRecordCount(1).build();
                    table.newAppend().appendFile(file).commit();
                    commits++;
                }
                table.refresh();
                int read = 0;
                try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                    for (FileScanTask t : tasks) {
                        try (var in = table.io().newInputFile(t.file().location()).newStream()) {
                            assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).startsWith("row ");
                        }
                        read++;
                    }
                }
                assertThat(read).isEqualTo(commits);
                assertThat(System.currentTimeMillis() - start).isGreaterThan(2_000L * lifetime);
            } finally {
                engine.close();
            }
            Set<String> vendedKeys = new HashSet<>();
            for (AwsGate.Assumed a : gate.assumed) vendedKeys.add(a.accessKeyId());
            List<AwsGate.S3Request> engineRequests = gate.s3.stream().filter(r -> r.path().contains("/whouse/ns/job/")
                    && (r.path().contains("/data/") || r.path().contains("/snap-") || r.path().endsWith(".avro"))).toList();
            assertThat(engineRequests).as("the engine's data and manifest requests").isNotEmpty();
            assertThat(engineRequests).as("every one signed with a vended key, none with the node's own")
                    .allSatisfy(r -> assertThat(vendedKeys).contains(r.accessKeyId()));
            assertThat(engineRequests).as("none refused as expired").noneMatch(AwsGate.S3Request::expired);
            assertThat(engineRequests.stream().map(AwsGate.S3Request::accessKeyId).distinct().count())
                    .as("the engine refreshed its credentials (loadCredentials) as they neared expiry").isGreaterThanOrEqualTo(2);
        }
    }
}
