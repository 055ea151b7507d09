package lake.catalog;

import lake.catalog.model.CatalogException;
import lake.catalog.model.CatalogKeys;
import lake.catalog.model.CatalogSnapshot;
import lake.catalog.model.Namespace;
import lake.catalog.model.Registration;
import lake.catalog.model.Table;
import lake.catalog.model.Tombstone;
import lake.meta.Transaction;
import lake.meta.Transaction.Action;
import lake.meta.Transaction.Condition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalog's core behaviour, run unchanged against every backend (the concurrent scenarios are
 * in {@link CatalogConcurrencyContract}). A backend test extends this class and opens a fresh
 * store per test.
 */
abstract class CatalogContract extends CatalogConcurrencyContract {

    static final String LAKE_REGISTRATION = "{\"location\":\"s3://lake-data/robots/episodes/0193a5c2-7d1e-7b3a-9c4f-2e8d5a6b7c8d.lance\","
            + "\"engine\":\"lance\",\"current_version\":7,\"incarnation_id\":\"0193a5c2-7d1e-7b3a-9c4f-2e8d5a6b7c8d\","
            + "\"schema_ipc\":[255,255,255,255,120,0,0,0]}";

    @Test
    void createTableBumpsGenerationAtomically() throws Exception {
        newNamespace("robots");
        String before = generation();
        int sent = port.transactions().size();
        int calls = port.calls();

        Table t = newTable("robots", "episodes");

        assertThat(port.transactions()).hasSize(sent + 1);
        assertThat(port.calls()).as("a create is one transaction and no read").isEqualTo(calls + 1);
        Transaction tx = port.lastTransaction();
        assertThat(tx.guardKey()).contains(GUARD);
        assertThat(tx.ops()).extracting(Transaction.Op::key).containsExactly("tbl/robots/episodes",
                "__lake_internal/namespaces/robots", "__lake_internal/dropping-namespaces/robots", CatalogKeys.GENERATION);
        assertThat(tx.ops()).extracting(Transaction.Op::condition)
                .containsExactly(Condition.ABSENT, Condition.EXISTS, Condition.ABSENT, Condition.NONE);
        assertThat(tx.ops().get(1).action()).as("the namespace record is checked, never rewritten").isEqualTo(Action.CHECK);
        assertThat(tx.ops().get(2).action()).as("no drop of the namespace is under way").isEqualTo(Action.CHECK);
        String after = generation();
        assertThat(after).isNotEqualTo(before).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        assertThat(s(tx.ops().get(3).value())).isEqualTo(after);

        String inc = t.registration().incarnationId().orElseThrow();
        assertThat(t.registration().location()).isEqualTo(ROOT + "/robots/episodes/" + inc);
        assertThat(t.registration().engine()).isEqualTo("lance");
        assertThat(t.registration().currentVersion()).isZero();
        assertThat(s(raw("tbl/robots/episodes"))).isEqualTo("{\"location\":\"" + ROOT + "/robots/episodes/" + inc
                + "\",\"engine\":\"lance\",\"current_version\":0,\"incarnation_id\":\"" + inc + "\",\"columns\":["
                + "{\"name\":\"id\",\"type\":\"i64\"},{\"name\":\"score\",\"type\":\"f64\"},{\"name\":\"label\",\"type\":\"utf8\"},"
                + "{\"name\":\"ok\",\"type\":\"bool\"},{\"name\":\"blob\",\"type\":\"file\"}]}");
        assertThat(await(catalog.listTables("robots", null, 10)).names()).containsExactly("episodes");

        refused(catalog.createTable("robots", "episodes", COLUMNS, "lance"), CatalogException.AlreadyExists.class, "robots.episodes");
        assertThat(generation()).as("a create that did not apply changes nothing").isEqualTo(after);
        assertThat(await(catalog.listTables("robots", null, 10)).names()).containsExactly("episodes");
    }

    @Test
    void versionCommitLeavesGenerationAlone() throws Exception {
        newNamespace("robots");
        String inc = newTable("robots", "episodes").registration().incarnationId().orElseThrow();
        String generation = generation();

        Table one = await(catalog.commitVersion("robots", "episodes", 0, 1, inc));
        Table five = await(catalog.commitVersion("robots", "episodes", 1, 5, null));

        assertThat(one.registration().currentVersion()).isEqualTo(1);
        assertThat(five.registration().currentVersion()).isEqualTo(5);
        assertThat(port.lastTransaction().ops()).singleElement().satisfies(op -> {
            assertThat(op.key()).isEqualTo("tbl/robots/episodes");
            assertThat(op.condition()).isEqualTo(Condition.VALUE);
        });
        assertThat(generation()).isEqualTo(generation);
        Registration resolved = await(catalog.resolve("robots", "episodes")).registration();
        assertThat(resolved.currentVersion()).isEqualTo(5);
        assertThat(resolved.incarnationId()).contains(inc);
        assertThat(await(catalog.snapshot(generation))).isInstanceOf(CatalogSnapshot.NotModified.class);
    }

