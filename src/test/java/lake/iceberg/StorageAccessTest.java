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
 * its own policy reaches only the directories the catalog assigns {@code ns.t1} (and {@code ns.job},
 * the table of the refresh test), {@code whouse/ns/t1/*}, which shows that the credentials moto hands out are
 * refused another table's objects; that the node asks for exactly that scope is asserted on the
 * session policy the gate recorded. On AWS the session policy itself does the limiting.
 */
public class StorageAccessTest {
    static final String ROLE = IamMoto.ROLE;
    static final String BUCKET = "lake-vend-" + ProcessHandle.current().pid();
    static final String ADMIN = "admin-token-0123456789";
    static final String WRITER = "writer-token-0123456789";
    static final String READER = "reader-token-0123456789";
    static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

    /** An admin; a writer (read and write on namespace {@code ns}); a reader of {@code ns.t1} only. */
    static final List<AuthToken> ADMIN_WRITER_READER = List.of(
            new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
            new AuthToken("writer", AuthTokens.sha256(WRITER), AuthToken.Access.READ_WRITE, null, null, null,
                    List.of(new CatalogGrant("ns", null, EnumSet.of(Privilege.READ, Privilege.WRITE)))),
            new AuthToken("reader", AuthTokens.sha256(READER), AuthToken.Access.READ, null, null, null,
                    List.of(new CatalogGrant("ns", "t1", Set.of(Privilege.READ)))));

    static IamMoto aws;
    static AwsGate gate;
    static URI motoEndpoint;
    static AwsBasicCredentials serverKeys;

    @TempDir Path dir;

    @BeforeAll
    static void iam() throws Exception {
        aws = new IamMoto(BUCKET, List.of("whouse/ns/t1/", "whouse/ns/job/"));
        gate = aws.gate;
        motoEndpoint = aws.motoEndpoint();
        serverKeys = aws.serverKeys;
    }

    @AfterAll
    static void stop() throws Exception {
        if (aws != null) aws.close();
    }

    static S3Client s3(URI endpoint, AwsCredentialsProvider credentials) {
        return IamMoto.s3(endpoint, credentials);
    }

    MetasrvNode node(NodeHarness h, String name, int durationSeconds, List<AuthToken> tokens) throws Exception {
        var s = NodeHarness.settings(name, dir.resolve(name), 10_000, 0, 1_000).with(f -> {
            f.catalogRoot = "s3://" + BUCKET + "/whouse";
            f.icebergS3Endpoint = gate.endpoint().toString();
            f.storageAccess = new StorageAccessSettings(ROLE, "us-east-1", gate.endpoint(), durationSeconds, true);
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
            JsonNode t1 = Rest.createTable(port, "ns", "t1");
            JsonNode t2 = Rest.createTable(port, "ns", "t2");
            String t2Metadata = t2.get("metadata-location").asText().substring(("s3://" + BUCKET + "/").length());
            // Each table in a directory of its own that the catalog assigned: its name and a fresh UUID.
            String t1Dir = t1.get("metadata").get("location").asText().substring(("s3://" + BUCKET + "/").length());
            assertThat(t1Dir).matches("whouse/ns/t1/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
            String t2Dir = t2.get("metadata").get("location").asText().substring(("s3://" + BUCKET + "/").length());

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
            assertThat(credential.get("prefix").asText()).isEqualTo("s3://" + BUCKET + "/" + t1Dir);
            assertThat(body.get("config").get("client.refresh-credentials-endpoint").asText()).isEqualTo("v1/namespaces/ns/tables/t1/credentials");
            assertThat(body.get("config").get("s3.session-token-expires-at-ms").asLong()).isGreaterThan(System.currentTimeMillis() + 1_800_000);

            // What the node asked STS for: this table's prefix only, read-write (no access control: an admin).
            assertThat(gate.assumed).hasSize(before + 1);
            AwsGate.Assumed asked = gate.assumed.get(before);
            assertThat(asked.params()).containsEntry("RoleArn", ROLE).containsEntry("DurationSeconds", "3600");
            JsonNode policy = lastPolicy();
            List<String> resources = new ArrayList<>();
            for (JsonNode st : policy.get("Statement")) for (JsonNode r : st.get("Resource")) resources.add(r.asText());
            assertThat(resources).containsExactlyInAnyOrder("arn:aws:s3:::" + BUCKET + "/" + t1Dir + "/*", "arn:aws:s3:::" + BUCKET, "arn:aws:s3:::" + BUCKET);
            assertThat(policy.toString()).doesNotContain("t2").contains("\"s3:prefix\":[\"" + t1Dir + "/*\"]");
            assertThat(actions(policy)).contains("s3:GetObject", "s3:PutObject", "s3:DeleteObject");
            assertThat(asked.accessKeyId()).isEqualTo(credential.get("config").get("s3.access-key-id").asText());

            // With IAM enforced, the credentials read and write the table's objects and are refused the others'.
            var vended = StaticCredentialsProvider.create(credentials(credential.get("config")));
            try (S3Client s3 = s3(motoEndpoint, vended)) {
                String t1Metadata = body.get("metadata-location").asText().substring(("s3://" + BUCKET + "/").length());
                assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(t1Metadata)).asByteArray()).isNotEmpty();
                s3.putObject(b -> b.bucket(BUCKET).key(t1Dir + "/data/written-by-an-engine.bin"), RequestBody.fromString("x"));
                assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(t1Dir + "/data/written-by-an-engine.bin")).asUtf8String()).isEqualTo("x");
                // (moto enforces the role's policy, whouse/ns/t1/*, standing in for the session policy asserted above.)
                for (String key : List.of(t2Metadata, "whouse/ns/t10/data/x.bin", t2Dir + "/data/x.bin", "elsewhere.bin")) {
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
            assertThat(again.get("prefix").asText()).isEqualTo("s3://" + BUCKET + "/" + t1Dir);
            assertThat(gate.assumed).as("one STS call per table and rights while the answer lasts").hasSize(before + 1);
            assertThat(Rest.get(port, "/v1/namespaces/ns/tables/nope/credentials").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void readOnlyPrincipalGetsReadOnlyCredentials() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h, "rights", 3600, ADMIN_WRITER_READER).httpPort();
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
                    .as("the engine used more than one credential").isGreaterThanOrEqualTo(2);
            assertThat(answered(port, "load-credentials")).as("and fetched them from loadCredentials").isGreaterThanOrEqualTo(2);
        }
    }

    /** A sign request as Iceberg's signer client posts it. */
    static String signRequest(String method, String uri, Map<String, List<String>> headers, String body) {
        var b = org.apache.iceberg.rest.requests.ImmutableRemoteSignRequest.builder().region("us-east-1").method(method).uri(URI.create(uri))
                .headers(headers).properties(Map.of()).provider("s3");
        if (body != null) b.body(body);
        return org.apache.iceberg.rest.requests.RemoteSignRequestParser.toJson(b.build());
    }

    static HttpResponse<String> sign(int port, String table, String token, String request) throws Exception {
        return Rest.call(port, "POST", "/v1/namespaces/ns/tables/" + table + "/sign", request, Map.of("Authorization", "Bearer " + token));
    }

    /** Table {@code ns.t1}'s directory in the signer test: a location of the shape the catalog assigns (its name, a UUID). */
    static final String T1 = "whouse/ns/t1/00000000-0000-4000-8000-000000000001";
    /** {@link #T1} as a query parameter's value. */
    static final String T1Q = T1.replace("/", "%2F");

    static final Map<String, List<String>> UNSIGNED = Map.of("x-amz-content-sha256", List.of("UNSIGNED-PAYLOAD"));

    /** A batch delete's body naming {@code keys}, and its Content-MD5. */
    static String[] batchDelete(List<String> keys) throws Exception {
        StringBuilder b = new StringBuilder("<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
        for (String k : keys) b.append("<Object><Key>").append(k).append("</Key></Object>");
        String body = b.append("</Delete>").toString();
        String md5 = java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("MD5")
                .digest(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return new String[] {body, md5};
    }

    @Test
    void signerRefusesRequestsOutsideTheTableLocation() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            MetasrvNode node = node(h, "signer", 3600, ADMIN_WRITER_READER);
            int port = node.httpPort();
            Map<String, String> admin = Map.of("Authorization", "Bearer " + ADMIN);
            Rest.call(port, "POST", "/v1/namespaces", "{\"namespace\":[\"ns\"]}", admin);
            for (String t : List.of("t1", "t2", "t10")) {
                // t1 at a location of the shape the catalog assigns, which its create claims: the requests below can name it.
                String at = t.equals("t1") ? "\"location\":\"s3://" + BUCKET + "/" + T1 + "\"," : "";
                HttpResponse<String> c = Rest.call(port, "POST", "/v1/namespaces/ns/tables", "{\"name\":\"" + t + "\"," + at + "\"schema\":{\"type\":\"struct\","
                        + "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}", admin);
                assertThat(c.statusCode()).as(c.body()).isEqualTo(200);
            }
            assertThat(Rest.json(Rest.call(port, "GET", "/v1/config", null, admin)).get("endpoints").toString())
                    .contains("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign");
            HttpResponse<String> load = Rest.call(port, "GET", "/v1/namespaces/ns/tables/t1", null,
                    Map.of("Authorization", "Bearer " + READER, "X-Iceberg-Access-Delegation", "remote-signing"));
            assertThat(load.statusCode()).as(load.body()).isEqualTo(200);
            JsonNode config = Rest.json(load).get("config");
            assertThat(config.get("s3.remote-signing-enabled").asText()).isEqualTo("true");
            assertThat(config.get("s3.signer.endpoint").asText()).isEqualTo("v1/namespaces/ns/tables/t1/sign");
            assertThat(Rest.json(load).has("storage-credentials")).as("signing hands out no keys").isFalse();

            String s3 = gate.endpoint().toString();
            String t1 = s3 + "/" + BUCKET + "/" + T1 + "/";
            // Controls: what the table's principals may do is signed, and S3 takes the signature.
            HttpResponse<String> put = sign(port, "t1", WRITER, signRequest("PUT", t1 + "data/signed.bin", UNSIGNED, null));
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            java.net.http.HttpRequest.Builder upload = java.net.http.HttpRequest.newBuilder(URI.create(t1 + "data/signed.bin"))
                    .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("signed"));
            Rest.json(put).get("headers").fields().forEachRemaining(e -> {
                if (!e.getKey().equalsIgnoreCase("host")) upload.header(e.getKey(), e.getValue().get(0).asText());
            });
            // HTTP/1.1: the JDK client would otherwise offer h2c, and the signed Host header would not travel as signed.
            var http = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> uploaded = http.send(upload.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(uploaded.statusCode()).as(uploaded.body()).isEqualTo(200);
            HttpResponse<String> get = sign(port, "t1", READER, signRequest("GET", t1 + "data/signed.bin", UNSIGNED, null));
            assertThat(get.statusCode()).as(get.body()).isEqualTo(200);
            java.net.http.HttpRequest.Builder download = java.net.http.HttpRequest.newBuilder(URI.create(t1 + "data/signed.bin")).GET();
            Rest.json(get).get("headers").fields().forEachRemaining(e -> {
                if (!e.getKey().equalsIgnoreCase("host")) download.header(e.getKey(), e.getValue().get(0).asText());
            });
            assertThat(http.send(download.build(), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("signed");
            // Iceberg's partition paths percent-encode values: a literal '%' in a key (sent as %25) is signed like any key.
            for (String[] control : List.of(new String[] {"PUT", WRITER}, new String[] {"GET", READER})) {
                HttpResponse<String> partition = sign(port, "t1", control[1],
                        signRequest(control[0], t1 + "data/city=M%25C3%25BCnchen/ts=2023-11-14T22%253A13%253A20/p.parquet", UNSIGNED, null));
                assertThat(partition.statusCode()).as(control[0] + " " + partition.body()).isEqualTo(200);
            }
            String[] own = batchDelete(List.of(T1 + "/data/a.bin", T1 + "/metadata/b.avro"));
            assertThat(sign(port, "t1", WRITER, signRequest("POST", s3 + "/" + BUCKET + "?delete",
                    Map.of("Content-MD5", List.of(own[1])), own[0])).statusCode()).isEqualTo(200);
            assertThat(sign(port, "t1", READER, signRequest("GET", s3 + "/" + BUCKET + "?list-type=2&prefix=" + T1Q + "%2Fdata%2F", UNSIGNED, null))
                    .statusCode()).isEqualTo(200);

            // Generated requests that must all be refused.
            // {token, table, sign request}; a set: every generated request is a distinct one.
            java.util.Set<List<String>> distinct = new java.util.LinkedHashSet<>();
            List<String[]> refused = new ArrayList<>() {
                @Override public boolean add(String[] attempt) {
                    return distinct.add(List.of(attempt)) && super.add(attempt);
                }
            };
            List<String> foreignKeys = new ArrayList<>(List.of("whouse/ns/t2/data/x.bin", "whouse/ns/t10/data/x.bin", T1, T1 + "/",
                    // The directory the name had before directories were assigned, a prefix sibling, another incarnation's.
                    "whouse/ns/t1/x.bin", "whouse/ns/t1/", T1 + "0/x.bin", T1.replace("0001", "0002") + "/x.bin",
                    "whouse/ns/x.bin", "whouse/x.bin", "x.bin", T1 + "/../t2/x.bin", T1 + "/./x.bin", T1 + "//x.bin",
                    T1 + "/%2e%2e/t2/x.bin", T1 + "/%2E%2E/%2E%2E/t2/x.bin", T1 + "%2F..%2Ft2/x.bin", T1 + "/%252e%252e/t2/x",
                    T1 + "/..%5C..%5Ct2/x", "whouse%5Cns%5Ct1/x", T1 + "/%00x", T1 + "/%0Ax",
                    T1 + "/%C0%AE%C0%AE/x", "whouse/ns/T1/x.bin", "WHOUSE/ns/t1/x.bin", "whouse/ns/t1x/y", "whouse/ns/t2/../t1/x.bin"));
            // Foreign in a URI path, which S3 decodes once (to "%2e%2e", read again as "..", and to bytes that are not
            // UTF-8); as a listing prefix or a batch delete's key, where nothing decodes them, literal keys under the table.
            Set<String> foreignOnlyInAPath = Set.of(T1 + "/%252e%252e/t2/x", T1 + "/%C0%AE%C0%AE/x");
            for (int i = 0; i < 12; i++) foreignKeys.add("whouse/ns/t" + (2 + i) + "/metadata/" + i + ".json");
            List<String> hosts = List.of(s3 + "/" + BUCKET + "/", s3 + "/other-bucket/" + T1 + "/", s3 + "/" + BUCKET + "x/",
                    "http://127.0.0.1:1/" + BUCKET + "/", "https://" + BUCKET + ".s3.amazonaws.com/", "http://evil.example/" + BUCKET + "/",
                    s3.replace("127.0.0.1", "localhost") + "/" + BUCKET + "/", s3.replace("http://", "http://user@") + "/" + BUCKET + "/");
            for (String host : hosts) {
                for (String key : foreignKeys) {
                    String uri = host.endsWith("/" + T1 + "/") ? host + "data/" + key.replace('/', '-').replace('%', '_') : host + key;
                    for (String method : List.of("GET", "PUT", "DELETE", "HEAD")) {
                        refused.add(new String[] {WRITER, "t1", signRequest(method, uri, UNSIGNED, null)});
                    }
                }
            }
            // The table's own endpoint and bucket, every foreign key, for the reader too, and as a listing prefix.
            for (String key : foreignKeys) {
                for (String method : List.of("GET", "HEAD")) {
                    refused.add(new String[] {READER, "t1", signRequest(method, s3 + "/" + BUCKET + "/" + key, UNSIGNED, null)});
                }
                // The table's own prefix is the reader's to list; and a listing's prefix is the key itself (no path decodes it).
                if (key.equals(T1 + "/") || foreignOnlyInAPath.contains(key)) continue;
                refused.add(new String[] {READER, "t1", signRequest("GET", s3 + "/" + BUCKET + "?list-type=2&prefix="
                        + java.net.URLEncoder.encode(key, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"), UNSIGNED, null)});
            }
            // Listing prefixes whose escapes a second decoding turns into dot segments or backslashes.
            for (String prefix : List.of(T1 + "/%2e%2e/t2/", T1 + "/a%2F%2e%2e%2F..%2Fx", T1 + "/%5C..%5Cx", T1 + "/%00")) {
                refused.add(new String[] {READER, "t1", signRequest("GET", s3 + "/" + BUCKET + "?list-type=2&prefix="
                        + java.net.URLEncoder.encode(prefix, java.nio.charset.StandardCharsets.UTF_8), UNSIGNED, null)});
            }
            // A Host header naming another bucket, endpoint or port: the signature would carry the request there.
            for (String name : List.of(" Host", "Host ", " x-amz-copy-source", "x-amz-acl\t", "Host:")) {
                refused.add(new String[] {WRITER, "t1", signRequest("PUT", t1 + "data/a.bin", Map.of(name, List.of("x")), null)});
            }
            String latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Delete><Object><Key>" + T1 + "/data/a.bin</Key></Object></Delete>";
            String latin1Md5 = java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("MD5")
                    .digest(latin1.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            refused.add(new String[] {WRITER, "t1", signRequest("POST", s3 + "/" + BUCKET + "?delete", Map.of("Content-MD5", List.of(latin1Md5)), latin1)});
            for (String host : List.of("victim-bucket.s3.us-east-1.amazonaws.com", "127.0.0.1:1", "evil.example", BUCKET + "." + s3.substring(7))) {
                for (String name : List.of("Host", "host", "HOST")) {
                    refused.add(new String[] {READER, "t1", signRequest("GET", t1 + "data/a.bin", Map.of(name, List.of(host)), null)});
                }
            }
            // Batch deletes whose XML hides a foreign key from a naive reading, or is not S3's shape.
            for (String body : List.of(
                    "<Delete><Object><Key>" + T1 + "/data/a.bin</Key></Object><Object><Key >whouse/ns/t2/data/x.bin</Key ></Object></Delete>",
                    "<Delete><Object><Key a=\"b\">whouse/ns/t2/data/x.bin</Key></Object></Delete>",
                    "<Delete xmlns:p=\"urn:x\"><Object><p:Key>whouse/ns/t2/data/x.bin</p:Key></Object></Delete>",
                    "<Delete><Object><Key>" + T1 + "/data/a.bin</Key><Key>whouse/ns/t2/data/x.bin</Key></Object></Delete>",
                    "<Delete><Object><Key><![CDATA[whouse/ns/t2/data/x.bin]]></Key></Object></Delete>",
                    "<Delete><Object><Key>" + T1 + "/data/&#x2e;&#x2e;/../t2/x</Key></Object></Delete>",
                    "<!DOCTYPE d [<!ENTITY e \"whouse/ns/t2/x\">]><Delete><Object><Key>&e;</Key></Object></Delete>",
                    "<Delete><Object><Key>" + T1 + "/a</Key></Object><Extra/></Delete>",
                    "<Delete><Object><Key>" + T1 + "/a</Key></Object></Delete><!-- -->trailing",
                    "<Delete><Quiet>true</Quiet><Quiet>true</Quiet><Object><Key>" + T1 + "/a</Key></Object></Delete>",
                    "<Delete/>", "<NotDelete><Object><Key>" + T1 + "/a</Key></Object></NotDelete>")) {
                String md5 = java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("MD5")
                        .digest(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                refused.add(new String[] {WRITER, "t1", signRequest("POST", s3 + "/" + BUCKET + "?delete", Map.of("Content-MD5", List.of(md5)), body)});
                refused.add(new String[] {WRITER, "t1", signRequest("POST", s3 + "/" + BUCKET + "?x-id=DeleteObjects&delete", Map.of("Content-MD5", List.of(md5)), body)});
            }
            // Inside the table, but more than a reader may do, or not an object operation at all.
            for (String key : List.of(T1 + "/data/a.bin", T1 + "/metadata/00001.metadata.json", T1 + "/data/b.parquet")) {
                String uri = t1 + key.substring(T1.length() + 1);
                for (String[] attempt : List.of(new String[] {"PUT", ""}, new String[] {"DELETE", ""}, new String[] {"POST", "?uploads"},
                        new String[] {"POST", "?uploadId=u1"}, new String[] {"PUT", "?partNumber=1&uploadId=u1"}, new String[] {"DELETE", "?uploadId=u1"})) {
                    refused.add(new String[] {READER, "t1", signRequest(attempt[0], uri + attempt[1], UNSIGNED, null)});
                }
                for (String tricky : List.of("?acl", "?tagging", "?policy", "?torrent", "?restore", "?select&select-type=2", "?legal-hold", "?retention",
                        "?versionId=1&acl", "?x=1&x=2", "?prefix=a+b")) {
                    for (String method : List.of("GET", "PUT", "POST", "DELETE", "HEAD")) {
                        refused.add(new String[] {WRITER, "t1", signRequest(method, uri + tricky, UNSIGNED, null)});
                    }
                }
                for (String method : List.of("PATCH", "OPTIONS", "TRACE", "get", "CONNECT")) {
                    refused.add(new String[] {WRITER, "t1", signRequest(method, uri, UNSIGNED, null)});
                }
                for (Map.Entry<String, String> header : Map.of("x-amz-copy-source", "/" + BUCKET + "/whouse/ns/t2/data/x.bin",
                        "x-amz-acl", "public-read", "x-amz-grant-read", "uri=http://acs.amazonaws.com/groups/global/AllUsers",
                        "x-amz-website-redirect-location", "/elsewhere", "x-amz-tagging", "a=b").entrySet()) {
                    refused.add(new String[] {WRITER, "t1", signRequest("PUT", uri, Map.of(header.getKey(), List.of(header.getValue())), null)});
                }
                refused.add(new String[] {WRITER, "t1", signRequest("GET", uri + "#frag", UNSIGNED, null)});
            }
            // Listings beyond the table, batch deletes of others' keys or unbound bodies, another region or provider.
            String bucketUri = s3 + "/" + BUCKET;
            for (String prefix : List.of("", "whouse%2F", "whouse%2Fns%2F", "whouse%2Fns%2Ft", "whouse%2Fns%2Ft2%2F", "whouse%2Fns%2Ft10%2F", T1Q)) {
                refused.add(new String[] {READER, "t1", signRequest("GET", bucketUri + "?list-type=2&prefix=" + prefix, UNSIGNED, null)});
                refused.add(new String[] {WRITER, "t1", signRequest("GET", bucketUri + "?list-type=2&prefix=" + prefix + "&delimiter=%2F", UNSIGNED, null)});
            }
            refused.add(new String[] {READER, "t1", signRequest("GET", bucketUri + "?list-type=2", UNSIGNED, null)});
            refused.add(new String[] {READER, "t1", signRequest("GET", bucketUri + "?location", UNSIGNED, null)});
            refused.add(new String[] {WRITER, "t1", signRequest("DELETE", bucketUri, UNSIGNED, null)});
            refused.add(new String[] {WRITER, "t1", signRequest("PUT", bucketUri + "?policy", UNSIGNED, null)});
            for (String foreign : foreignKeys) {
                if (foreignOnlyInAPath.contains(foreign)) continue; // in a body, the literal key under the table
                String[] mixed = batchDelete(List.of(T1 + "/data/a.bin", foreign.replace("&", "&amp;")));
                refused.add(new String[] {WRITER, "t1", signRequest("POST", bucketUri + "?delete", Map.of("Content-MD5", List.of(mixed[1])), mixed[0])});
            }
            refused.add(new String[] {READER, "t1", signRequest("POST", bucketUri + "?delete", Map.of("Content-MD5", List.of(own[1])), own[0])});
            refused.add(new String[] {WRITER, "t1", signRequest("POST", bucketUri + "?delete", Map.of(), own[0])});
            refused.add(new String[] {WRITER, "t1", signRequest("POST", bucketUri + "?delete", Map.of("Content-MD5", List.of("AAAAAAAAAAAAAAAAAAAAAA==")), own[0])});
            refused.add(new String[] {WRITER, "t1", signRequest("POST", bucketUri + "?delete", Map.of("Content-MD5", List.of(own[1])), null)});
            String[] entity = batchDelete(List.of(T1 + "/&#46;&#46;/t2/x.bin"));
            refused.add(new String[] {WRITER, "t1", signRequest("POST", bucketUri + "?delete", Map.of("Content-MD5", List.of(entity[1])), entity[0])});
            refused.add(new String[] {WRITER, "t1", org.apache.iceberg.rest.requests.RemoteSignRequestParser.toJson(
                    org.apache.iceberg.rest.requests.ImmutableRemoteSignRequest.builder().region("eu-west-1").method("GET")
                            .uri(URI.create(t1 + "data/a.bin")).headers(UNSIGNED).properties(Map.of()).provider("s3").build())});
            refused.add(new String[] {WRITER, "t1", org.apache.iceberg.rest.requests.RemoteSignRequestParser.toJson(
                    org.apache.iceberg.rest.requests.ImmutableRemoteSignRequest.builder().region("us-east-1").method("GET")
                            .uri(URI.create(t1 + "data/a.bin")).headers(UNSIGNED).properties(Map.of()).provider("gcs").build())});
            // Signing through another table's route: t2's sign route never signs for t1's objects, nor t1's for t2's.
            refused.add(new String[] {WRITER, "t2", signRequest("GET", t1 + "data/a.bin", UNSIGNED, null)});
            refused.add(new String[] {WRITER, "t10", signRequest("PUT", t1 + "data/a.bin", UNSIGNED, null)});

            assertThat(refused.size()).as("distinct generated requests").isGreaterThanOrEqualTo(1_000);
            double before = rejections(port);
            for (String[] attempt : refused) {
                HttpResponse<String> r = sign(port, attempt[1], attempt[0], attempt[2]);
                assertThat(r.statusCode()).as("%s asks %s to sign %s: %s", attempt[0].substring(0, 6), attempt[1], attempt[2], r.body()).isEqualTo(403);
                assertThat(r.body()).doesNotContain("Authorization").contains("ForbiddenException");
                // Traversal and encoding tricks on the table's own endpoint are refused for their key, not by chance elsewhere.
                if (attempt[2].contains("\"uri\":\"" + s3 + "/" + BUCKET + "/" + T1 + "/") && (attempt[2].contains("..") || attempt[2].contains("%2"))) {
                    assertThat(r.body()).as(attempt[2]).containsAnyOf("segment", "encoded twice", "backslash", "control character", "UTF-8", "outside");
                }
            }
            assertThat(rejections(port) - before).as("every refusal counted (and audited beside the count)").isEqualTo(refused.size());
            // A uri that is not one (a malformed escape) is a bad request, and nothing is signed.
            HttpResponse<String> malformed = sign(port, "t1", WRITER, signRequest("GET", t1 + "data/a.bin", UNSIGNED, null)
                    .replace("data/a.bin", "data/%ZZ"));
            assertThat(malformed.statusCode()).as(malformed.body()).isEqualTo(400);
            assertThat(malformed.body()).doesNotContain("Authorization");
            // A table the reader may not see is not signed for either: the same 404 as a missing table.
            assertThat(sign(port, "t2", READER, signRequest("GET", s3 + "/" + BUCKET + "/whouse/ns/t2/data/x.bin", UNSIGNED, null)).statusCode())
                    .isEqualTo(404);
        }
    }

    /** The node's Prometheus page (HTTP/1.1, bounded). */
    public static String metrics(int port, String token) throws Exception {
        var request = java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(java.time.Duration.ofSeconds(30));
        if (token != null) request.header("Authorization", "Bearer " + token);
        return java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build()
                .send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Sign requests the node answered 200. */
    static double signed(int port) throws Exception {
        return answered(port, "sign-request");
    }

    /** Requests of Iceberg route {@code route} the node answered 200. */
    public static double answered(int port, String route) throws Exception {
        String metrics = metrics(port, null);
        double sum = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("lake_iceberg_requests_seconds_count") && line.contains("route=\"" + route + "\"") && line.contains("status=\"200\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** The node's count of refused requests, all reasons. */
    static double rejections(int port) throws Exception {
        String metrics = metrics(port, ADMIN);
        double sum = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("lake_auth_rejections_total")) sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return sum;
    }

    @Test
    void remoteSigningEngineWritesAndReadsWithoutKeys() throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h, "signing", 3600, null).httpPort();
            RESTCatalog engine = new RESTCatalog();
            engine.setConf(new org.apache.hadoop.conf.Configuration());
            engine.initialize("engine", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg",
                    "header.X-Iceberg-Access-Delegation", "remote-signing",
                    "io-impl", "org.apache.iceberg.aws.s3.S3FileIO", "http-client.type", "urlconnection"));
            int before = gate.s3.size();
            try {
                engine.createNamespace(Namespace.of("ns"));
                Table table = engine.createTable(TableIdentifier.of("ns", "signed"), SCHEMA);
                for (int i = 0; i < 3; i++) {
                    String path = table.locationProvider().newDataLocation("part-" + i + ".bin");
                    try (var out = table.io().newOutputFile(path).createOrOverwrite()) {
                        out.write(("row " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                    table.newAppend().appendFile(DataFiles.builder(table.spec()).withPath(path).withFormat(FileFormat.PARQUET)
                            .withFileSizeInBytes(("row " + i).length()).withRecordCount(1).build()).commit();
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
                assertThat(read).isEqualTo(3);
            } finally {
                engine.close();
            }
            List<AwsGate.S3Request> engineRequests = gate.s3.subList(before, gate.s3.size()).stream()
                    .filter(r -> r.path().contains("/whouse/ns/signed/") && (r.path().contains("/data/") || r.path().endsWith(".avro"))).toList();
            assertThat(engineRequests).as("the engine's data and manifest requests").hasSizeGreaterThanOrEqualTo(9);
            assertThat(engineRequests).as("each signed with the node's own key").allSatisfy(r ->
                    assertThat(r.accessKeyId()).isEqualTo(serverKeys.accessKeyId()));
            // The JVM's aws.* properties are the node's, so the key alone cannot tell who signed: the
            // node's count of answered sign requests does (at least one per request the engine made).
            assertThat(signed(port)).as("sign requests the catalog answered").isGreaterThanOrEqualTo(engineRequests.size());
        }
    }

    /**
     * Storage is delegated only at a location the catalog assigned the table when it created it
     * ({@code <name>-<uuid>}, claimed once, ever; a create naming a claimed one is refused): not at
     * another one a create names (it may hold other tables' files), not for a registered table,
     * not after {@code set-location}. A name used
     * again after a drop gets a directory of its own, and the old one is never assigned again; a
     * rename keeps the table's assignment.
     */
    @Test
    void storageIsDelegatedOnlyAtTheLocationTheCatalogAssigns() throws Exception {
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("sneaky", AuthTokens.sha256(WRITER), AuthToken.Access.READ_WRITE, null, null, null,
                        List.of(new CatalogGrant("sandbox", null, EnumSet.of(Privilege.READ, Privilege.WRITE, Privilege.CREATE, Privilege.DROP)))));
        try (NodeHarness h = new NodeHarness()) {
            int port = node(h, "owned", 3600, tokens).httpPort();
            Map<String, String> admin = Map.of("Authorization", "Bearer " + ADMIN, "X-Iceberg-Access-Delegation", "vended-credentials");
            Map<String, String> sneaky = Map.of("Authorization", "Bearer " + WRITER, "X-Iceberg-Access-Delegation", "vended-credentials");
            for (String ns : List.of("ns", "sandbox")) Rest.call(port, "POST", "/v1/namespaces", "{\"namespace\":[\"" + ns + "\"]}", admin);
            String schema = "\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}";
            HttpResponse<String> first = Rest.call(port, "POST", "/v1/namespaces/ns/tables", "{\"name\":\"t1\"," + schema + "}", admin);
            assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
            String firstDir = Rest.json(first).get("metadata").get("location").asText();
            String firstMetadata = Rest.json(first).get("metadata-location").asText();
            assertThat(Rest.json(first).get("storage-credentials").get(0).get("prefix").asText()).isEqualTo(firstDir);
            double before = rejections(port);
            int assumed = gate.assumed.size();

            // A create that names another table's location is refused: the catalog assigned it to that table, for good.
            HttpResponse<String> taken = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables",
                    "{\"name\":\"evil\",\"location\":\"" + firstDir + "\"," + schema + "}", sneaky);
            assertThat(taken.statusCode()).as(taken.body()).isEqualTo(409);
            assertThat(taken.body()).contains("was assigned to another table or view");
            // One at a location the catalog never assigns (the name's directory, above t1's): created, but no credentials.
            String nameDir = firstDir.substring(0, firstDir.lastIndexOf('/'));
            HttpResponse<String> evil = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables",
                    "{\"name\":\"evil\",\"location\":\"" + nameDir + "\"," + schema + "}", sneaky);
            assertThat(evil.statusCode()).as(evil.body()).isEqualTo(200);
            assertThat(Rest.json(evil).has("storage-credentials")).as("no credentials for a location the catalog did not assign").isFalse();
            for (String route : List.of("", "/credentials")) {
                HttpResponse<String> r = Rest.call(port, "GET", "/v1/namespaces/sandbox/tables/evil" + route, null, sneaky);
                assertThat(r.statusCode()).as(route + " " + r.body()).isEqualTo(403);
                assertThat(r.body()).contains("the location the catalog assigned it when it was created");
            }
            HttpResponse<String> signed = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables/evil/sign",
                    signRequest("DELETE", firstDir.replace("s3://", gate.endpoint() + "/") + "/data/secret.parquet", UNSIGNED, null), sneaky);
            assertThat(signed.statusCode()).as(signed.body()).isEqualTo(403);

            // A table of its own: moved onto another's directory, refused; moved elsewhere, no credentials from then on.
            HttpResponse<String> own = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables", "{\"name\":\"own\"," + schema + "}", sneaky);
            assertThat(Rest.json(own).has("storage-credentials")).as("at its assigned location: credentials").isTrue();
            HttpResponse<String> onto = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables/own",
                    "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":\"" + firstDir + "\"}]}", sneaky);
            assertThat(onto.statusCode()).as(onto.body()).isEqualTo(400);
            HttpResponse<String> moved = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables/own",
                    "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":\"" + nameDir + "\"}]}", sneaky);
            assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
            assertThat(Rest.call(port, "GET", "/v1/namespaces/sandbox/tables/own/credentials", null, sneaky).statusCode()).isEqualTo(403);

            // A renamed table keeps its assignment: credentials for the directory it was created in.
            HttpResponse<String> kept = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables", "{\"name\":\"kept\"," + schema + "}", sneaky);
            String keptDir = Rest.json(kept).get("metadata").get("location").asText();
            HttpResponse<String> rename = Rest.call(port, "POST", "/v1/tables/rename", "{\"source\":{\"namespace\":[\"sandbox\"],\"name\":\"kept\"},"
                    + "\"destination\":{\"namespace\":[\"sandbox\"],\"name\":\"renamed\"}}", sneaky);
            assertThat(rename.statusCode()).as(rename.body()).isEqualTo(204);
            HttpResponse<String> renamed = Rest.call(port, "GET", "/v1/namespaces/sandbox/tables/renamed", null, sneaky);
            assertThat(renamed.statusCode()).as(renamed.body()).isEqualTo(200);
            assertThat(Rest.json(renamed).get("storage-credentials").get(0).get("prefix").asText()).isEqualTo(keptDir);

            // The name used again after a drop: a directory of its own; the dropped table's is never assigned again.
            assertThat(Rest.call(port, "DELETE", "/v1/namespaces/ns/tables/t1", null, admin).statusCode()).isEqualTo(204);
            HttpResponse<String> second = Rest.call(port, "POST", "/v1/namespaces/ns/tables", "{\"name\":\"t1\"," + schema + "}", admin);
            assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
            String secondDir = Rest.json(second).get("metadata").get("location").asText();
            assertThat(secondDir).isNotEqualTo(firstDir).startsWith("s3://" + BUCKET + "/whouse/ns/t1/");
            assertThat(Rest.json(second).get("storage-credentials").get(0).get("prefix").asText()).isEqualTo(secondDir);
            assertThat(lastPolicy().toString()).doesNotContain(firstDir.substring(("s3://" + BUCKET + "/").length()));
            assertThat(Rest.call(port, "DELETE", "/v1/namespaces/ns/tables/t1", null, admin).statusCode()).isEqualTo(204);
            HttpResponse<String> again = Rest.call(port, "POST", "/v1/namespaces/ns/tables",
                    "{\"name\":\"t1\",\"location\":\"" + firstDir + "\"," + schema + "}", admin);
            assertThat(again.statusCode()).as("a create naming a location once assigned: " + again.body()).isEqualTo(409);
            assertThat(again.body()).contains("was assigned to another table");
            assertThat(Rest.call(port, "GET", "/v1/namespaces/ns/tables/t1", null, admin).statusCode()).as("nothing was created").isEqualTo(404);
            // Registering the dropped table's metadata file: a table again, but its directory is still the dropped
            // table's, so its storage is not delegated (undrop keeps it).
            HttpResponse<String> registered = Rest.call(port, "POST", "/v1/namespaces/ns/register",
                    "{\"name\":\"t1\",\"metadata-location\":\"" + firstMetadata + "\"}", admin);
            assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
            HttpResponse<String> registeredLoad = Rest.call(port, "GET", "/v1/namespaces/ns/tables/t1", null, admin);
            assertThat(registeredLoad.statusCode()).as(registeredLoad.body()).isEqualTo(403);
            assertThat(registeredLoad.body()).contains("or the table was registered");
            // Moving a table onto a directory of the assigned shape that nobody holds yet: refused (only a create takes one).
            HttpResponse<String> squat = Rest.call(port, "POST", "/v1/namespaces/sandbox/tables/renamed",
                    "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":\"s3://" + BUCKET
                    + "/whouse/sandbox/next/" + java.util.UUID.randomUUID() + "\"}]}", sneaky);
            assertThat(squat.statusCode()).as(squat.body()).isEqualTo(400);
            assertThat(squat.body()).contains("only a create may take one");

            assertThat(gate.assumed.subList(assumed, gate.assumed.size()).stream().map(a -> a.params().get("Policy")))
                    .as("no session policy for another table's location was ever asked for")
                    .noneMatch(p -> p.contains(firstDir.substring(("s3://" + BUCKET + "/").length())));
            assertThat(rejections(port) - before).as("each refusal counted").isEqualTo(5);
        }
    }
}
