package lake.catalogapi;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import lake.catalog.StoredRecords;
import lake.client.model.Json;
import lake.client.model.Txn;
import lake.meta.KeyValue;
import lake.metasrv.ClientMutation;
import lake.metasrv.ClientTransaction;
import lake.protocol.ApiRequests;
import lake.protocol.StrictJson;
import lake.wire.CasRequest;
import lake.wire.ClusterInfo;
import lake.wire.DeleteRequest;
import lake.wire.Entry;
import lake.wire.EntryPage;
import lake.wire.Fields;
import lake.wire.GetRequest;
import lake.wire.Health;
import lake.wire.LeaderInfo;
import lake.wire.Resigned;
import lake.wire.ScanRequest;
import lake.wire.TxnRequest;
import lake.wire.WriteResult;
import lake.wire.catalog.CatalogRequest;
import lake.wire.catalog.CatalogSnapshot;
import lake.wire.catalog.NamePage;
import lake.wire.catalog.Namespace;
import lake.wire.catalog.Purge;
import lake.wire.catalog.Registration;
import lake.wire.catalog.Table;
import lake.wire.catalog.TableChange;
import lake.wire.catalog.Tombstone;
import lake.wire.catalog.TombstonePage;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static java.nio.charset.StandardCharsets.UTF_8;
import static lake.wire.TxnRequest.Action.CHECK;
import static lake.wire.TxnRequest.Action.DELETE;
import static lake.wire.TxnRequest.Action.PUT;
import static lake.wire.TxnRequest.Condition.ABSENT;
import static lake.wire.TxnRequest.Condition.EXISTS;
import static lake.wire.TxnRequest.Condition.NONE;
import static lake.wire.TxnRequest.Condition.VALUE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One wire model (lake.wire): every reply a node renders reads back, through the JSON text it
 * sends and the client's parser, as the record it was rendered from; every request body the
 * client builds decodes on the server's strict decoders to the values it was built from.
 */
class WireShapesTest {
    /** 2^64-2 and 2^64-1 as unsigned 64-bit: above 2^63-1, so the JSON holds a BigInteger. */
    private static final long ABOVE_2_63 = -2L;
    private static final long U64_MAX = -1L;
    private static final MultiMap NO_HEADERS = MultiMap.caseInsensitiveMultiMap();

    /** What the client parses from the text a node sends for {@code rendered} (HTTP and bus send {@code encode()}). */
    private static Map<String, Object> sent(JsonObject rendered) {
        return Json.parseObject(rendered.encode());
    }

    /** A registration as the catalog stores it: lake's members, then ones this version does not know. */
    private static final String STORED = "{\"location\":\"s3://lake/robots/episodes/inc-1\",\"engine\":\"lance\","
            + "\"current_version\":18446744073709551614,\"incarnation_id\":\"inc-1\",\"columns\":[{\"name\":\"id\",\"type\":\"i64\"},"
            + "{\"name\":\"video\",\"type\":\"file\"}],\"schema_ipc\":[255,255,0,120],\"owner\":{\"team\":\"lab\",\"since\":2024}}";
    /** A legacy registration: no engine, incarnation or columns. */
    private static final String LEGACY = "{\"location\":\"s3://lake/robots/legacy\",\"current_version\":3}";

    /** {@link #STORED} as the client should read it, built by hand. */
    private static Registration storedRegistration() {
        return new Registration(Fields.of("location", "s3://lake/robots/episodes/inc-1", "engine", "lance",
                "current_version", new BigInteger("18446744073709551614"), "incarnation_id", "inc-1",
                "columns", List.of(Fields.of("name", "id", "type", "i64"), Fields.of("name", "video", "type", "file")),
                "schema_ipc", List.of(255L, 255L, 0L, 120L), "owner", Fields.of("team", "lab", "since", 2024L)));
    }

