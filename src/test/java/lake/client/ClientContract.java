package lake.client;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import lake.client.model.ClientOptions;
import lake.client.model.MetasrvException;
import lake.client.model.NodeHealth;
import lake.client.model.Txn;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import lake.wire.ClusterInfo;
import lake.wire.Entry;
import lake.wire.EntryPage;
import lake.wire.LeaderInfo;
import lake.wire.WriteResult;
import lake.wire.catalog.CatalogSnapshot;
import lake.wire.catalog.NamePage;
import lake.wire.catalog.Namespace;
import lake.wire.catalog.Purge;
import lake.wire.catalog.Registration;
import lake.wire.catalog.Table;
import lake.wire.catalog.TableChange;
import lake.wire.catalog.Tombstone;
import lake.wire.catalog.TombstonePage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every client operation against a real node (RocksDB, leading epoch 1) through one transport:
 * the subclasses run it over Vert.x HTTP, the blocking HTTP transport and the event bus.
 */
abstract class ClientContract {
    @TempDir Path dir;
    NodeHarness h;
    MetasrvNode node;
    RecordingStore store;
    MetasrvClient client;

    /** The client under test, talking to {@code node}. */
    protected abstract MetasrvClient client(NodeHarness h, MetasrvNode node);

    static ClientOptions options(int... ports) {
        List<java.net.URI> e = new ArrayList<>();
        for (int p : ports) e.add(java.net.URI.create("http://127.0.0.1:" + p));
        return ClientOptions.defaults().withEndpoints(e).withCallTimeout(java.time.Duration.ofSeconds(10));
    }

    @BeforeEach
    void leader() throws Exception {
        h = new NodeHarness();
        node = h.recordedLeader(dir, new ManualClock(1_700_000_000_000L), r -> store = r);
        client = client(h, node);
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        h.close();
    }

    static <T> T await(Future<T> f) throws Exception {
        return NodeHarness.await(f);
    }