    @Test
    void createTableRequiresExistingNamespace() throws Exception {
        refused(catalog.createTable("nowhere", "t", COLUMNS, null), CatalogException.NotFound.class, "namespace 'nowhere'");
        refused(catalog.listTables("nowhere", null, 10), CatalogException.NotFound.class, "namespace 'nowhere'");
        assertThat(raw(CatalogKeys.GENERATION)).as("the refused create wrote nothing, not even the generation").isNull();
        newNamespace("ns");
        await(catalog.dropNamespace("ns"));
        String afterDrop = generation();
        refused(catalog.createTable("ns", "t", COLUMNS, null), CatalogException.NotFound.class, "namespace 'ns'");
        assertThat(await(store.scanPrefix("tbl/", null, 10)).entries()).isEmpty();
        assertThat(generation()).isEqualTo(afterDrop);
    }

    /**
     * A drop that stopped after its marker (a crash, a lost leadership) refuses creates as being
     * dropped until the next drop decides, or until it is old enough to count as abandoned.
     */
    @Test
    void interruptedNamespaceDropIsFinishedByTheNextDrop() throws Exception {
        newNamespace("ns");
        newTable("ns", "keep");
        newNamespace("empty");
        for (String ns : List.of("ns", "empty")) {
            byte[] recent = b("{\"started_ms\":" + System.currentTimeMillis() + ",\"drop_id\":\"x\"}");
            assertThat(await(store.cas(CatalogKeys.droppingMarker(ns), null, recent))).isTrue();
        }
        String before = generation();

        assertThat(await(catalog.getNamespace("ns")).dropping()).as("reads still see the namespace, marked").isTrue();
        refused(catalog.createTable("ns", "t", COLUMNS, null), CatalogException.Contended.class, "namespace 'ns' is being dropped");
        refused(catalog.createTable("ns", "keep", COLUMNS, null), CatalogException.Contended.class, "being dropped");
        assertThat(generation()).isEqualTo(before);

        refused(catalog.dropNamespace("ns"), CatalogException.NamespaceNotEmpty.class, "table 'keep'");
        assertThat(raw(CatalogKeys.droppingMarker("ns"))).as("the next drop undid the interrupted one").isNull();
        assertThat(await(catalog.getNamespace("ns")).dropping()).isFalse();
        newTable("ns", "t");

        assertThat(await(catalog.dropNamespace("empty")).name()).isEqualTo("empty");
        assertThat(raw(CatalogKeys.namespace("empty"))).isNull();
        assertThat(raw(CatalogKeys.droppingMarker("empty"))).as("finishing removes the marker with the record").isNull();
        refused(catalog.getNamespace("empty"), CatalogException.NotFound.class, "namespace 'empty'");
    }

    @Test
    void dropNamespaceRefusesWhileTablesExist() throws Exception {
        newNamespace("ns");
        newTable("ns", "a");
        newTable("ns", "b");
        refused(catalog.dropNamespace("ns"), CatalogException.NamespaceNotEmpty.class, "namespace 'ns'", "table 'a'");
        await(catalog.dropTable("ns", "a"));
        refused(catalog.dropNamespace("ns"), CatalogException.NamespaceNotEmpty.class, "table 'b'");
        assertThat(await(catalog.getNamespace("ns")).dropping()).as("a refused drop puts the namespace back").isFalse();
        newTable("ns", "c");
        await(catalog.dropTable("ns", "c"));
        assertThat(await(catalog.listTables("ns", null, 10)).names()).containsExactly("b");
        await(catalog.dropTable("ns", "b"));

        String before = generation();
        assertThat(await(catalog.dropNamespace("ns")).name()).isEqualTo("ns");
        assertThat(generation()).isNotEqualTo(before);
        refused(catalog.getNamespace("ns"), CatalogException.NotFound.class, "namespace 'ns'");
        refused(catalog.dropNamespace("ns"), CatalogException.NotFound.class, "namespace 'ns'");

        newNamespace("legacy");
        assertThat(await(store.cas("tbl/legacy/old", null, b(LAKE_REGISTRATION)))).isTrue();
        refused(catalog.dropNamespace("legacy"), CatalogException.NamespaceNotEmpty.class, "table 'old'");
    }