    @Test
    void everyWireReplyRoundTrips() {
        byte[] binary = {0, (byte) 0xff, 0x7f, '\n'};
        byte[] text = "v".getBytes(UTF_8);

        // KV, as NodeApi renders a get, a scan page and a write outcome.
        assertThat(Entry.from(sent(new JsonObject(Entry.toMap("kv/bin", binary))))).isEqualTo(new Entry("kv/bin", binary));
        List<KeyValue> stored = List.of(new KeyValue("scan/a", binary), new KeyValue("scan/b", text));
        for (String continuation : Arrays.asList("opaque", null)) {
            JsonObject page = new JsonObject(EntryPage.toMap(stored, kv -> Entry.toMap(kv.key(), kv.value()), continuation));
            assertThat(EntryPage.from(sent(page))).isEqualTo(new EntryPage(List.of(new Entry("scan/a", binary), new Entry("scan/b", text)), continuation));
            assertThat(sent(page)).containsKey("continuation");
        }
        for (WriteResult r : List.of(new WriteResult(true, U64_MAX, List.of(), U64_MAX), new WriteResult(false, 7, List.of(0, 2), 0))) {
            assertThat(WriteResult.from(sent(new JsonObject(r.toMap())))).isEqualTo(r);
        }
        assertThat(sent(new JsonObject(new WriteResult(true, 1, List.of(), 0).toMap()))).as("no failed member when none failed")
                .containsOnlyKeys("applied", "epoch");

        // The service: leader (with a lease, and without: null members present), cluster, health, resign.
        LeaderInfo leading = new LeaderInfo("a", "leader", "a", ABOVE_2_63, 1_700_000_000_000L);
        LeaderInfo none = new LeaderInfo("b", "follower", null, null, null);
        assertThat(LeaderInfo.from(sent(new JsonObject(leading.toMap())))).isEqualTo(leading);
        assertThat(LeaderInfo.from(sent(new JsonObject(none.toMap())))).isEqualTo(none);
        assertThat(sent(new JsonObject(none.toMap()))).containsKeys("leader", "epoch", "expires_at_ms");
        List<ClusterInfo.Member> members = List.of(new ClusterInfo.Member("a", "leader", U64_MAX, "10.0.0.1", 8080, 1_700_000_000_000L),
                new ClusterInfo.Member("b", "follower", null, null, null, null));
        // NodeApi reads each member as announced (a JSON object that went through the cluster's map), then renders the list.
        List<ClusterInfo.Member> announced = members.stream()
                .map(m -> ClusterInfo.Member.from(new JsonObject(new JsonObject(m.toMap()).encode()).getMap())).toList();
        assertThat(ClusterInfo.from(sent(new JsonObject(new ClusterInfo("a", announced).toMap())))).isEqualTo(new ClusterInfo("a", members));
        assertThat(Health.from(sent(new JsonObject(new Health(Health.UP, "a").toMap())))).isEqualTo(new Health("up", "a"));
        assertThat(Resigned.from(sent(new JsonObject(new Resigned(true).toMap())))).isEqualTo(new Resigned(true));

        // The catalog, as CatalogApi renders the catalog's own records.
        lake.catalog.model.Table table = new lake.catalog.model.Table("robots", "episodes", StoredRecords.registration(STORED));
        lake.catalog.model.Table legacy = new lake.catalog.model.Table("robots", "legacy", StoredRecords.registration(LEGACY));
        Table expected = new Table("robots", "episodes", storedRegistration());
        Table expectedLegacy = new Table("robots", "legacy", new Registration(Fields.of("location", "s3://lake/robots/legacy", "current_version", 3L)));

        Table read = Table.from(sent(CatalogApi.table(table)));
        assertThat(read).isEqualTo(expected);
        assertThat(Json.write(read.registration().toMap())).as("exactly as stored, unknown members in place").isEqualTo(STORED);
        assertThat(read.registration().currentVersion()).isEqualTo(ABOVE_2_63);
        assertThat(read.registration().columns()).extracting(Registration.Column::toString).containsExactly("id:i64", "video:file");
        Table readLegacy = Table.from(sent(CatalogApi.table(legacy)));
        assertThat(readLegacy).isEqualTo(expectedLegacy);
        assertThat(Json.write(readLegacy.registration().toMap())).isEqualTo(LEGACY);
        assertThat(readLegacy.registration().engine()).isEqualTo(Registration.DEFAULT_ENGINE);
        assertThat(readLegacy.registration().incarnationId()).isNull();
        assertThat(readLegacy.registration().columns()).isEmpty();

        assertThat(TableChange.from(sent(new JsonObject(TableChange.modified(CatalogApi.wire(table)).toMap()))))
                .isEqualTo(TableChange.modified(expected));
        TableChange unchanged = TableChange.notModified("robots", "episodes", ABOVE_2_63);
        assertThat(TableChange.from(sent(new JsonObject(unchanged.toMap())))).isEqualTo(unchanged);

        Tombstone tomb = Tombstone.from(sent(CatalogApi.tombstone(new lake.catalog.model.Tombstone("robots", "episodes", "inc-1", 1_700_000_000_000L, table.registration()))));
        assertThat(tomb).isEqualTo(new Tombstone("robots", "episodes", "inc-1", 1_700_000_000_000L, storedRegistration()));
        JsonObject lakes = CatalogApi.tombstone(new lake.catalog.model.Tombstone("robots", "legacy", null, null, legacy.registration()));
        assertThat(sent(lakes)).containsEntry("incarnation_id", null);
        assertThat(Tombstone.from(sent(lakes))).isEqualTo(new Tombstone("robots", "legacy", null, null, expectedLegacy.registration()));
        TombstonePage tombs = new TombstonePage(List.of(CatalogApi.wire(new lake.catalog.model.Tombstone("robots", "episodes", "inc-1", 1_700_000_000_000L, table.registration()))), "next");
        assertThat(TombstonePage.from(sent(new JsonObject(tombs.toMap())))).isEqualTo(new TombstonePage(List.of(tomb), "next"));

        Tombstone expiring = new Tombstone("robots", "episodes", "inc-1", 1_700_000_000_000L, storedRegistration(), 1_700_604_800_000L);
        assertThat(TombstonePage.from(sent(new JsonObject(new TombstonePage(List.of(expiring), null).toMap()))).tombstones())
                .as("a listed tombstone's expires_ms").containsExactly(expiring);

        // The purge queue, as CatalogApi renders a job: queued (no epoch, no message), and one a leader claimed.
        lake.catalog.model.PurgeJob queued = lake.catalog.model.PurgeJob.queued("robots", "episodes", "inc-1",
                lake.catalog.model.PurgeJob.Reason.REQUESTED, 1_700_000_000_000L);
        Purge job = Purge.from(sent(new JsonObject(CatalogApi.purge(queued).toMap())));
        assertThat(job).isEqualTo(new Purge("robots", "episodes", "inc-1", "requested", "queued", null, 1_700_000_000_000L, null, 0, 0, null));
        Purge purging = new Purge("robots", "frames", "inc-2", "retention", "purging", "manifests", 1_700_000_000_000L, ABOVE_2_63, 3, 2_500, null);
        Purge.Page purges = new Purge.Page(List.of(job, purging), "next");
        assertThat(Purge.Page.from(sent(new JsonObject(purges.toMap())))).isEqualTo(purges);
        assertThat(sent(new JsonObject(job.toMap()))).containsEntry("epoch", null).containsEntry("message", null);

        Map<String, String> props = new LinkedHashMap<>();
        props.put("zone", "eu");
        props.put("owner", "lab");
        for (boolean dropping : List.of(true, false)) {
            JsonObject ns = CatalogApi.namespace(new lake.catalog.model.Namespace("robots", props, dropping));
            Namespace readNs = Namespace.from(sent(ns));
            assertThat(readNs).isEqualTo(new Namespace("robots", props, dropping));
            assertThat(readNs.properties().keySet()).as("in stored order").containsExactly("zone", "owner");
            assertThat(sent(ns).containsKey("dropping")).isEqualTo(dropping);
        }
        for (NamePage p : List.of(new NamePage(NamePage.Listing.NAMESPACES, List.of("a", "b"), "b"),
                new NamePage(NamePage.Listing.TABLES, List.of("episodes"), null))) {
            assertThat(NamePage.from(sent(new JsonObject(p.toMap())))).isEqualTo(p);
        }

        assertThat(CatalogSnapshot.from(sent(CatalogApi.snapshot(new lake.catalog.model.CatalogSnapshot.Snapshot("gen-1", List.of(table, legacy))))))
                .isEqualTo(new CatalogSnapshot(true, "gen-1", List.of(expected, expectedLegacy)));
        JsonObject never = CatalogApi.snapshot(new lake.catalog.model.CatalogSnapshot.NotModified(null));
        assertThat(CatalogSnapshot.from(sent(never))).isEqualTo(new CatalogSnapshot(false, null, List.of()));
        assertThat(sent(never)).containsEntry("generation", null).doesNotContainKey("tables");
    }

