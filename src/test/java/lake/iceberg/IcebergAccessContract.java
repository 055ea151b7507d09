package lake.iceberg;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;
import lake.meta.MetaStore;
import lake.node.AuditLog;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Grants on Iceberg namespaces, tables and views (issue 37): every route decides per object, a
 * refusal writes nothing, listings are filtered, and an object a principal may not see answers as
 * absent. Principals: an admin, who builds the catalog; {@code team-a}, read-write, granted the
 * namespace {@code team_a} whole, {@code read} on {@code shared.dim} and {@code create} on
 * {@code landing}; {@code reader}, read-only, {@code namespaces: [team_a]} (exactly that namespace);
 * {@code team-b}, read-write, granted read and write on {@code shared}. Nothing is granted on
 * {@code other}. Run against every backend.
 */
public abstract class IcebergAccessContract {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String TEAM_A = "team-a-token-0123456789abcdef";
    static final String READER = "reader-token-0123456789abcdef";
    static final String TEAM_B = "team-b-token-0123456789abcdef";

    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;
    int port;
    final List<RESTCatalog> clients = new ArrayList<>();

    @BeforeEach
    void node() throws Exception {
        h = new NodeHarness();
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("team-a", AuthTokens.sha256(TEAM_A), AuthToken.Access.READ_WRITE, null, null, null, List.of(
                        new CatalogGrant("team_a", null, EnumSet.of(Privilege.READ, Privilege.WRITE, Privilege.CREATE, Privilege.DROP)),
                        new CatalogGrant("shared", "dim", Set.of(Privilege.READ)),
                        new CatalogGrant("landing", null, Set.of(Privilege.CREATE)))),
                new AuthToken("reader", AuthTokens.sha256(READER), AuthToken.Access.READ, null, List.of("team_a")),
                new AuthToken("team-b", AuthTokens.sha256(TEAM_B), AuthToken.Access.READ_WRITE, null, null, null, List.of(
                        new CatalogGrant("shared", null, EnumSet.of(Privilege.READ, Privilege.WRITE)))));
        MetasrvNode node = h.deploy(NodeHarness.settings("a", dir.resolve("a"), 10_000, 0, 1_000).with(f -> f.authTokens = tokens),
                new ManualClock(1_700_000_000_000L), backend(dir));
        assertThat(h.campaign(node).isLeader()).isTrue();
        port = node.httpPort();
        RESTCatalog admin = client(ADMIN);
        for (String ns : List.of("team_a", "team_b", "shared", "other", "landing")) admin.createNamespace(Namespace.of(ns));
        admin.createNamespace(Namespace.of("team_a", "sub"));
        for (String t : List.of("team_a.t1", "team_a.t2", "shared.dim", "shared.facts", "other.secret", "team_b.t1")) {
            admin.createTable(TableIdentifier.parse(t), SCHEMA);
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (RESTCatalog c : clients) c.close();
        h.close();
    }

