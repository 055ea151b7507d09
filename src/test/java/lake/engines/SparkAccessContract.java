package lake.engines;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.oidc.TestIdp;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real Spark 3.5 with Iceberg's Spark runtime (a child JVM: {@link SparkEngine}) against a node
 * whose principals come from an OIDC provider of the test's own ({@link TestIdp}): one of Spark's
 * Iceberg catalogs signs in with a JWT as its {@code token}, the other with Iceberg's OAuth2
 * settings ({@code credential}, {@code oauth2-server-uri}, {@code scope}). Run against every backend.
 */
public abstract class SparkAccessContract {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;
    TestIdp idp;
    MetasrvNode node;

    @BeforeEach
    void node() throws Exception {
        h = new NodeHarness();
        ManualClock clock = new ManualClock(1_700_000_000_000L);
        idp = new TestIdp(clock::wallMillis);
        node = idp.leader(h, dir, clock, ADMIN, backend(dir));
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
        idp.close();
    }

    int call(String method, String path, String body, String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void sparkWithReadOnlyPrincipalCannotInsert() throws Exception {
        String uri = "http://127.0.0.1:" + node.httpPort() + "/iceberg";
        // The analyst signs in as an OAuth2 client whose tokens carry the read role, and is granted read on `sales`.
        idp.register("analyst", "analyst-secret", "lake-read");
        assertThat(call("POST", "/iceberg/v1/namespaces", "{\"namespace\":[\"sales\"]}", ADMIN)).isEqualTo(200);
        assertThat(call("POST", "/iceberg/v1/namespaces/sales/tables", "{\"name\":\"orders\",\"schema\":{\"type\":\"struct\",\"fields\":["
                + "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},{\"id\":2,\"name\":\"item\",\"required\":false,\"type\":\"string\"}]}}",
                ADMIN)).isEqualTo(200);
        assertThat(call("POST", "/v1/grants", "{\"principal\":\"analyst\",\"namespace\":\"sales\",\"privileges\":[\"read\"]}", ADMIN)).isEqualTo(200);
        String probe = idp.mint("analyst", "lake-read");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> call("GET", "/iceberg/v1/namespaces/sales/tables/orders", null, probe) == 200);

        EngineProcess.Result r = SparkEngine.run(Map.ofEntries(
                Map.entry("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"),
                Map.entry("spark.sql.catalog.admin", "org.apache.iceberg.spark.SparkCatalog"),
                Map.entry("spark.sql.catalog.admin.type", "rest"),
                Map.entry("spark.sql.catalog.admin.uri", uri),
                // Spark's `token` setting with a JWT minted beforehand (an admin role); the analyst's catalog takes OAuth2's.
                Map.entry("spark.sql.catalog.admin.token", idp.mint("platform-bot", "lake-admin")),
                Map.entry("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog"),
                Map.entry("spark.sql.catalog.lake.type", "rest"),
                Map.entry("spark.sql.catalog.lake.uri", uri),
                Map.entry("spark.sql.catalog.lake.credential", "analyst:analyst-secret"),
                Map.entry("spark.sql.catalog.lake.oauth2-server-uri", idp.tokenUrl()),
                Map.entry("spark.sql.catalog.lake.scope", "catalog")), """
                INSERT INTO admin.sales.orders VALUES (1, 'tea'), (2, 'milk');
                SELECT id, item FROM lake.sales.orders ORDER BY id;
                INSERT INTO lake.sales.orders VALUES (3, 'coffee');
                """, dir.resolve("spark"));

        assertThat(idp.tokensIssued()).as("Spark's catalog took its token from the provider's token endpoint").isPositive();
        assertThat(r.rows(2)).as("the analyst reads the granted table: " + r).containsExactly(List.of("1", "tea"), List.of("2", "milk"));
        assertThat(r.failedStatement()).as(r.toString()).isEqualTo(3);
        assertThat(r.errorClass() + "," + r.causes()).as("the engine's forbidden error: " + r).contains("org.apache.iceberg.exceptions.ForbiddenException");
        assertThat(r.message()).as(r.toString()).contains("read-only");
        try (RESTCatalog c = new RESTCatalog()) {
            c.setConf(new org.apache.hadoop.conf.Configuration());
            c.initialize("check", Map.of("uri", uri, "token", ADMIN));
            Table t = c.loadTable(TableIdentifier.of("sales", "orders"));
            assertThat(t.snapshots()).as("the refused INSERT left the table unchanged: only the admin's snapshot").hasSize(1);
            assertThat(t.currentSnapshot().summary()).containsEntry("total-records", "2");
        }
    }
}