    /** The body a node decodes from the JSON text the client sends for {@code body} (HTTP and bus alike). */
    private static JsonObject received(Map<String, Object> body) {
        return StrictJson.busBody(Json.write(body));
    }

    private static TxnRequest decodedTxn(Map<String, Object> body) {
        ClientTransaction t = ApiRequests.txn(received(body), NO_HEADERS);
        return new TxnRequest(t.transaction().ops().stream().map(op -> new TxnRequest.Op(op.key(),
                TxnRequest.Condition.valueOf(op.condition().name()), op.expected(),
                TxnRequest.Action.valueOf(op.action().name()), op.value())).toList(), t.epoch());
    }

    private static CatalogRequest.CreateTable createTable(JsonObject body) {
        CatalogRequests.CreateTable r = CatalogRequests.createTable(body);
        return new CatalogRequest.CreateTable(r.namespace(), r.name(), r.columns(), r.engine());
    }

    private static CatalogRequest.CommitVersion commitVersion(JsonObject body) {
        CatalogRequests.CommitVersion r = CatalogRequests.commitVersion(body);
        return new CatalogRequest.CommitVersion(r.namespace(), r.name(), r.expectedVersion(), r.version(), r.incarnationId());
    }

    @Test
    void everyWireRequestDecodesOnTheServerAsSent() {
        byte[] v1 = "v1".getBytes(UTF_8);
        byte[] v2 = {0, (byte) 0xfe};

        // Keys and values.
        assertThat(ApiRequests.get(received(new GetRequest("tables/a").toMap()))).isEqualTo("tables/a");
        for (ScanRequest r : List.of(new ScanRequest("tables/", null, 1000), new ScanRequest("", "opaque", 1),
                new ScanRequest("", null, 10, true))) {
            ApiRequests.Scan s = ApiRequests.scan(received(r.toMap()));
            assertThat(new ScanRequest(s.prefix(), s.continuation(), s.limit(), s.hideSystem())).isEqualTo(r);
        }
        for (CasRequest r : List.of(new CasRequest("kv/a", null, v1, null), new CasRequest("kv/a", v1, v2, ABOVE_2_63))) {
            ClientMutation m = ApiRequests.cas(received(r.toMap()), NO_HEADERS);
            assertThat(new CasRequest(m.key(), m.expected(), m.value(), m.epoch())).isEqualTo(r);
        }
        DeleteRequest d = new DeleteRequest("kv/a", v2, U64_MAX);
        ClientMutation dm = ApiRequests.delete(received(d.toMap()), NO_HEADERS);
        assertThat(new DeleteRequest(dm.key(), dm.expected(), dm.epoch())).isEqualTo(d);
        TxnRequest txn = new TxnRequest(List.of(
                new TxnRequest.Op("t/create", ABSENT, null, PUT, v1),
                new TxnRequest.Op("t/update", VALUE, v1, PUT, v2),
                new TxnRequest.Op("t/put", NONE, null, PUT, v2),
                new TxnRequest.Op("t/delete-if", VALUE, v2, DELETE, null),
                new TxnRequest.Op("t/delete", NONE, null, DELETE, null),
                new TxnRequest.Op("t/exists", EXISTS, null, CHECK, null),
                new TxnRequest.Op("t/absent", ABSENT, null, CHECK, null),
                new TxnRequest.Op("t/value", VALUE, v1, CHECK, null)), ABOVE_2_63);
        assertThat(decodedTxn(txn.toMap())).isEqualTo(txn);
        // The client's builder sends this shape (Txn.toJson() is its body).
        Txn built = Txn.builder().create("t/a", "1").update("t/b", "1", "2").checkExists("t/c").deleteIf("t/d", v1).build();
        assertThat(decodedTxn(Json.parseObject(built.toJson()))).isEqualTo(new TxnRequest(List.of(
                new TxnRequest.Op("t/a", ABSENT, null, PUT, "1".getBytes(UTF_8)),
                new TxnRequest.Op("t/b", VALUE, "1".getBytes(UTF_8), PUT, "2".getBytes(UTF_8)),
                new TxnRequest.Op("t/c", EXISTS, null, CHECK, null),
                new TxnRequest.Op("t/d", VALUE, v1, DELETE, null)), null));

        // Namespaces.
        Map<String, String> props = new LinkedHashMap<>();
        props.put("zone", "eu");
        props.put("owner", "lab");
        CatalogRoutes.Route createNs = CatalogRoutes.resolve(HttpMethod.POST, "/v1/namespaces", "/v1/namespaces", null);
        for (CatalogRequest.CreateNamespace r : List.of(new CatalogRequest.CreateNamespace("robots", props), new CatalogRequest.CreateNamespace("empty", Map.of()))) {
            CatalogRequests.CreateNamespace c = CatalogRequests.createNamespace(CatalogRoutes.merge(createNs, received(r.toMap())));
            assertThat(new CatalogRequest.CreateNamespace(c.namespace(), c.properties())).isEqualTo(r);
            assertThat(c.properties().keySet()).containsExactlyElementsOf(r.properties().keySet());
        }
        assertThat(CatalogRequests.namespace(received(new CatalogRequest.NamespaceName("robots").toMap()))).isEqualTo("robots");

        // Listings: namespaces and tombstones (no namespace), the tables of one namespace.
        for (CatalogRequest.Page p : List.of(new CatalogRequest.Page(null, 1000, null), new CatalogRequest.Page(null, 1, "opaque"))) {
            CatalogRequests.Page page = CatalogRequests.page(received(p.toMap()), CatalogRequests.MAX_NAMESPACE_PAGE, Set.of());
            assertThat(new CatalogRequest.Page(null, page.limit(), page.continuation())).isEqualTo(p);
        }
        CatalogRequest.Page tables = new CatalogRequest.Page("robots", 256, "opaque");
        JsonObject tablesBody = received(tables.toMap());
        CatalogRequests.Page tablesPage = CatalogRequests.page(tablesBody, CatalogRequests.MAX_TABLE_PAGE, Set.of("namespace"));
        assertThat(new CatalogRequest.Page(ApiRequests.string(tablesBody, "namespace"), tablesPage.limit(), tablesPage.continuation())).isEqualTo(tables);

        // Tables: on the bus the whole body; over HTTP the path's names and the rest as the body.
        CatalogRoutes.Route create = CatalogRoutes.resolve(HttpMethod.POST, "/v1/namespaces/robots/tables", "/v1/namespaces/robots/tables", null);
        for (CatalogRequest.CreateTable r : List.of(new CatalogRequest.CreateTable("robots", "episodes", List.of("id:i64", "video:file"), null),
                new CatalogRequest.CreateTable("robots", "frames", List.of("id:i64"), "iceberg"))) {
            assertThat(createTable(received(r.toMap()))).isEqualTo(r);
            assertThat(createTable(CatalogRoutes.merge(create, received(r.httpBody())))).isEqualTo(r);
        }
        String versions = "/v1/namespaces/robots/tables/episodes/versions";
        CatalogRoutes.Route commit = CatalogRoutes.resolve(HttpMethod.POST, versions, versions, null);
        for (CatalogRequest.CommitVersion r : List.of(new CatalogRequest.CommitVersion("robots", "episodes", ABOVE_2_63, U64_MAX, "inc-1"),
                new CatalogRequest.CommitVersion("robots", "episodes", 0, 1, null))) {
            assertThat(commitVersion(received(r.toMap()))).isEqualTo(r);
            assertThat(commitVersion(CatalogRoutes.merge(commit, received(r.httpBody())))).isEqualTo(r);
        }
        // A drop, with and without purge: the bus body, and over HTTP the path and its query.
        for (CatalogRequest.DropTable r : List.of(new CatalogRequest.DropTable("robots", "episodes", true),
                new CatalogRequest.DropTable("robots", "episodes", false))) {
            CatalogRequests.Drop got = CatalogRequests.drop(received(r.toMap()));
            assertThat(new CatalogRequest.DropTable(got.namespace(), got.name(), got.purge())).isEqualTo(r);
            String path = "/v1/namespaces/robots/tables/episodes";
            String query = r.purge() ? "purge=true" : null;
            CatalogRequests.Drop overHttp = CatalogRequests.drop(CatalogRoutes.merge(
                    CatalogRoutes.resolve(HttpMethod.DELETE, path, query == null ? path : path + "?" + query, query), null));
            assertThat(new CatalogRequest.DropTable(overHttp.namespace(), overHttp.name(), overHttp.purge())).isEqualTo(r);
        }
        assertThat(received(new CatalogRequest.DropTable("robots", "episodes", false).toMap()))
                .as("a plain drop's body is the one it always was").isEqualTo(received(new CatalogRequest.TableName("robots", "episodes").toMap()));
        CatalogRequests.Named drop = CatalogRequests.table(received(new CatalogRequest.TableName("robots", "episodes").toMap()));
        assertThat(new CatalogRequest.TableName(drop.namespace(), drop.name())).isEqualTo(new CatalogRequest.TableName("robots", "episodes"));
        for (CatalogRequest.Resolve r : List.of(new CatalogRequest.Resolve("robots", "episodes", null, null), new CatalogRequest.Resolve("robots", "episodes", ABOVE_2_63, 60_000L))) {
            CatalogRequests.Resolve got = CatalogRequests.resolve(received(r.toMap()));
            assertThat(new CatalogRequest.Resolve(got.namespace(), got.name(), got.knownVersion(), r.waitMs() == null ? null : got.waitMs())).isEqualTo(r);
            assertThat(got.waitMs()).as("no wait_ms: no wait").isEqualTo(r.waitMs() == null ? 0 : r.waitMs());
        }

        // The whole catalog.
        for (CatalogRequest.Snapshot r : List.of(new CatalogRequest.Snapshot(null, null), new CatalogRequest.Snapshot("gen-1", 30_000L))) {
            CatalogRequests.Snapshot got = CatalogRequests.snapshot(received(r.toMap()));
            assertThat(new CatalogRequest.Snapshot(got.knownGeneration(), r.waitMs() == null ? null : got.waitMs())).isEqualTo(r);
            assertThat(got.waitMs()).isEqualTo(r.waitMs() == null ? 0 : r.waitMs());
        }
        CatalogRequests.Purge purge = CatalogRequests.purge(received(new CatalogRequest.Purge("robots", "episodes", "inc-1").toMap()));
        assertThat(new CatalogRequest.Purge(purge.namespace(), purge.name(), purge.incarnationId())).isEqualTo(new CatalogRequest.Purge("robots", "episodes", "inc-1"));
    }
}