    static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "id", Types.LongType.get()));

    RESTCatalog client(String token) {
        RESTCatalog c = new RESTCatalog();
        c.setConf(new org.apache.hadoop.conf.Configuration());
        c.initialize("c" + clients.size(), Map.of("uri", "http://127.0.0.1:" + port + "/iceberg", "token", token));
        clients.add(c);
        return c;
    }

    HttpResponse<String> call(String method, String path, String body, String token) throws Exception {
        return Rest.call(port, method, path, body, Map.of("Authorization", "Bearer " + token));
    }

    /** A table's property {@code k} as the admin loads it, or null. */
    String property(String table, String k) throws Exception {
        HttpResponse<String> r = call("GET", "/v1/namespaces/" + table.replace(".", "/tables/"), null, ADMIN);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        var v = Rest.json(r).get("metadata").get("properties").get(k);
        return v == null ? null : v.asText();
    }

    static String change(String ns, String t, String k, String v) {
        return "{\"identifier\":{\"namespace\":[\"" + ns + "\"],\"name\":\"" + t + "\"},\"requirements\":[],"
                + "\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"" + k + "\":\"" + v + "\"}}]}";
    }

    @Test
    void principalWithNamespaceGrantUsesIcebergWithinIt() throws Exception {
        RESTCatalog team = client(TEAM_A);
        TableIdentifier events = TableIdentifier.of("team_a", "events");
        Table created = team.createTable(events, SCHEMA);
        DataFile file = DataFiles.builder(PartitionSpec.unpartitioned()).withPath(created.location() + "/data/f1.parquet")
                .withFileSizeInBytes(100).withRecordCount(1).build();
        created.newFastAppend().appendFile(file).commit();
        Table loaded = team.loadTable(events);
        assertThat(loaded.currentSnapshot()).isNotNull();
        assertThat(loaded.currentSnapshot().addedDataFiles(loaded.io())).extracting(DataFile::location).containsExactly(file.location());
        assertThat(team.dropTable(events, false)).isTrue();
        assertThat(team.tableExists(events)).isFalse();

        // Outside its grants: hidden objects are absent, visible ones without the privilege forbidden.
        assertThatThrownBy(() -> team.loadTable(TableIdentifier.of("other", "secret"))).isInstanceOf(NoSuchTableException.class);
        assertThatThrownBy(() -> team.createTable(TableIdentifier.of("other", "mine"), SCHEMA)).isInstanceOf(NoSuchNamespaceException.class);
        assertThatThrownBy(() -> team.createTable(TableIdentifier.of("shared", "mine"), SCHEMA))
                .isInstanceOf(ForbiddenException.class).hasMessageContaining("create");
        Table dim = team.loadTable(TableIdentifier.of("shared", "dim"));
        assertThatThrownBy(() -> dim.updateProperties().set("owner", "team-a").commit())
                .isInstanceOf(ForbiddenException.class).hasMessageContaining("write");
        assertThat(property("shared.dim", "owner")).as("the refused commit wrote nothing").isNull();
        assertThatThrownBy(() -> team.dropTable(TableIdentifier.of("shared", "dim"))).isInstanceOf(ForbiddenException.class);
        assertThat(team.dropNamespace(Namespace.of("team_a", "sub"))).as("a child namespace needs drop on its parent: team_a grants it").isTrue();
        assertThatThrownBy(() -> team.dropNamespace(Namespace.of("shared"))).as("drop needs drop granted on it or above it; shared shows only dim")
                .isInstanceOf(ForbiddenException.class);
        // Create-only on landing: it may create there, and not read or drop what it made.
        TableIdentifier drop = TableIdentifier.of("landing", "drop1");
        team.createTable(drop, SCHEMA);
        assertThat(client(ADMIN).tableExists(drop)).isTrue();
        assertThatThrownBy(() -> team.loadTable(drop)).isInstanceOf(ForbiddenException.class);
        // A staged create (as engines' CREATE TABLE AS SELECT) ends in a commit that creates: create suffices.
        TableIdentifier staged = TableIdentifier.of("landing", "staged");
        team.buildTable(staged, SCHEMA).createTransaction().commitTransaction();
        assertThat(client(ADMIN).tableExists(staged)).isTrue();
        assertThatThrownBy(() -> team.buildTable(staged, SCHEMA).replaceTransaction().commitTransaction())
                .as("replacing a table it may neither read nor write is refused").isInstanceOf(ForbiddenException.class);

        // A read-only principal granted the namespace reads it, and writes nothing.
        RESTCatalog reader = client(READER);
        Table t1 = reader.loadTable(TableIdentifier.of("team_a", "t1"));
        assertThatThrownBy(() -> t1.updateProperties().set("k", "v").commit()).isInstanceOf(ForbiddenException.class);
        assertThat(property("team_a.t1", "k")).isNull();
    }

    @Test
    void multiTableCommitNeedsWriteOnEveryTable() throws Exception {
        String onlyRead = "{\"table-changes\":[" + change("team_a", "t1", "k", "1") + "," + change("shared", "dim", "k", "1") + "]}";
        HttpResponse<String> refused = call("POST", "/v1/transactions/commit", onlyRead, TEAM_A);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(refused.body()).contains("ForbiddenException").contains("shared.dim");
        assertThat(property("team_a.t1", "k")).as("all or nothing: the writable table is unchanged too").isNull();
        assertThat(property("shared.dim", "k")).isNull();

        String hidden = "{\"table-changes\":[" + change("team_a", "t1", "k", "2") + "," + change("other", "secret", "k", "2") + "]}";
        HttpResponse<String> absent = call("POST", "/v1/transactions/commit", hidden, TEAM_A);
        assertThat(absent.statusCode()).as(absent.body()).isEqualTo(404);
        assertThat(absent.body()).contains("NoSuchTableException");
        assertThat(property("team_a.t1", "k")).isNull();
        assertThat(property("other.secret", "k")).isNull();

        String both = "{\"table-changes\":[" + change("team_a", "t1", "k", "3") + "," + change("team_a", "t2", "k", "3") + "]}";
        HttpResponse<String> applied = call("POST", "/v1/transactions/commit", both, TEAM_A);
        assertThat(applied.statusCode()).as(applied.body()).isEqualTo(204);
        assertThat(property("team_a.t1", "k")).isEqualTo("3");
        assertThat(property("team_a.t2", "k")).isEqualTo("3");
    }

    @Test
    void renameNeedsRightsAtBothEnds() throws Exception {
        RESTCatalog team = client(TEAM_A);
        RESTCatalog admin = client(ADMIN);
        // Drop at the source, but no create at the target.
        assertThatThrownBy(() -> team.renameTable(TableIdentifier.of("team_a", "t1"), TableIdentifier.of("shared", "t1")))
                .isInstanceOf(ForbiddenException.class).hasMessageContaining("create");
        // Create at the target, but only read at the source.
        assertThatThrownBy(() -> team.renameTable(TableIdentifier.of("shared", "dim"), TableIdentifier.of("team_a", "dim")))
                .isInstanceOf(ForbiddenException.class).hasMessageContaining("drop");
        // A source it may not see is absent; a target namespace it may not see too.
        assertThatThrownBy(() -> team.renameTable(TableIdentifier.of("other", "secret"), TableIdentifier.of("team_a", "secret")))
                .isInstanceOf(NoSuchTableException.class);
        assertThatThrownBy(() -> team.renameTable(TableIdentifier.of("team_a", "t1"), TableIdentifier.of("other", "t1")))
                .isInstanceOf(NoSuchNamespaceException.class);
        assertThat(admin.listTables(Namespace.of("team_a"))).contains(TableIdentifier.of("team_a", "t1"));
        assertThat(admin.listTables(Namespace.of("shared"))).containsExactlyInAnyOrder(
                TableIdentifier.of("shared", "dim"), TableIdentifier.of("shared", "facts"));
        assertThat(admin.listTables(Namespace.of("other"))).containsExactly(TableIdentifier.of("other", "secret"));

        // Drop at the source and create at the target (landing grants create only).
        team.renameTable(TableIdentifier.of("team_a", "t1"), TableIdentifier.of("landing", "t1"));
        assertThat(admin.tableExists(TableIdentifier.of("landing", "t1"))).isTrue();
        assertThat(admin.tableExists(TableIdentifier.of("team_a", "t1"))).isFalse();
    }

    @Test
    void listingShowsOnlyGrantedObjects() throws Exception {
        RESTCatalog team = client(TEAM_A);
        assertThat(team.listNamespaces()).containsExactlyInAnyOrder(Namespace.of("team_a"), Namespace.of("shared"), Namespace.of("landing"));
        assertThat(team.listNamespaces(Namespace.of("team_a"))).containsExactly(Namespace.of("team_a", "sub"));
        assertThat(team.listTables(Namespace.of("team_a")))
                .containsExactlyInAnyOrder(TableIdentifier.of("team_a", "t1"), TableIdentifier.of("team_a", "t2"));
        assertThat(team.listTables(Namespace.of("shared"))).containsExactly(TableIdentifier.of("shared", "dim"));
        assertThatThrownBy(() -> team.listTables(Namespace.of("other"))).isInstanceOf(NoSuchNamespaceException.class);
        assertThat(client(READER).listNamespaces()).containsExactly(Namespace.of("team_a"));

        // Page by page: short pages keep their token, and the walk yields exactly the granted tables.
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            HttpResponse<String> page = call("GET", "/v1/namespaces/shared/tables?pageSize=1" + (token == null ? "" : "&pageToken=" + token), null, TEAM_A);
            assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
            var body = Rest.json(page);
            body.get("identifiers").forEach(i -> seen.add(i.get("name").asText()));
            token = body.hasNonNull("next-page-token") ? body.get("next-page-token").asText() : null;
            assertThat(++pages).isLessThan(10);
        } while (token != null);
        assertThat(seen).containsExactly("dim");
        assertThat(pages).as("pages run over what it sees: no empty page tells of a hidden table").isEqualTo(1);
        // A create-only grant shows the namespace, not what others put in it.
        client(ADMIN).createTable(TableIdentifier.of("landing", "theirs"), SCHEMA);
        assertThat(team.listTables(Namespace.of("landing"))).isEmpty();
        assertThat(call("GET", "/v1/namespaces/landing", null, TEAM_A).statusCode()).as("its properties need read").isEqualTo(403);
        assertThat(call("HEAD", "/v1/namespaces/landing", null, TEAM_A).statusCode()).as("it may know it exists").isEqualTo(204);
        // `namespaces` names exactly its namespaces: not their children.
        assertThat(call("GET", "/v1/namespaces/team_a%1Fsub", null, READER).statusCode()).isEqualTo(404);
    }

    @Test
    void everyFaceDecidesPerObjectAlike() throws Exception {
        RESTCatalog admin = client(ADMIN);
        admin.createTable(TableIdentifier.of("landing", "theirs"), SCHEMA);
        admin.loadTable(TableIdentifier.of("landing", "theirs")).updateProperties().set("secret", "s3cr3t").commit();
        // The catalog API: team-b reads and writes shared, but neither drops nor creates there.
        HttpResponse<String> drop = lake("DELETE", "/v1/namespaces/shared/tables/dim", null, TEAM_B);
        assertThat(drop.statusCode()).as(drop.body()).isEqualTo(403);
        assertThat(admin.tableExists(TableIdentifier.of("shared", "dim"))).isTrue();
        assertThat(lake("POST", "/v1/namespaces/shared/tables", "{\"name\":\"x\",\"columns\":[\"id:i64\"]}", TEAM_B).statusCode()).isEqualTo(403);
        assertThat(lake("GET", "/v1/namespaces/shared/tables/dim", null, TEAM_B).statusCode()).isEqualTo(200);
        // team-a may create in landing, and neither resolve nor list what others loaded there.
        HttpResponse<String> resolve = lake("GET", "/v1/namespaces/landing/tables/theirs", null, TEAM_A);
        assertThat(resolve.statusCode()).as(resolve.body()).isEqualTo(403);
        assertThat(lake("GET", "/v1/namespaces/landing/tables", null, TEAM_A).body()).doesNotContain("theirs");
        // Hidden on the catalog API too: the same 404 and body as a missing table.
        HttpResponse<String> hidden = lake("GET", "/v1/namespaces/other/tables/secret", null, TEAM_A);
        HttpResponse<String> missing = lake("GET", "/v1/namespaces/other/tables/nope", null, ADMIN);
        assertThat(hidden.statusCode()).isEqualTo(404);
        assertThat(hidden.body().replace("secret", "X")).isEqualTo(missing.body().replace("nope", "X"));
        // Events show only what the principal may read whole.
        for (String[] face : new String[][] {{"POST", "/iceberg/v1/events", "{}"}, {"GET", "/v1/catalog/events?after=0", null}}) {
            HttpResponse<String> events = lake(face[0], face[1], face[2], TEAM_A);
            assertThat(events.statusCode()).as(face[1] + ": " + events.body()).isEqualTo(200);
            assertThat(events.body()).as(face[1]).doesNotContain("theirs").doesNotContain("s3cr3t").doesNotContain("secret");
        }
        // A commit that creates needs create, whatever write is held.
        String create = "{\"requirements\":[{\"type\":\"assert-create\"}],\"updates\":[{\"action\":\"assign-uuid\",\"uuid\":"
                + "\"00000000-0000-4000-8000-000000000001\"},{\"action\":\"upgrade-format-version\",\"format-version\":2},"
                + "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}},"
                + "{\"action\":\"set-current-schema\",\"schema-id\":-1},{\"action\":\"set-location\",\"location\":\"file:/tmp/x\"}]}";
        HttpResponse<String> created = call("POST", "/v1/namespaces/shared/tables/newt", create, TEAM_B);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(403);
        assertThat(admin.tableExists(TableIdentifier.of("shared", "newt"))).isFalse();
        // A child namespace by a `create` grant on its parent, alike on both faces.
        assertThat(lake("POST", "/v1/namespaces", "{\"namespace\":\"team_a.made\"}", TEAM_A).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/v1/namespaces", "{\"namespace\":[\"team_a\",\"made2\"]}", TEAM_A).statusCode()).isEqualTo(200);
        assertThat(lake("POST", "/v1/namespaces", "{\"namespace\":\"shared.made\"}", TEAM_B).statusCode()).isEqualTo(403);
        // A read principal's write is refused in Iceberg's error model.
        HttpResponse<String> readOnly = call("POST", "/v1/namespaces/team_a/tables/t1", Rest.setProperty("k", "v"), READER);
        assertThat(readOnly.statusCode()).isEqualTo(403);
        assertThat(readOnly.body()).contains("ForbiddenException");
    }

    @Test
    void refusedNamespaceChangesAreAuditedAsRefused() throws Exception {
        try (AuditLog audit = new AuditLog()) {
            assertThat(call("POST", "/v1/namespaces", "{\"namespace\":[\"shared\",\"x\"]}", TEAM_B).statusCode()).isEqualTo(403);
            assertThat(call("DELETE", "/v1/namespaces/team_a%1Fsub", null, TEAM_B).statusCode()).isEqualTo(404);
            assertThat(audit.lines("admin")).hasSize(2).allSatisfy(l -> assertThat(l.getString("outcome")).isNotEqualTo("ok"));
            assertThat(audit.lines("refused")).hasSize(2);
        }
    }

    HttpResponse<String> lake(String method, String path, String body, String token) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? java.net.http.HttpRequest.BodyPublishers.noBody() : java.net.http.HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void hiddenObjectAnswersNotFound() throws Exception {
        try (AuditLog audit = new AuditLog()) {
            // Hidden and missing answer alike, status and body, on every route.
            for (String[] route : new String[][] {
                    {"GET", "/v1/namespaces/other/tables/%s", null},
                    {"HEAD", "/v1/namespaces/other/tables/%s", null},
                    {"DELETE", "/v1/namespaces/other/tables/%s", null},
                    {"POST", "/v1/namespaces/other/tables/%s", Rest.setProperty("k", "v")}}) {
                HttpResponse<String> hidden = call(route[0], route[1].formatted("secret"), route[2], TEAM_A);
                HttpResponse<String> missing = call(route[0], route[1].formatted("nope"), route[2], ADMIN);
                assertThat(hidden.statusCode()).as(route[0] + " hidden: " + hidden.body()).isEqualTo(404);
                assertThat(hidden.statusCode()).isEqualTo(missing.statusCode());
                assertThat(hidden.body().replace("secret", "X")).as(route[0]).isEqualTo(missing.body().replace("nope", "X"));
            }
            HttpResponse<String> hiddenNs = call("GET", "/v1/namespaces/other", null, TEAM_A);
            HttpResponse<String> missingNs = call("GET", "/v1/namespaces/nowhere", null, ADMIN);
            assertThat(hiddenNs.statusCode()).isEqualTo(404);
            assertThat(hiddenNs.body().replace("other", "X")).isEqualTo(missingNs.body().replace("nowhere", "X"));
            assertThat(call("GET", "/v1/namespaces/team_b/tables", null, TEAM_A).statusCode()).isEqualTo(404);

            // Nothing was dropped or changed, and every refusal was audited as a 404.
            assertThat(client(ADMIN).tableExists(TableIdentifier.of("other", "secret"))).isTrue();
            assertThat(property("other.secret", "k")).isNull();
            assertThat(audit.lines("refused")).anySatisfy(l -> {
                assertThat(l.getString("principal")).isEqualTo("team-a");
                assertThat(l.getString("object")).isEqualTo("other.secret");
                assertThat(l.getInteger("outcome")).isEqualTo(404);
            });
        }
    }
}