    @Test
    void dropLeavesDurableTombstone() throws Exception {
        newNamespace("ns");
        String inc = newTable("ns", "t").registration().incarnationId().orElseThrow();
        await(catalog.commitVersion("ns", "t", 0, 3, inc));
        byte[] lastRegistration = raw("tbl/ns/t");
        String before = generation();

        long start = System.currentTimeMillis();
        Tombstone tomb = await(catalog.dropTable("ns", "t"));

        assertThat(port.lastTransaction().ops()).extracting(Transaction.Op::key, Transaction.Op::action).containsExactly(
                org.assertj.core.groups.Tuple.tuple("drop/ns/t/" + inc, Action.PUT),
                org.assertj.core.groups.Tuple.tuple("tbl/ns/t", Action.DELETE),
                org.assertj.core.groups.Tuple.tuple(CatalogKeys.GENERATION, Action.PUT));
        assertThat(tomb.incarnation()).isEqualTo(inc);
        assertThat(tomb.registration().currentVersion()).isEqualTo(3);
        assertThat(tomb.droppedMs()).isBetween(start, System.currentTimeMillis());
        assertThat(s(raw("drop/ns/t/" + inc))).isEqualTo("{\"table\":{\"namespace\":\"ns\",\"name\":\"t\"},\"dropped_ms\":" + tomb.droppedMs()
                + ",\"registration\":" + s(lastRegistration) + "}");
        assertThat(raw("tbl/ns/t")).isNull();
        assertThat(generation()).isNotEqualTo(before);
        assertThat(await(catalog.listTables("ns", null, 10)).names()).isEmpty();
        refused(catalog.resolve("ns", "t"), CatalogException.NotFound.class, "'ns.t'");
        refused(catalog.dropTable("ns", "t"), CatalogException.NotFound.class, "'ns.t'");

        newTable("ns", "other");
        await(catalog.dropTable("ns", "other"));
        assertThat(await(catalog.listTombstones(null, 10)).tombstones())
                .extracting(Tombstone::name).containsExactlyInAnyOrder("t", "other");
        assertThat(raw("drop/ns/t/" + inc)).as("a tombstone stays until purged").isNotNull();
    }

    @Test
    void recreatedTableGetsNewIncarnation() throws Exception {
        newNamespace("ns");
        Table first = newTable("ns", "t");
        await(catalog.dropTable("ns", "t"));
        Table second = newTable("ns", "t");

        String old = first.registration().incarnationId().orElseThrow();
        String now = second.registration().incarnationId().orElseThrow();
        assertThat(now).isNotEqualTo(old);
        assertThat(second.registration().location()).isEqualTo(ROOT + "/ns/t/" + now).isNotEqualTo(first.registration().location());
        assertThat(raw("drop/ns/t/" + old)).as("the old incarnation's tombstone remains").isNotNull();
        refused(catalog.commitVersion("ns", "t", 0, 1, old), CatalogException.IncarnationMismatch.class, "'ns.t'", now, old);

        await(catalog.dropTable("ns", "t"));
        assertThat(await(catalog.listTombstones(null, 10)).tombstones())
                .extracting(Tombstone::incarnation).containsExactlyInAnyOrder(old, now);
    }

    /** A dropped table is gone from its name (which is free again) and listed as deleted, with when it was dropped. */
    @Test
    void softDeletedTableIsInvisibleButListedAsDeleted() throws Exception {
        newNamespace("ns");
        Table t = newTable("ns", "t");
        long start = System.currentTimeMillis();
        await(catalog.dropTable("ns", "t"));
        refused(catalog.resolve("ns", "t"), CatalogException.NotFound.class, "'ns.t'");
        assertThat(await(catalog.listTables("ns", null, 10)).names()).isEmpty();
        assertThat(await(catalog.listTombstones(null, 10)).tombstones()).singleElement().satisfies(tomb -> {
            assertThat(tomb.incarnation()).isEqualTo(t.registration().incarnationId().orElseThrow());
            assertThat(tomb.droppedMs()).isBetween(start, System.currentTimeMillis());
            assertThat(tomb.registration()).isEqualTo(t.registration());
        });
        assertThat(newTable("ns", "t").registration().incarnationId()).as("the name is free").isNotEqualTo(t.registration().incarnationId());
    }

    /**
     * An undrop restores the registration exactly as it was dropped (incarnation, location,
     * metadata location) in one transaction that deletes the tombstone; under its own name
     * while that is free, or under a new one.
     */
    @Test
    void undropUnderNewName() throws Exception {
        newNamespace("ns");
        newNamespace("other");
        Table t = await(catalog.createPointerTable("ns", "t", "iceberg", ROOT + "/ns/t-1", "m0.json", List.of(), null, true));
        await(catalog.swapPointers(List.of(new Catalog.PointerSwap("ns", "t", "m0.json", "m1.json")), List.of()));
        byte[] dropped = raw("tbl/ns/t");
        String inc = t.registration().incarnationId().orElseThrow();
        await(catalog.dropTable("ns", "t"));
        newTable("ns", "t");
        String before = generation();

        Table back = await(catalog.undropTable("ns", "t", inc, "other", "restored"));

        assertThat(port.lastTransaction().ops()).extracting(Transaction.Op::key).containsExactly(
                "tbl/other/restored", "drop/ns/t/" + inc, CatalogKeys.namespace("other"), CatalogKeys.droppingMarker("other"), CatalogKeys.GENERATION,
                CatalogKeys.purgeJob("ns", "t", inc));
        assertThat(raw("tbl/other/restored")).as("the registration as it was dropped").isEqualTo(dropped);
        assertThat(back.registration().incarnationId()).contains(inc);
        assertThat(back.registration().metadataLocation()).contains("m1.json");
        assertThat(back.registration().locationAssigned()).as("its location stays its own").isTrue();
        assertThat(raw("drop/ns/t/" + inc)).as("the tombstone is gone").isNull();
        assertThat(generation()).isNotEqualTo(before);
        refused(catalog.undropTable("ns", "t", inc, "ns", "again"), CatalogException.NotFound.class, "'ns.t'", inc);

        // Its own name once free, and without naming the incarnation when the name has only one tombstone.
        await(catalog.dropTable("other", "restored"));
        Table home = await(catalog.undropTable("other", "restored", null, "other", "restored"));
        assertThat(home.registration().incarnationId()).contains(inc);
    }

