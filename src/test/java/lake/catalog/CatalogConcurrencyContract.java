package lake.catalog;

import io.vertx.core.Future;
import lake.catalog.model.CatalogException;
import lake.catalog.model.CatalogKeys;
import lake.catalog.model.CatalogSnapshot;
import lake.catalog.model.Namespace;
import lake.catalog.model.Table;
import lake.meta.KeyValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The catalog's concurrent scenarios, against real stores: races decided by exact-bytes conditions. */
abstract class CatalogConcurrencyContract extends CatalogFixture {
    static final int ROUNDS = 6;
    static final int CONTENDERS = 6;

    @Test
    void concurrentCommitsHaveOneWinnerPerVersion() throws Exception {
        newNamespace("ns");
        newTable("ns", "t");
        long expected = 0;
        for (int round = 0; round < ROUNDS; round++) {
            List<Future<Table>> commits = new ArrayList<>();
            for (int c = 1; c <= CONTENDERS; c++) {
                commits.add(catalog.commitVersion("ns", "t", expected, expected + c, null));
            }
            await(Future.join(commits).otherwiseEmpty());

            List<Long> winners = new ArrayList<>();
            for (Future<Table> f : commits) {
                if (f.succeeded()) {
                    winners.add(f.result().registration().currentVersion());
                } else {
                    assertThat(f.cause()).isInstanceOf(CatalogException.VersionConflict.class);
                }
            }
            assertThat(winners).as("round %d: exactly one commit from %d wins", round, expected).hasSize(1);
            long won = winners.get(0);
            for (Future<Table> f : commits) {
                if (f.failed()) assertThat(((CatalogException.VersionConflict) f.cause()).currentVersion()).isEqualTo(won);
            }
            assertThat(await(catalog.resolve("ns", "t")).registration().currentVersion()).isEqualTo(won);
            expected = won;
        }
    }

    @Test
    void snapshotIsConsistentUnderConcurrentDdl() throws Exception {
        newNamespace("ns");
        // The DDL runs one change at a time, so after each the generation names exactly the set it made.
        Map<String, Map<String, String>> tablesAtGeneration = new ConcurrentHashMap<>();
        Map<String, String> live = new TreeMap<>();
        tablesAtGeneration.put(generation(), Map.copyOf(live));
        AtomicBoolean ddlDone = new AtomicBoolean();
        List<CatalogSnapshot.Snapshot> seen = new CopyOnWriteArrayList<>();
        List<Throwable> contended = new CopyOnWriteArrayList<>();

        List<Future<Void>> snapshotters = new ArrayList<>();
        for (int i = 0; i < 2; i++) snapshotters.add(snapshotUntil(ddlDone, seen, contended, 500));

        for (int step = 0; step < 3 * ROUNDS; step++) {
            String name = "t" + (step % 4);
            if (live.containsKey(name)) {
                await(catalog.dropTable("ns", name));
                live.remove(name);
            } else {
                live.put(name, newTable("ns", name).registration().incarnationId().orElseThrow());
            }
            tablesAtGeneration.put(generation(), Map.copyOf(live));
        }
        ddlDone.set(true);
        await(Future.all(snapshotters));

        assertThat(seen).as("some snapshots completed").isNotEmpty();
        for (CatalogSnapshot.Snapshot snap : seen) {
            assertThat(tablesAtGeneration).as("snapshot generation is one the DDL wrote").containsKey(snap.generation());
            Map<String, String> tables = new TreeMap<>();
            for (Table t : snap.tables()) tables.put(t.name(), t.registration().incarnationId().orElseThrow());
            assertThat(tables).as("snapshot at %s", snap.generation()).isEqualTo(tablesAtGeneration.get(snap.generation()));
        }
        assertThat(contended).allSatisfy(t -> assertThat(t).isInstanceOf(CatalogException.Contended.class));
    }

    /** Takes snapshots back to back until {@code done} (at most {@code max}), collecting each. */
    private Future<Void> snapshotUntil(AtomicBoolean done, List<CatalogSnapshot.Snapshot> seen, List<Throwable> failed, int max) {
        if (done.get() || max == 0) return Future.succeededFuture();
        return catalog.snapshot(null)
                .andThen(r -> {
                    if (r.succeeded()) seen.add((CatalogSnapshot.Snapshot) r.result());
                    else failed.add(r.cause());
                })
                .transform(r -> snapshotUntil(done, seen, failed, max - 1));
    }

    /** Creates of different tables in one namespace only check its record: none of them conflicts with another. */
    @Test
    void concurrentCreatesInOneNamespaceNeverContend() throws Exception {
        newNamespace("busy");
        List<Future<Table>> creates = new java.util.ArrayList<>();
        for (int i = 0; i < 48; i++) creates.add(catalog.createTable("busy", "t" + i, COLUMNS, null));
        await(Future.join(creates).otherwiseEmpty());
        for (Future<Table> c : creates) assertThat(c.succeeded()).as(String.valueOf(c.cause())).isTrue();
        assertThat(await(catalog.listTables("busy", null, 100)).names()).hasSize(48);
    }