    @Test
    void watchDeliversEveryChangeOnceInOrderAndAConsistentStartEndsExact() throws Exception {
        await(client.put("cache/a", "1"));
        await(client.put("other/x", "1"));
        java.util.Map<String, String> cache = new java.util.concurrent.ConcurrentHashMap<>();
        List<Long> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Watcher w = await(client.watchFromCurrent("cache/", entries -> entries.forEach(e -> cache.put(e.key(),
                new String(e.value(), java.nio.charset.StandardCharsets.UTF_8))), event -> {
            seen.add(event.revision());
            for (lake.wire.WatchEvent.Change c : event.changes()) {
                if (c.deleted()) cache.remove(c.key());
                else cache.put(c.key(), new String(c.value(), java.nio.charset.StandardCharsets.UTF_8));
            }
        }));
        assertThat(cache).containsExactly(java.util.Map.entry("cache/a", "1"));
        List<Long> revisions = new ArrayList<>();
        revisions.add(await(client.put("cache/a", "2")).revision());
        revisions.add(await(client.put("other/y", "1")).revision());
        revisions.add(await(client.create("cache/b", "1")).revision());
        revisions.add(await(client.delete("cache/a", "2")).revision());
        revisions.add(await(client.txn(Txn.builder().put("cache/c", "3").put("other/z", "3").build())).revision());
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> seen.size() >= 4 && w.cursor() >= revisions.get(4));
        assertThat(seen).as("every change under the prefix once, in order; other prefixes not at all")
                .containsExactly(revisions.get(0), revisions.get(2), revisions.get(3), revisions.get(4));
        assertThat(cache).containsOnly(java.util.Map.entry("cache/b", "1"), java.util.Map.entry("cache/c", "3"));
        w.cancel();
        // A page by hand: the cursor moves past records the prefix hides.
        lake.wire.WatchEvent.Page page = await(client.watchPage("other/", revisions.get(3), 10, 0));
        assertThat(page.events()).extracting(lake.wire.WatchEvent::revision).containsExactly(revisions.get(4));
        assertThat(page.events().get(0).changes()).extracting(lake.wire.WatchEvent.Change::key).containsExactly("other/z");
        assertThat(page.cursor()).isEqualTo(revisions.get(4));
        assertThat(await(client.currentRevision())).isEqualTo(revisions.get(4));
    }

    @Test
    void catalogEventsAreWatchedInOrderWithTheirRevisions() throws Exception {
        long start = await(client.currentRevision());
        List<lake.wire.WatchEvent> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Watcher w = client.watchCatalog(start, seen::add);
        await(client.createNamespace("events", Map.of()));
        await(client.createTable("events", "t", List.of("id:i64"), null));
        await(client.put("kv/not-an-event", "1"));
        await(client.dropTable("events", "t"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> seen.size() >= 3);
        w.cancel();
        assertThat(seen).extracting(e -> String.valueOf(e.event().get("type")))
                .containsExactly("namespace_created", "table_created", "table_dropped");
        assertThat(seen).extracting(lake.wire.WatchEvent::revision).isSorted().allMatch(r -> r > start);
        assertThat(seen).allMatch(e -> e.changes().isEmpty());
    }

    @Test
    void keysAndValuesRoundTripExactBytes() throws Exception {
        byte[] binary = {0, (byte) 0xff, 10, 13, (byte) 0x80, 'x'};
        assertThat(await(client.get("kv/absent"))).isEmpty();
        WriteResult created = await(client.create("kv/bin", binary));
        assertThat(created.applied()).isTrue();
        assertThat(created.epoch()).isEqualTo(1L);
        assertThat(await(client.get("kv/bin")).orElseThrow().value()).isEqualTo(binary);
        assertThat(await(client.create("kv/bin", "again")).applied()).as("create of an existing key").isFalse();

        assertThat(await(client.cas("kv/text", null, "v1")).applied()).isTrue();
        assertThat(await(client.cas("kv/text", "wrong", "v2")).applied()).isFalse();
        assertThat(await(client.cas("kv/text", "v1", "v2")).applied()).isTrue();
        assertThat(await(client.getString("kv/text"))).contains("v2");
        assertThat(await(client.put("kv/text", "v3")).applied()).as("put needs no condition").isTrue();
        assertThat(await(client.getString("kv/text"))).contains("v3");

        assertThat(await(client.delete("kv/text", "v2")).applied()).isFalse();
        assertThat(await(client.delete("kv/text", "v3")).applied()).isTrue();
        assertThat(await(client.get("kv/text"))).isEmpty();

        // Keys with characters a path must escape, read back by the same key.
        for (String key : List.of("kv/a b+c?d#e%f", "kv/../dots", "kv/ünï/çødé", "kv//double")) {
            assertThat(await(client.put(key, key)).applied()).isTrue();
            assertThat(await(client.getString(key))).as(key).contains(key);
        }
    }

    @Test
    void transactionsApplyWhollyOrNameEveryFailedOperation() throws Exception {
        WriteResult ok = await(client.txn(Txn.builder().create("tx/a", "1").put("tx/b", "2").build()));
        assertThat(ok.applied()).isTrue();
        assertThat(ok.failed()).isEmpty();
        WriteResult refused = await(client.txn(Txn.builder().create("tx/c", "3").create("tx/a", "x").checkAbsent("tx/b").build()));
        assertThat(refused.applied()).isFalse();
        assertThat(refused.failed()).containsExactly(1, 2);
        assertThat(await(client.get("tx/c"))).as("nothing of a refused transaction is written").isEmpty();
        WriteResult both = await(client.txn(Txn.builder().checkExists("tx/a").deleteIf("tx/b", "2".getBytes()).build()));
        assertThat(both.applied()).isTrue();
        assertThat(await(client.get("tx/b"))).isEmpty();
    }

    @Test
    void scansWalkEveryPageAsIteratorStreamAndList() throws Exception {
        for (int i = 0; i < 25; i++) await(client.create(String.format("scan/%02d", i), "v" + i));
        await(client.create("scanx", "outside"));
        EntryPage first = await(client.scan("scan/", null, 10));
        assertThat(first.entries()).hasSize(10);
        assertThat(first.hasMore()).isTrue();

        Pages<EntryPage> pages = client.scanPages("scan/", 10);
        List<Integer> sizes = new ArrayList<>();
        while (pages.hasNext()) sizes.add(await(pages.next()).entries().size());
        assertThat(sizes).containsExactly(10, 10, 5);

        List<String> streamed = new ArrayList<>();
        Promise<Void> ended = Promise.promise();
        client.scanStream("scan/", 7).exceptionHandler(ended::tryFail).endHandler(v -> ended.tryComplete())
                .handler(p -> p.entries().forEach(e -> streamed.add(e.key())));
        await(ended.future());
        assertThat(streamed).hasSize(25).isSorted().allMatch(k -> k.startsWith("scan/"));

        List<Entry> all = await(client.scanAll("scan/"));
        assertThat(all).hasSize(25);
        assertThat(all.get(24).valueUtf8()).isEqualTo("v24");
    }

    @Test
    void serviceCallsDescribeTheLeaderAndTheCluster() throws Exception {
        LeaderInfo l = await(client.leader());
        assertThat(l.leader()).isEqualTo("a");
        assertThat(l.epoch()).isEqualTo(1L);
        assertThat(l.role()).isEqualTo("leader");
        ClusterInfo c = await(client.cluster());
        assertThat(c.members()).extracting(ClusterInfo.Member::nodeId).contains("a");
        List<NodeHealth> health = await(client.health());
        assertThat(health).isNotEmpty().allMatch(NodeHealth::up).allMatch(NodeHealth::ready);
        assertThat(await(client.resign())).isTrue();
        assertThat(await(client.resign())).as("no longer leading").isFalse();
    }

    @Test
    void refusalsAreTypedExceptions() throws Exception {
        assertThatThrownBy(() -> await(client.put("election/leader", "mine")))
                .isInstanceOf(MetasrvException.InvalidArgument.class).hasMessageContaining("election/leader");
        assertThatThrownBy(() -> await(client.get(""))).isInstanceOf(MetasrvException.InvalidArgument.class);
        assertThatThrownBy(() -> await(client.scan("", null, 5000))).isInstanceOf(MetasrvException.InvalidArgument.class);
        assertThatThrownBy(() -> await(client.withEpoch(7).create("kv/e", "x")))
                .isInstanceOf(MetasrvException.EpochMismatch.class);
        assertThat(await(client.get("kv/e"))).isEmpty();
        assertThatThrownBy(() -> await(client.getNamespace("nope"))).isInstanceOf(MetasrvException.NotFound.class);
    }

    @Test
    void catalogOperations() throws Exception {
        Namespace ns = await(client.createNamespace("robots", Map.of("owner", "lab")));
        assertThat(ns.properties()).containsEntry("owner", "lab");
        assertThatThrownBy(() -> await(client.createNamespace("robots", Map.of()))).isInstanceOf(MetasrvException.AlreadyExists.class);
        assertThat(await(client.namespacePages(100).collect(NamePage::names))).containsExactly("robots");
        assertThat(await(client.getNamespace("robots")).name()).isEqualTo("robots");

        Table t = await(client.createTable("robots", "episodes", List.of("id:i64", "video:file"), null));
        assertThat(t.registration().engine()).isEqualTo("lance");
        assertThat(t.registration().columns()).extracting(Registration.Column::toString).containsExactly("id:i64", "video:file");
        assertThat(await(client.tablePages("robots", 10).collect(NamePage::names))).containsExactly("episodes");
        CatalogSnapshot s = await(client.snapshot());
        assertThat(s.tables()).extracting(Table::name).containsExactly("episodes");
        assertThat(await(client.awaitSnapshot(s.generation(), 1)).modified()).isFalse();

        Table v1 = await(client.commitVersion("robots", "episodes", 0, 1, t.registration().incarnationId()));
        assertThat(v1.registration().currentVersion()).isEqualTo(1L);
        assertThatThrownBy(() -> await(client.commitVersion("robots", "episodes", 0, 2, null)))
                .isInstanceOf(MetasrvException.VersionConflict.class).hasMessageContaining("version 1");
        assertThat(await(client.getTable("robots", "episodes")).registration().currentVersion()).isEqualTo(1L);
        TableChange unchanged = await(client.awaitTableChange("robots", "episodes", 1, 1));
        assertThat(unchanged.modified()).isFalse();
        assertThat(await(client.awaitTableChange("robots", "episodes", 0, 1)).modified()).isTrue();

        assertThatThrownBy(() -> await(client.dropNamespace("robots"))).isInstanceOf(MetasrvException.NamespaceNotEmpty.class);
        Tombstone dropped = await(client.dropTable("robots", "episodes"));
        assertThat(dropped.incarnationId()).isEqualTo(t.registration().incarnationId());
        TombstonePage tombstones = await(client.listTombstones(null, 10));
        assertThat(tombstones.tombstones()).extracting(Tombstone::name).containsExactly("episodes");
        assertThat(await(client.purgeTombstone("robots", "episodes", dropped.incarnationId())).name()).isEqualTo("episodes");
        assertThat(await(client.dropNamespace("robots")).name()).isEqualTo("robots");
        assertThat(await(client.awaitSnapshot(s.generation(), 1)).modified()).isTrue();
        assertThat(await(client.get("tbl/robots/episodes"))).isEqualTo(Optional.empty());
    }

    /** A drop that asks for purge queues its incarnation in the same write; the queue lists it, page by page, still queued. */
    @Test
    void aDropWithPurgeIsListedInThePurgeQueueAsQueued() throws Exception {
        await(client.createNamespace("robots", Map.of()));
        Table episodes = await(client.createTable("robots", "episodes", List.of("id:i64"), null));
        Table frames = await(client.createTable("robots", "frames", List.of("id:i64"), null));
        assertThat(await(client.listPurges(null, 10)).purges()).as("nothing queued before a drop").isEmpty();

        Tombstone dropped = await(client.dropTable("robots", "episodes", true));
        assertThat(dropped.incarnationId()).isEqualTo(episodes.registration().incarnationId());
        Purge.Page page = await(client.listPurges(null, 10));
        assertThat(page.continuation()).isNull();
        assertThat(page.purges()).singleElement().satisfies(p -> {
            assertThat(List.of(p.namespace(), p.name(), p.incarnationId())).containsExactly("robots", "episodes", dropped.incarnationId());
            assertThat(p.state()).isEqualTo("queued");
            assertThat(p.reason()).isEqualTo("requested");
            assertThat(p.batches()).isZero();
            assertThat(p.deleted()).isZero();
            assertThat(p.epoch()).as("no batch claimed yet").isNull();
        });
        assertThat(await(client.listTombstones(null, 10)).tombstones()).as("the tombstone stays until the purge ends")
                .extracting(Tombstone::incarnationId).containsExactly(dropped.incarnationId());

        await(client.dropTable("robots", "frames", true));
        assertThat(await(client.purgePages(1).collect(Purge.Page::purges))).as("one a page, in key order")
                .extracting(Purge::name, Purge::incarnationId, Purge::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("episodes", dropped.incarnationId(), "queued"),
                        org.assertj.core.groups.Tuple.tuple("frames", frames.registration().incarnationId(), "queued"));
        assertThatThrownBy(() -> await(client.listPurges(null, 5000))).isInstanceOf(MetasrvException.InvalidArgument.class);
    }

    /**
     * A plain drop queues nothing and its listed tombstone says when its retention ends; a purge
     * requested then is queued at once, answered as the job, and asked again answers the same job.
     */
    @Test
    void purgeTableQueuesADroppedTableWhoseTombstoneSaysWhenItExpires() throws Exception {
        await(client.createNamespace("robots", Map.of()));
        await(client.createTable("robots", "episodes", List.of("id:i64"), null));
        Tombstone dropped = await(client.dropTable("robots", "episodes"));
        assertThat(await(client.listPurges(null, 10)).purges()).as("a plain drop queues nothing").isEmpty();
        Tombstone listed = await(client.listTombstones(null, 10)).tombstones().get(0);
        assertThat(listed.droppedMs()).isNotNull();
        assertThat(listed.expiresMs()).as("dropped + the default retention")
                .isEqualTo(listed.droppedMs() + lake.config.LifecycleSettings.DEFAULTS.tableRetentionMs());

        Purge job = await(client.purgeTable("robots", "episodes", dropped.incarnationId()));
        assertThat(List.of(job.namespace(), job.name(), job.incarnationId(), job.reason(), job.state()))
                .containsExactly("robots", "episodes", dropped.incarnationId(), "requested", "queued");
        assertThat(await(client.listPurges(null, 10)).purges()).containsExactly(job);
        assertThat(await(client.purgeTable("robots", "episodes", dropped.incarnationId()))).as("asked again: the same job").isEqualTo(job);
        assertThat(await(client.listPurges(null, 10)).purges()).hasSize(1);

        assertThatThrownBy(() -> await(client.purgeTable("robots", "episodes", "no-such-incarnation")))
                .isInstanceOf(MetasrvException.NotFound.class);
        assertThatThrownBy(() -> await(client.purgeTable("robots", "episodes", null))).isInstanceOf(MetasrvException.InvalidArgument.class);
    }

    @Test
    void pinCurrentEpochMakesLaterWritesCarryIt() throws Exception {
        assertThat(client.pinnedEpoch()).isEmpty();
        MetasrvClient pinned = await(client.pinCurrentEpoch());
        assertThat(pinned.pinnedEpoch()).hasValue(1L);
        assertThat(await(pinned.create("pin/a", "x")).applied()).isTrue();
        assertThat(await(pinned.createNamespace("pinned", Map.of())).name()).isEqualTo("pinned");
        assertThatThrownBy(() -> await(client.withEpoch(2).createNamespace("other", Map.of())))
                .as("a catalog write carries the pinned epoch too").isInstanceOf(MetasrvException.EpochMismatch.class);
    }

    /**
     * An Iceberg table made through the node's Iceberg REST catalog (a two-level namespace, one
     * level with a dot, and a dotted table name: the name mapping both ways) loads by its catalog
     * names with its metadata file and schema. Not on the event bus: refused at once there.
     */
    @Test
    void anIcebergTableLoadsWithItsMetadataAndSchema() throws Exception {
        assertThat(h.post(node, "/iceberg/v1/namespaces", new io.vertx.core.json.JsonObject()
                .put("namespace", new io.vertx.core.json.JsonArray().add("lab").add("new.db"))).statusCode()).isEqualTo(200);
        String schema = "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
                + "{\"id\":2,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":4,"
                + "\"element\":\"string\",\"element-required\":false}},"
                + "{\"id\":3,\"name\":\"at\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
                + "{\"id\":5,\"name\":\"lat\",\"required\":true,\"type\":\"double\"}]}}]}";
        var created = h.post(node, "/iceberg/v1/namespaces/lab%1Fnew.db/tables",
                new io.vertx.core.json.JsonObject("{\"name\":\"trips.v1\",\"schema\":" + schema + "}"));
        assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(200);

        Table t = await(client.getTable("lab.new~2Edb", "trips.v1"));
        assertThat(t.registration().engine()).isEqualTo("iceberg");
        if (this instanceof ClientBusTest) {
            assertThatThrownBy(() -> await(client.icebergTable("lab.new~2Edb", "trips.v1")))
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("HTTP only");
            return;
        }
        lake.client.model.IcebergTable ice = await(client.icebergTable("lab.new~2Edb", "trips.v1"));
        assertThat(ice.metadataLocation()).isEqualTo(t.registration().raw().get("metadata_location"))
                .isEqualTo(created.bodyAsJsonObject().getString("metadata-location"));
        assertThat(ice.formatVersion()).isEqualTo(2);
        assertThat(ice.currentSnapshotId()).as("no snapshot yet").isNull();
        assertThat(ice.columns()).containsExactly(new lake.client.model.IcebergTable.Column(1, "id", "long", true),
                new lake.client.model.IcebergTable.Column(2, "tags", "list<string>", false),
                new lake.client.model.IcebergTable.Column(3, "at", "struct<lat: double>", false));
    }
}