    /** While the name is taken an undrop writes nothing; with several dropped incarnations it must name one. */
    @Test
    void undropRefusedWhileNameTaken() throws Exception {
        newNamespace("ns");
        String first = newTable("ns", "t").registration().incarnationId().orElseThrow();
        await(catalog.dropTable("ns", "t"));
        Table second = newTable("ns", "t");
        byte[] tomb = raw("drop/ns/t/" + first);
        String before = generation();

        refused(catalog.undropTable("ns", "t", first, "ns", "t"), CatalogException.AlreadyExists.class, "'ns.t'", "another name");

        assertThat(raw("tbl/ns/t")).isEqualTo(second.registration().bytes());
        assertThat(raw("drop/ns/t/" + first)).isEqualTo(tomb);
        assertThat(generation()).isEqualTo(before);
        refused(catalog.undropTable("ns", "t", first, "nowhere", "t"), CatalogException.NotFound.class, "nowhere");

        await(catalog.dropTable("ns", "t"));
        refused(catalog.undropTable("ns", "t", null, "ns", "t"), CatalogException.InvalidArgument.class, first,
                second.registration().incarnationId().orElseThrow(), "name the incarnation");
        refused(catalog.undropTable("ns", "gone", null, "ns", "gone"), CatalogException.NotFound.class, "'ns.gone'");
    }

    @Test
    void purgeRemovesOnlyThatIncarnation() throws Exception {
        newNamespace("ns");
        String first = newTable("ns", "t").registration().incarnationId().orElseThrow();
        await(catalog.dropTable("ns", "t"));
        String second = newTable("ns", "t").registration().incarnationId().orElseThrow();
        await(catalog.dropTable("ns", "t"));
        String neighbour = newTable("ns", "u").registration().incarnationId().orElseThrow();
        await(catalog.dropTable("ns", "u"));
        byte[] purged = raw("drop/ns/t/" + first);

        Tombstone gone = await(catalog.purgeTombstone("ns", "t", first));

        assertThat(gone.incarnation()).isEqualTo(first);
        assertThat(port.lastTransaction().ops()).as("the tombstone on its exact bytes, and any purge queued for it").satisfiesExactly(op -> {
            assertThat(op.action()).isEqualTo(Action.DELETE);
            assertThat(op.expected()).isEqualTo(purged);
        }, op -> {
            assertThat(op.key()).isEqualTo(CatalogKeys.purgeJob("ns", "t", first));
            assertThat(op.action()).isEqualTo(Action.DELETE);
        });
        assertThat(raw("drop/ns/t/" + first)).isNull();
        assertThat(await(catalog.listTombstones(null, 10)).tombstones())
                .extracting(Tombstone::incarnation).containsExactlyInAnyOrder(second, neighbour);
        refused(catalog.purgeTombstone("ns", "t", first), CatalogException.NotFound.class, "'ns.t'", first);
    }

    @Test
    void commitVersionRejectsStaleExpectedVersion() throws Exception {
        newNamespace("ns");
        newTable("ns", "t");
        await(catalog.commitVersion("ns", "t", 0, 1, null));
        byte[] before = raw("tbl/ns/t");
        int sent = port.transactions().size();

        CatalogException.VersionConflict conflict = refused(catalog.commitVersion("ns", "t", 0, 2, null),
                CatalogException.VersionConflict.class, "'ns.t'", "version 1", "expected version 0");

        assertThat(conflict.currentVersion()).isEqualTo(1);
        assertThat(conflict.code()).isEqualTo("version_conflict");
        assertThat(conflict.httpStatus()).isEqualTo(409);
        assertThat(raw("tbl/ns/t")).isEqualTo(before);
        assertThat(port.transactions()).as("a stale commit sends nothing").hasSize(sent);
        refused(catalog.commitVersion("ns", "missing", 0, 1, null), CatalogException.NotFound.class, "'ns.missing'");
    }