    @Test
    void createRacingDropNamespaceNeverOrphansATable() throws Exception {
        int createsWon = 0;
        int dropsWon = 0;
        for (int round = 0; round < 2 * ROUNDS; round++) {
            String ns = "ns" + round;
            newNamespace(ns);
            Future<Table> create = catalog.createTable(ns, "t", COLUMNS, null);
            Future<Namespace> drop = catalog.dropNamespace(ns);
            await(Future.join(create, drop).otherwiseEmpty());

            assertThat(create.succeeded()).as("round %d: exactly one of create and drop wins", round).isNotEqualTo(drop.succeeded());
            if (create.succeeded()) {
                createsWon++;
                assertThat(drop.cause()).isInstanceOf(CatalogException.NamespaceNotEmpty.class);
                assertThat(await(catalog.getNamespace(ns)).dropping()).as("the refused drop put the namespace back").isFalse();
                assertThat(await(catalog.listTables(ns, null, 10)).names()).containsExactly("t");
                assertThat(raw("tbl/" + ns + "/t")).isNotNull();
            } else {
                dropsWon++;
                // Decided after the drop's marker: refused while the drop decides, or not found after it.
                assertThat(create.cause()).isInstanceOfAny(CatalogException.NotFound.class, CatalogException.Contended.class)
                        .hasMessageContaining(ns);
                assertThat(raw(CatalogKeys.namespace(ns))).isNull();
                assertThat(raw(CatalogKeys.droppingMarker(ns))).isNull();
                assertThat(raw("tbl/" + ns + "/t")).isNull();
            }
        }
        for (KeyValue kv : await(store.scanPrefix("tbl/", null, 1000)).entries()) {
            String ns = CatalogKeys.segments("tbl/", kv.key())[0];
            assertThat(raw(CatalogKeys.namespace(ns))).as("no orphan: %s has its namespace", kv.key()).isNotNull();
        }
        assertThat(createsWon + dropsWon).isEqualTo(2 * ROUNDS);
    }

    /**
     * Found by the review: with markers of equal bytes (two drops in one millisecond), a drop whose
     * scan found nothing could delete a namespace that, meanwhile, another drop had un-marked, a
     * create had filled and a third drop had re-marked. Drop A's scan of {@code tbl/ns/} answers
     * only after exactly that happened, all in A's millisecond.
     */
    @Test
    void dropNeverDeletesANamespaceAnotherDropReMarked() throws Exception {
        newNamespace("ns");
        long frozen = System.currentTimeMillis();
        String markerKey = CatalogKeys.droppingMarker("ns");
        Catalog other = new Catalog(port, ROOT, () -> frozen, new java.util.Random());
        AtomicBoolean interleaved = new AtomicBoolean();
        CatalogPort hooked = new CatalogPort() {
            @Override public Future<java.util.Optional<byte[]>> get(String key) { return port.get(key); }
            @Override public Future<lake.meta.TransactionOutcome> transact(lake.meta.Transaction tx, io.vertx.core.json.JsonObject event) {
                return port.transact(tx, event);
            }
            @Override public Future<lake.meta.ScanPage> scan(String prefix, String continuation, int limit) {
                Future<lake.meta.ScanPage> scanned = port.scan(prefix, continuation, limit);
                if (!prefix.equals("tbl/ns/") || !interleaved.compareAndSet(false, true)) return scanned;
                return scanned.compose(page -> port.get(markerKey)
                        // B, refused, takes A's marker away; a create gets in; C marks the namespace again.
                        .compose(m -> port.transact(lake.meta.Transaction.of(List.of(lake.meta.Transaction.Op.delete(markerKey, m.orElseThrow())))))
                        .compose(o -> other.createTable("ns", "t2", COLUMNS, null))
                        .compose(t -> port.transact(lake.meta.Transaction.of(List.of(
                                lake.meta.Transaction.Op.create(markerKey, other.newDropMarker()),
                                lake.meta.Transaction.Op.checkExists(CatalogKeys.namespace("ns"))))))
                        .map(page));
            }
        };
        Catalog a = new Catalog(hooked, ROOT, () -> frozen, new java.util.Random());

        Throwable refused = failure(a.dropNamespace("ns"));

        assertThat(interleaved).isTrue();
        assertThat(raw("tbl/ns/t2")).isNotNull();
        assertThat(raw(CatalogKeys.namespace("ns"))).as("t2 keeps its namespace").isNotNull();
        assertThat(refused).isInstanceOf(CatalogException.NamespaceNotEmpty.class).hasMessageContaining("table 't2'");
    }
}
