package lake.bench;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The purge benchmark's table (scripts/bench/purge): Iceberg table {@code bench.big} with
 * {@code files} data files, each a small object written to moto's S3 and appended through the
 * Iceberg Java client in commits of {@code perCommit}; and {@code bench.t000}, the table the API
 * load reads meanwhile; and, for the peer run, {@code peerFiles} objects of the same size under
 * {@code peer/p-<n>} in the same bucket, which the benchmark deletes with S3's own
 * {@code DeleteObjects} (no catalog). Prints the big table's location.
 * Usage: PurgeTableSetup NODE_PORT S3_ENDPOINT FILES PER_COMMIT [PEER_FILES]
 */
public final class PurgeTableSetup {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String endpoint = args[1];
        int files = Integer.parseInt(args[2]);
        int perCommit = Integer.parseInt(args[3]);
        int peerFiles = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        Map<String, String> p = new HashMap<>();
        p.put("uri", "http://127.0.0.1:" + port + "/iceberg");
        p.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        p.put("s3.endpoint", endpoint);
        p.put("s3.path-style-access", "true");
        p.put("s3.access-key-id", "test");
        p.put("s3.secret-access-key", "test");
        p.put("client.region", "us-east-1");
        p.put("http-client.type", "urlconnection");
        Schema schema = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));
        try (RESTCatalog c = new RESTCatalog();
             S3Client s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1).forcePathStyle(true)
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                     .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build()) {
            c.setConf(new org.apache.hadoop.conf.Configuration());
            c.initialize("bench", p);
            c.createNamespace(Namespace.of("bench"));
            c.createTable(TableIdentifier.of("bench", "t000"), schema);
            Table big = c.createTable(TableIdentifier.of("bench", "big"), schema);
            String location = big.location();
            String bucket = location.substring("s3://".length(), location.indexOf('/', "s3://".length()));
            String prefix = location.substring(("s3://" + bucket + "/").length());
            ExecutorService pool = Executors.newFixedThreadPool(32);
            byte[] body = {1, 2, 3};
            boolean fill = "1".equals(System.getenv("LAKE_MOTO_BENCH_FILL"));
            for (int from = 0; from < files; from += perCommit) {
                int to = Math.min(files, from + perCommit);
                List<Future<String>> written = new ArrayList<>();
                List<String> keys = new ArrayList<>();
                for (int i = from; i < to; i++) {
                    String key = prefix + "/data/f-" + String.format("%07d", i) + ".parquet";
                    if (fill) {
                        keys.add(key);
                        written.add(java.util.concurrent.CompletableFuture.completedFuture("s3://" + bucket + "/" + key));
                        continue;
                    }
                    written.add(pool.submit(() -> {
                        s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(body));
                        return "s3://" + bucket + "/" + key;
                    }));
                }
                if (fill) fill(endpoint, bucket, keys);
                AppendFiles append = big.newFastAppend();
                for (Future<String> w : written) {
                    append.appendFile(DataFiles.builder(PartitionSpec.unpartitioned()).withPath(w.get()).withFormat(FileFormat.PARQUET)
                            .withFileSizeInBytes(body.length).withRecordCount(1).build());
                }
                append.commit();
                System.err.println("purge-setup: " + to + " data files appended");
            }
            List<Future<?>> peer = new ArrayList<>();
            List<String> peerKeys = new ArrayList<>();
            for (int i = 0; i < peerFiles; i++) {
                String key = "peer/p-" + String.format("%07d", i);
                if (fill) peerKeys.add(key);
                else peer.add(pool.submit(() -> s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(body))));
            }
            for (int i = 0; i < peerKeys.size(); i += 10_000) fill(endpoint, bucket, peerKeys.subList(i, Math.min(peerKeys.size(), i + 10_000)));
            for (Future<?> w : peer) w.get();
            if (peerFiles > 0) System.err.println("purge-setup: " + peerFiles + " peer objects written");
            pool.shutdown();
            System.out.println(location);
        }
    }

    /** Writes {@code keys} into moto's backend through the bench-only fill route (moto_server.py, {@code BenchFill}). */
    private static void fill(String endpoint, String bucket, List<String> keys) throws Exception {
        StringBuilder json = new StringBuilder("{\"bucket\":\"").append(bucket).append("\",\"keys\":[");
        for (int i = 0; i < keys.size(); i++) json.append(i == 0 ? "" : ",").append('"').append(keys.get(i)).append('"');
        json.append("]}");
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build()
                .send(java.net.http.HttpRequest.newBuilder(URI.create(endpoint + "/_lake_bench/fill"))
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(json.toString())).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 || !r.body().contains("\"written\": " + keys.size())) {
            throw new IllegalStateException("the fill route answered " + r.statusCode() + ": " + r.body());
        }
    }
}