    @Test
    void notModifiedWhenGenerationUnchanged() throws Exception {
        CatalogSnapshot empty = await(catalog.snapshot(null));
        assertThat(empty).isEqualTo(new CatalogSnapshot.Snapshot(null, List.of()));
        assertThat(await(catalog.currentGeneration())).isEmpty();

        newNamespace("ns");
        Table t = newTable("ns", "t");
        CatalogSnapshot.Snapshot full = (CatalogSnapshot.Snapshot) await(catalog.snapshot(null));
        assertThat(full.tables()).containsExactly(t);
        assertThat(await(catalog.currentGeneration())).contains(full.generation());

        assertThat(await(catalog.snapshot(full.generation()))).isEqualTo(new CatalogSnapshot.NotModified(full.generation()));
        await(catalog.commitVersion("ns", "t", 0, 1, null));
        assertThat(await(catalog.snapshot(full.generation()))).isInstanceOf(CatalogSnapshot.NotModified.class);
        assertThat(await(catalog.snapshot("0193a5c2-7d1e-7b3a-9c4f-2e8d5a6b7c8d"))).isInstanceOf(CatalogSnapshot.Snapshot.class);

        newTable("ns", "u");
        CatalogSnapshot changed = await(catalog.snapshot(full.generation()));
        assertThat(changed).isInstanceOf(CatalogSnapshot.Snapshot.class);
        assertThat(changed.generation()).isNotEqualTo(full.generation());
        assertThat(((CatalogSnapshot.Snapshot) changed).tables()).extracting(Table::name).containsExactly("t", "u");
    }

    /** A marker older (or, from a skewed clock, younger) than the bound, or unreadable, is an abandoned drop. */
    @Test
    void createClearsAnAbandonedDrop() throws Exception {
        newNamespace("ns");
        newNamespace("garbled");
        newNamespace("ahead");
        long ahead = System.currentTimeMillis() + Catalog.ABANDONED_DROP_MS + 60_000;
        assertThat(await(store.cas(CatalogKeys.droppingMarker("ahead"), null, b("{\"started_ms\":" + ahead + ",\"drop_id\":\"x\"}")))).isTrue();
        assertThat(newTable("ahead", "t").name()).isEqualTo("t");
        long old = System.currentTimeMillis() - Catalog.ABANDONED_DROP_MS - 1_000;
        assertThat(await(store.cas(CatalogKeys.droppingMarker("ns"), null, b("{\"started_ms\":" + old + ",\"drop_id\":\"x\"}")))).isTrue();
        assertThat(await(store.cas(CatalogKeys.droppingMarker("garbled"), null, b("not json")))).isTrue();

        assertThat(newTable("ns", "t").name()).isEqualTo("t");
        assertThat(newTable("garbled", "t").name()).isEqualTo("t");

        assertThat(raw(CatalogKeys.droppingMarker("ns"))).as("the abandoned marker is gone").isNull();
        assertThat(raw(CatalogKeys.droppingMarker("garbled"))).isNull();
        assertThat(await(catalog.getNamespace("ns")).dropping()).isFalse();
    }

    /** A snapshot larger than one scan page is every page, in key order, once. */
    @Test
    void snapshotReadsEveryPage() throws Exception {
        Catalog paged = new Catalog(port, ROOT, System::currentTimeMillis, new java.util.Random(), 2);
        newNamespace("a");
        newNamespace("b");
        List<String> expected = new java.util.ArrayList<>();
        for (String ns : List.of("a", "b")) {
            for (String name : List.of("t0", "t1", "t2", "t3")) {
                newTable(ns, name);
                expected.add(ns + "." + name);
            }
        }
        newTable("a", "t4");
        expected.add(4, "a.t4");
        int reads = port.calls();
        CatalogSnapshot.Snapshot all = (CatalogSnapshot.Snapshot) await(paged.snapshot(null));
        assertThat(all.tables()).extracting(t -> t.namespace() + "." + t.name()).containsExactlyElementsOf(expected);
        assertThat(port.calls() - reads).as("two generation reads and five pages of two (the last one short)").isEqualTo(7);
        assertThat(all.generation()).isEqualTo(generation());
    }

    @Test
    void lakeWrittenRegistrationIsReadAndPreserved() throws Exception {
        newNamespace("robots");
        assertThat(await(store.cas("tbl/robots/episodes", null, b(LAKE_REGISTRATION)))).isTrue();
        String inc = "0193a5c2-7d1e-7b3a-9c4f-2e8d5a6b7c8d";

        Registration read = await(catalog.resolve("robots", "episodes")).registration();
        assertThat(read.location()).isEqualTo("s3://lake-data/robots/episodes/" + inc + ".lance");
        assertThat(read.currentVersion()).isEqualTo(7);
        assertThat(read.incarnationId()).contains(inc);
        assertThat(read.columns()).isEmpty();
        assertThat(read.bytes()).isEqualTo(b(LAKE_REGISTRATION));

        await(catalog.commitVersion("robots", "episodes", 7, 8, inc));
        assertThat(s(raw("tbl/robots/episodes")))
                .isEqualTo(LAKE_REGISTRATION.replace("\"current_version\":7", "\"current_version\":8"));

        Tombstone tomb = await(catalog.dropTable("robots", "episodes"));
        assertThat(s(raw("drop/robots/episodes/" + inc))).endsWith(",\"registration\":"
                + LAKE_REGISTRATION.replace("\"current_version\":7", "\"current_version\":8") + "}");
        assertThat(tomb.registration().toJson().get("schema_ipc").toString()).isEqualTo("[255,255,255,255,120,0,0,0]");

        String legacy = "{\"location\":\"s3://old\",\"current_version\":18446744073709551615,\"x\":{\"y\":1.50}}";
        assertThat(await(store.cas("tbl/robots/old", null, b(legacy)))).isTrue();
        Registration old = await(catalog.resolve("robots", "old")).registration();
        assertThat(old.incarnationId()).as("no incarnation_id: a legacy table").isEmpty();
        assertThat(old.engine()).isEqualTo("lance");
        assertThat(Long.toUnsignedString(old.currentVersion())).isEqualTo("18446744073709551615");
        refused(catalog.commitVersion("robots", "old", -1L, 0, "x"), CatalogException.InvalidArgument.class, "greater than");
        refused(catalog.commitVersion("robots", "old", 7, 8, inc), CatalogException.IncarnationMismatch.class, "legacy");
        await(catalog.dropTable("robots", "old"));
        assertThat(s(raw("drop/robots/old/legacy"))).endsWith(",\"registration\":" + legacy + "}");

        assertThat(await(store.cas("tbl/robots/dup", null, b("{\"location\":\"a\",\"location\":\"b\",\"current_version\":1}")))).isTrue();
        refused(catalog.resolve("robots", "dup"), CatalogException.CorruptRecord.class, "tbl/robots/dup");
    }

    @Test
    void invalidNamesColumnsTypesAndVersionsAreRefusedBeforeTheStore() throws Exception {
        int before = port.calls();
        String tooLong = "é".repeat(128);
        for (String bad : new String[] {"", ".", "..", "a/b", "a\\b", "a?b", "a#b", "a%b", "a\u0001b", "a\u007fb", "a\u0085b", "\ud800", tooLong}) {
            refused(catalog.createNamespace(bad, Map.of()), CatalogException.InvalidArgument.class, "namespace");
            refused(catalog.createTable("ns", bad, COLUMNS, null), CatalogException.InvalidArgument.class, "table name");
            refused(catalog.createTable(bad, "t", COLUMNS, null), CatalogException.InvalidArgument.class, "namespace");
            refused(catalog.resolve("ns", bad), CatalogException.InvalidArgument.class, "table name");
            refused(catalog.dropTable(bad, "t"), CatalogException.InvalidArgument.class, "namespace");
            refused(catalog.purgeTombstone("ns", "t", bad), CatalogException.InvalidArgument.class, "incarnation_id");
            refused(catalog.createTable("ns", "t", COLUMNS, bad), CatalogException.InvalidArgument.class, "engine");
        }
        refused(catalog.createNamespace("x".repeat(256), Map.of()), CatalogException.InvalidArgument.class, "256 UTF-8 bytes", "255");
        refused(catalog.createTable("ns", "a/b", COLUMNS, null), CatalogException.InvalidArgument.class, "'a/b'", "'/'");
        refused(catalog.createTable("ns", "t", List.of("id"), null), CatalogException.InvalidArgument.class, "column 0", "name:type");
        refused(catalog.createTable("ns", "t", List.of("id:i64", ":i64"), null), CatalogException.InvalidArgument.class, "column 1", "empty name");
        refused(catalog.createTable("ns", "t", List.of("id:int"), null), CatalogException.InvalidArgument.class, "'id'", "unknown type 'int'");
        refused(catalog.createTable("ns", "t", List.of("id:"), null), CatalogException.InvalidArgument.class, "unknown type ''");
        refused(catalog.createTable("ns", "t", List.of("id:i64", "id:f64"), null), CatalogException.InvalidArgument.class, "columns 0 and 1", "'id'");
        refused(catalog.createTable("ns", "t", null, null), CatalogException.InvalidArgument.class, "columns");
        refused(catalog.commitVersion("ns", "t", 5, 5, null), CatalogException.InvalidArgument.class, "version 5", "expected_version 5");
        refused(catalog.commitVersion("ns", "t", 5, 4, null), CatalogException.InvalidArgument.class, "version 4");
        refused(catalog.commitVersion("ns", "t", 0, 1, ""), CatalogException.InvalidArgument.class, "incarnation_id");
        refused(catalog.listTables("ns", null, 257), CatalogException.InvalidArgument.class, "limit", "256");
        refused(catalog.listNamespaces(null, 0), CatalogException.InvalidArgument.class, "limit", "1000");
        refused(catalog.listTombstones(null, 1001), CatalogException.InvalidArgument.class, "limit");
        refused(catalog.listNamespaces("not-a-continuation", 10), CatalogException.InvalidArgument.class, "continuation");
        refused(catalog.createNamespace("ns", Map.of("", "v")), CatalogException.InvalidArgument.class, "property name");
        assertThat(port.calls()).as("nothing invalid reached the store, not even a read").isEqualTo(before);
        assertThat(await(store.scanPrefix("", null, 10)).entries()).hasSize(1);
    }

    @Test
    void catalogKeysAreRecognised() {
        assertThat(Catalog.isCatalogKey("tbl/a/b")).isTrue();
        assertThat(Catalog.isCatalogKey("drop/a/b/legacy")).isTrue();
        assertThat(Catalog.isCatalogKey("__lake_internal/catalog-directory-generation")).isTrue();
        assertThat(Catalog.isCatalogKey("tbl")).isFalse();
        assertThat(Catalog.isCatalogKey("users/tbl/x")).isFalse();
    }

    // ---- pointer tables (Iceberg) -----------------------------------------------------------------

    @Test
    void pointerTableCreateSwapRenameAndDrop() throws Exception {
        newNamespace("robots");
        newNamespace("archive");
        String before = generation();
        Table t = await(catalog.createPointerTable("robots", "episodes", "iceberg", "file:///wh/robots/episodes", "m0.json", List.of()));
        assertThat(t.registration().metadataLocation()).contains("m0.json");
        assertThat(t.registration().engine()).isEqualTo("iceberg");
        assertThat(generation()).as("a create is DDL").isNotEqualTo(before);
        refused(catalog.createPointerTable("robots", "episodes", "iceberg", "x", "m.json", List.of()),
                CatalogException.AlreadyExists.class, "robots.episodes");

        String afterCreate = generation();
        List<Table> swapped = await(catalog.swapPointers(List.of(new Catalog.PointerSwap("robots", "episodes", "m0.json", "m1.json")), List.of()));
        assertThat(swapped.get(0).registration().metadataLocation()).contains("m1.json");
        assertThat(swapped.get(0).registration().currentVersion()).isEqualTo(1);
        assertThat(generation()).as("a swap is no DDL").isEqualTo(afterCreate);
        int sent = port.transactions().size();
        refused(catalog.swapPointers(List.of(new Catalog.PointerSwap("robots", "episodes", "m0.json", "m2.json")), List.of()),
                CatalogException.PointerMoved.class, "m1.json");
        assertThat(port.transactions()).as("a moved pointer sends nothing").hasSize(sent);

        Table renamed = await(catalog.renameTable("robots", "episodes", "archive", "old", List.of()));
        assertThat(renamed.registration().incarnationId()).isEqualTo(t.registration().incarnationId());
        assertThat(raw("tbl/robots/episodes")).isNull();
        assertThat(s(raw("tbl/archive/old"))).contains("m1.json");
        refused(catalog.renameTable("archive", "old", "nowhere", "x", List.of()), CatalogException.NotFound.class, "nowhere");

        refused(catalog.dropTable("archive", "old", "lance", List.of()), CatalogException.NotFound.class, "iceberg");
        Tombstone tomb = await(catalog.dropTable("archive", "old", "iceberg", List.of()));
        assertThat(tomb.registration().metadataLocation()).contains("m1.json");
    }

    /**
     * A location the catalog assigns is claimed by one table incarnation, in its create's own
     * transaction, and never again: not by another name, not after the table is renamed or
     * dropped. The registration says it was assigned, through renames and drops; a create that
     * asks for a claimed location writes nothing. Creates that claim nothing may share a location.
     */
    @Test
    void aLocationIsAssignedToOneTableOnce() throws Exception {
        newNamespace("robots");
        String at = "s3://b/wh/robots/episodes-1";
        Table t = await(catalog.createPointerTable("robots", "episodes", "iceberg", at, "m0.json", List.of(), null, true));
        assertThat(t.registration().locationAssigned()).isTrue();
        assertThat(raw(CatalogKeys.assignedLocation(at))).as("the claim").isNotNull();
        assertThat(s(raw(CatalogKeys.assignedLocation(at)))).contains(at, t.registration().incarnationId().orElseThrow());

        String before = generation();
        int sent = port.transactions().size();
        refused(catalog.createPointerTable("robots", "other", "iceberg", at, "m1.json", List.of(), null, true),
                CatalogException.LocationTaken.class, at, "assigned to another table");
        assertThat(raw("tbl/robots/other")).as("nothing written").isNull();
        assertThat(generation()).isEqualTo(before);
        assertThat(port.transactions()).hasSize(sent + 1);

        Table renamed = await(catalog.renameTable("robots", "episodes", "robots", "renamed", List.of()));
        assertThat(renamed.registration().locationAssigned()).as("a rename keeps the assignment").isTrue();
        Tombstone tomb = await(catalog.dropTable("robots", "renamed", "iceberg", List.of()));
        assertThat(tomb.registration().locationAssigned()).isTrue();
        refused(catalog.createPointerTable("robots", "episodes", "iceberg", at, "m2.json", List.of(), null, true),
                CatalogException.LocationTaken.class, at);

        Table unclaimed = await(catalog.createPointerTable("robots", "episodes", "iceberg", at, "m3.json", List.of(), null, false));
        assertThat(unclaimed.registration().locationAssigned()).as("a location its creator named").isFalse();
        assertThat(s(raw(CatalogKeys.assignedLocation(at)))).as("still the first table's").contains(t.registration().incarnationId().orElseThrow());
    }

    /**
     * A drop or rename that names the incarnation it read applies across commits of that
     * incarnation (they keep an Iceberg table's UUID), carrying the detail into its event; once the
     * name holds another incarnation it is refused and sends nothing.
     */
    @Test
    void dropAndRenameOfAnIncarnationSurviveCommitsButNotARecreate() throws Exception {
        newNamespace("robots");
        Table t = await(catalog.createPointerTable("robots", "a", "iceberg", "la", "a0", List.of()));
        String incarnation = t.registration().incarnationId().orElseThrow();
        await(catalog.swapPointers(List.of(new Catalog.PointerSwap("robots", "a", "a0", "a1")), List.of()));
        io.vertx.core.json.JsonObject uuid = new io.vertx.core.json.JsonObject().put("table_uuid", "u-1");
        await(catalog.renameTable("robots", "a", "robots", "b", List.of(), incarnation, uuid));
        io.vertx.core.json.JsonObject renamed = port.events.get(port.events.size() - 1);
        assertThat(renamed.getString("type")).isEqualTo("table_renamed");
        assertThat(renamed.getString("table_uuid")).as("the detail joins the event").isEqualTo("u-1");
        assertThat(renamed.getString("metadata_location")).isEqualTo("a1");
        await(catalog.dropTable("robots", "b", "iceberg", List.of()));
        await(catalog.createPointerTable("robots", "b", "iceberg", "lb", "b0", List.of()));
        int sent = port.transactions().size();
        refused(catalog.dropTable("robots", "b", "iceberg", List.of(), incarnation, uuid), CatalogException.PointerMoved.class, incarnation);
        refused(catalog.renameTable("robots", "b", "robots", "c", List.of(), incarnation, uuid), CatalogException.PointerMoved.class, incarnation);
        assertThat(port.transactions()).as("refused before the store").hasSize(sent);
        assertThat(s(raw("tbl/robots/b"))).contains("b0");
    }

    @Test
    void multiTableSwapIsOneTransactionOrNothing() throws Exception {
        newNamespace("robots");
        await(catalog.createPointerTable("robots", "a", "iceberg", "la", "a0", List.of()));
        await(catalog.createPointerTable("robots", "b", "iceberg", "lb", "b0", List.of()));
        int sent = port.transactions().size();
        refused(catalog.swapPointers(List.of(new Catalog.PointerSwap("robots", "a", "a0", "a1"),
                new Catalog.PointerSwap("robots", "b", "stale", "b1")), List.of()), CatalogException.PointerMoved.class, "robots.b");
        assertThat(s(raw("tbl/robots/a"))).as("no table changed").contains("\"a0\"");
        assertThat(port.transactions()).hasSize(sent);

        byte[] record = b("{\"answer\":1}");
        await(catalog.swapPointers(List.of(new Catalog.PointerSwap("robots", "a", "a0", "a1"),
                new Catalog.PointerSwap("robots", "b", "b0", "b1")), List.of(Transaction.Op.create(Catalog.idempotencyRecordKey("k-1"), record))));
        assertThat(port.transactions()).as("one transaction for both tables and the record").hasSize(sent + 1);
        assertThat(port.lastTransaction().ops()).extracting(Transaction.Op::key)
                .containsExactly("tbl/robots/a", "tbl/robots/b", "__lake_internal/idempotency/k-1");
        assertThat(port.lastTransaction().guardKey()).contains(GUARD);
        assertThat(await(catalog.idempotencyRecord("k-1"))).hasValueSatisfying(v -> assertThat(s(v)).isEqualTo("{\"answer\":1}"));

        // A second write of the same record key fails the whole transaction: neither pointer moves.
        refused(catalog.swapPointers(List.of(new Catalog.PointerSwap("robots", "a", "a1", "a2")),
                List.of(Transaction.Op.create(Catalog.idempotencyRecordKey("k-1"), record))), CatalogException.AlreadyExists.class, "record");
        assertThat(s(raw("tbl/robots/a"))).contains("\"a1\"");
        assertThat(await(catalog.purgeIdempotencyRecords(v -> true, 10))).isEqualTo(1);
        assertThat(await(catalog.idempotencyRecord("k-1"))).isEmpty();
        refused(catalog.idempotencyRecord("bad/key"), CatalogException.InvalidArgument.class, "Idempotency-Key");
    }

    @Test
    void namespacePropertiesAreUpdatedOnTheExactRecord() throws Exception {
        await(catalog.createNamespace("robots", Map.of("a", "1", "b", "2")));
        Namespace n = await(catalog.updateNamespaceProperties("robots", Set.of("a"), Map.of("c", "3"), List.of()));
        assertThat(n.properties()).containsExactlyInAnyOrderEntriesOf(Map.of("b", "2", "c", "3"));
        assertThat(await(catalog.getNamespace("robots")).properties()).isEqualTo(n.properties());
        assertThat(port.lastTransaction().ops().get(0).condition()).isEqualTo(Condition.VALUE);
        refused(catalog.updateNamespaceProperties("robots", Set.of("b"), Map.of("b", "x"), List.of()),
                CatalogException.InvalidArgument.class, "both removed and set");
        refused(catalog.updateNamespaceProperties("absent", Set.of(), Map.of("x", "y"), List.of()), CatalogException.NotFound.class, "absent");
    }
}
