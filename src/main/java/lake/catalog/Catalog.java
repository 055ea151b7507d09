package lake.catalog;

import io.vertx.core.Future;
import lake.catalog.events.CatalogEvents;
import lake.catalog.model.CatalogException;
import lake.catalog.model.CatalogJson;
import lake.catalog.model.CatalogKeys;
import lake.catalog.model.CatalogNames;
import lake.catalog.model.CatalogSnapshot;
import lake.catalog.model.Column;
import lake.catalog.model.NamePage;
import lake.catalog.model.Namespace;
import lake.catalog.model.Registration;
import lake.catalog.model.Table;
import lake.catalog.model.PurgeJob;
import lake.catalog.model.Tombstone;
import lake.catalog.model.TombstonePage;
import lake.catalog.model.UuidV7;
import lake.meta.KeyValue;
import lake.meta.MetaException;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.Transaction.Op;
import lake.meta.TransactionOutcome;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import static lake.catalog.model.CatalogNames.checkName;
import static lake.catalog.model.CatalogNames.invalid;

/**
 * The table catalog: namespaces, tables, version commits, drops with durable tombstones and
 * consistent snapshots, as pure logic over a {@link CatalogPort}. Key layout: {@link CatalogKeys}.
 *
 * <p>Every mutation is one transaction through the port, conditioned on the exact bytes it read;
 * there is no read-then-write without them. When a condition fails because something changed in
 * between, the operation re-reads and decides again, at most {@value #MAX_ATTEMPTS} times, then
 * fails with {@link CatalogException.Contended}. Every table and namespace create and drop writes
 * a fresh UUIDv7 at the directory generation in the same transaction; a version commit never does.
 * Input is checked before the store is touched ({@link CatalogException.InvalidArgument}); faults
 * of the port (not leader, fenced, backend) pass through unchanged.
 *
 * <p>Stateless apart from its collaborators: one instance serves concurrent callers as long as
 * {@code random} may be called from several threads (e.g. {@link java.security.SecureRandom} or
 * {@link java.util.Random}). Futures complete wherever the port completes them.
 */
public final class Catalog {
    /** Attempts of one operation before it gives up with {@link CatalogException.Contended}. */
    public static final int MAX_ATTEMPTS = 8;
    public static final int MAX_NAMESPACE_PAGE = 1000;
    public static final int MAX_TABLE_PAGE = 256;
    public static final int MAX_TOMBSTONE_PAGE = 1000;
    static final int SNAPSHOT_PAGE = 1000;
    /** A drop marker older than this is an interrupted drop, which a table create clears. */
    public static final long ABANDONED_DROP_MS = 30_000;

    private final CatalogPort port;
    private final String catalogRoot;
    final LongSupplier wallMillis;
    private final RandomGenerator random;
    private final int snapshotPage;

    /** {@code catalogRoot} is where table data lives ({@code s3://bucket/prefix}); a trailing slash is dropped. */
    public Catalog(CatalogPort port, String catalogRoot, LongSupplier wallMillis, RandomGenerator random) {
        this(port, catalogRoot, wallMillis, random, SNAPSHOT_PAGE);
    }

    /** As the public constructor, reading snapshots {@code snapshotPage} registrations per scan (tests cross pages cheaply). */
    Catalog(CatalogPort port, String catalogRoot, LongSupplier wallMillis, RandomGenerator random, int snapshotPage) {
        if (snapshotPage < 1) throw new IllegalArgumentException("snapshotPage must be positive");
        if (port == null || wallMillis == null || random == null) throw new IllegalArgumentException("port, clock and random are required");
        if (catalogRoot == null || catalogRoot.isBlank()) throw new IllegalArgumentException("catalogRoot must not be empty");
        String root = catalogRoot;
        while (root.endsWith("/") && root.length() > 1) root = root.substring(0, root.length() - 1);
        this.port = port;
        this.catalogRoot = root;
        this.wallMillis = wallMillis;
        this.random = random;
        this.snapshotPage = snapshotPage;
    }

    /** The port this catalog reads and writes through. */
    public CatalogPort port() {
        return port;
    }

    /** Where this catalog places tables: the configured root without trailing slashes. */
    public String root() {
        return catalogRoot;
    }

    /** The key of the catalog's directory generation, which every table and namespace create and drop rewrites. */
    public static final String GENERATION_KEY = CatalogKeys.GENERATION;

    /** The key holding table {@code name}'s registration in namespace {@code ns}; rewritten by each of its commits. */
    public static String tableKey(String ns, String name) {
        return CatalogKeys.table(ns, name);
    }

    /** Whether {@code key} belongs to the catalog ({@code tbl/}, {@code drop/}, {@code __lake_internal/}); only the catalog writes those. */
    public static boolean isCatalogKey(String key) {
        return CatalogKeys.isCatalogKey(key);
    }

    /** The catalog's prefix {@code key} lies under ({@code tbl/}, {@code drop/} or {@code __lake_internal/}), or null: not a catalog key. */
    public static String reservedPrefix(String key) {
        return CatalogKeys.reservedPrefix(key);
    }

    // ---- namespaces ------------------------------------------------------------------------------

    /** Creates an empty namespace; {@link CatalogException.AlreadyExists} if it exists. */
    public Future<Namespace> createNamespace(String ns, Map<String, String> properties) {
        return createNamespace(ns, properties, List.of());
    }

    /** As {@link #createNamespace(String, Map)}, writing {@code extra} in the same transaction. */
    public Future<Namespace> createNamespace(String ns, Map<String, String> properties, List<Op> extra) {
        return start(() -> {
            checkName("namespace", ns);
            Namespace created = new Namespace(ns, CatalogNames.checkProperties(ns, properties), false);
            byte[] record = checkedSize("namespace '" + ns + "' record", created.toBytes());
            List<Op> ops = new ArrayList<>(List.of(Op.create(CatalogKeys.namespace(ns), record), bumpGeneration()));
            ops.addAll(extra);
            return apply(Transaction.of(ops), CatalogEvents.namespaceCreated(ns, created.properties())).compose(outcome -> outcome.applied() ? Future.succeededFuture(created)
                    : Future.failedFuture(new CatalogException.AlreadyExists(outcome.failed().contains(0)
                            ? "namespace '" + ns + "' already exists" : "a record written with namespace '" + ns + "' already exists")));
        });
    }

    /** The namespace, {@link Namespace#dropping()} while a drop is deciding; {@link CatalogException.NotFound} without it. */
    public Future<Namespace> getNamespace(String ns) {
        return start(() -> {
            checkName("namespace", ns);
            Future<Stored<Namespace>> record = readNamespace(ns);
            Future<Optional<byte[]>> marker = port.get(CatalogKeys.droppingMarker(ns));
            return Future.all(record, marker).map(both -> marker.result().isPresent()
                    ? record.result().value().withDropping(true) : record.result().value());
        });
    }

    /** One page of namespace names in UTF-8 order; {@code limit} 1 to {@value #MAX_NAMESPACE_PAGE}. */
    public Future<NamePage> listNamespaces(String continuation, int limit) {
        return start(() -> scanNames(CatalogKeys.NAMESPACES, continuation,
                CatalogNames.checkLimit(limit, MAX_NAMESPACE_PAGE)));
    }

    /**
     * Drops an empty namespace; {@link CatalogException.NamespaceNotEmpty} while it holds tables.
     * Three steps, each one transaction: create the namespace's dropping marker (from then on every
     * table create fails its "no marker" check), look for a table, then delete the record and the
     * marker with the generation, or delete only the marker. The record itself is untouched until
     * the end, so reads see the namespace throughout. A drop interrupted after the first step is
     * finished (or undone) by the next drop of the same namespace; creates meanwhile are refused
     * as {@link CatalogException.Contended}, until the marker is {@value #ABANDONED_DROP_MS} ms old
     * and the next create clears it.
     */
    public Future<Namespace> dropNamespace(String ns) {
        return dropNamespace(ns, List.of());
    }

    /** As {@link #dropNamespace(String)}, writing {@code extra} in the transaction that deletes the record. */
    public Future<Namespace> dropNamespace(String ns, List<Op> extra) {
        return start(() -> {
            checkName("namespace", ns);
            String key = CatalogKeys.namespace(ns);
            String markerKey = CatalogKeys.droppingMarker(ns);
            return retrying("drop namespace '" + ns + "'", () -> {
                Future<Stored<Namespace>> record = readNamespace(ns);
                Future<Optional<byte[]>> existing = port.get(markerKey);
                return Future.all(record, existing).compose(read -> {
                    Stored<Namespace> current = record.result();
                    byte[] fresh = newDropMarker();
                    Future<Optional<byte[]>> marked = existing.result().isPresent() ? Future.succeededFuture(existing.result())
                            : apply(Transaction.of(List.of(Op.create(markerKey, fresh), Op.checkValue(key, current.bytes()))))
                                    .map(o -> o.applied() ? Optional.of(fresh) : Optional.empty());
                    return marked.compose(marker -> {
                        if (marker.isEmpty()) return Future.succeededFuture(Optional.<Namespace>empty());
                        // Every create that committed did so before the marker existed, so this read sees it.
                        return port.scan(CatalogKeys.tablesOf(ns), null, 1).compose(page -> {
                            if (!page.entries().isEmpty()) {
                                String table = page.entries().get(0).key().substring(CatalogKeys.tablesOf(ns).length());
                                return apply(Transaction.of(List.of(Op.delete(markerKey, marker.get()))))
                                        .compose(o -> Future.failedFuture(notEmpty(ns, "table '" + table + "'")));
                            }
                            List<Op> ops = new ArrayList<>(List.of(
                                    Op.delete(key, current.bytes()), Op.delete(markerKey, marker.get()), bumpGeneration()));
                            ops.addAll(extra);
                            Transaction tx = Transaction.of(ops);
                            return apply(tx, CatalogEvents.namespaceDropped(ns))
                                    .map(o -> o.applied() ? Optional.of(current.value()) : Optional.<Namespace>empty());
                        });
                    });
                });
            });
        });
    }

    // ---- tables ----------------------------------------------------------------------------------

    /**
     * Registers a new table at version 0 with a fresh incarnation and the location
     * {@code <catalogRoot>/<ns>/<name>/<incarnation_id>}. One transaction and no read: the table
     * key absent, the namespace record present, no drop of the namespace under way, the generation
     * rewritten. Creates of different tables check the namespace but never write it, so they never
     * conflict with each other.
     */
    public Future<Table> createTable(String ns, String name, List<String> columns, String engine) {
        return createTable(ns, name, columns, engine, 1);
    }

    private Future<Table> createTable(String ns, String name, List<String> columns, String engine, int attempt) {
        return start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            List<Column> cols = CatalogNames.checkColumns(columns);
            String eng = CatalogNames.checkEngine(engine);
            String what = "table '" + ns + "." + name + "'";
            String incarnation = UuidV7.next(wallMillis.getAsLong(), random);
            Registration reg = Registration.create(catalogRoot + "/" + ns + "/" + name + "/" + incarnation, eng, incarnation, cols);
            Transaction tx = Transaction.of(List.of(
                    Op.create(CatalogKeys.table(ns, name), checkedSize(what + " registration", reg.bytes())),
                    Op.checkExists(CatalogKeys.namespace(ns)),
                    Op.checkAbsent(CatalogKeys.droppingMarker(ns)),
                    bumpGeneration()));
            return apply(tx, CatalogEvents.tableCreated(ref(ns, name, reg), null)).compose(o -> {
                if (o.applied()) return Future.succeededFuture(new Table(ns, name, reg));
                if (o.failed().contains(1)) return Future.failedFuture(namespaceNotFound(ns));
                // The marker was gone or abandoned (now cleared): try again, a bounded number of times.
                if (o.failed().contains(2)) {
                    if (attempt >= MAX_ATTEMPTS) {
                        return Future.failedFuture(new CatalogException.Contended("create " + what + " met namespace drops "
                                + MAX_ATTEMPTS + " times; retry later"));
                    }
                    return clearAbandonedDrop(ns).compose(cleared -> createTable(ns, name, columns, engine, attempt + 1));
                }
                return Future.failedFuture(new CatalogException.AlreadyExists(what + " already exists"));
            });
        });
    }

    /**
     * A create met the namespace's drop marker. A drop takes a few store calls; a marker older than
     * {@value #ABANDONED_DROP_MS} ms belongs to a drop that was interrupted (its leader crashed or
     * lost the lease between marking and deciding), and would otherwise block every create until
     * someone drops the namespace again: it is deleted (on its exact bytes) and the create goes on.
     * The age compares this leader's clock with the clock of the leader that wrote the marker: skew
     * after a leader change only moves when a create clears it (a marker dated ahead by more than
     * the same bound counts as abandoned too), never safety. Deleting a marker is always safe: a drop still running fails its final
     * transaction, which needs its own marker's exact bytes, re-reads and sees the new table. A
     * recent marker fails with {@link CatalogException.Contended}, saying since when.
     */
    private Future<Void> clearAbandonedDrop(String ns) {
        String key = CatalogKeys.droppingMarker(ns);
        return port.get(key).compose(marker -> {
            if (marker.isEmpty()) return Future.succeededFuture();
            long started = markerStartedMs(marker.get());
            long now = wallMillis.getAsLong();
            if (started < 0 || Math.abs(now - started) > ABANDONED_DROP_MS) {
                return apply(Transaction.of(List.of(Op.delete(key, marker.get())))).mapEmpty();
            }
            return Future.failedFuture(new CatalogException.Contended("namespace '" + ns + "' is being dropped (for "
                    + (now - started) + " ms); retry, or after " + ABANDONED_DROP_MS / 1000 + " s a create clears an abandoned drop"));
        });
    }

    /** When the drop that wrote {@code marker} began, or -1 if the marker does not say. */
    private static long markerStartedMs(byte[] marker) {
        try {
            com.fasterxml.jackson.databind.JsonNode started = CatalogJson.parseObject("drop marker", marker).get("started_ms");
            return started != null && started.canConvertToLong() && started.asLong() >= 0 ? started.asLong() : -1;
        } catch (CatalogException.CorruptRecord unreadable) {
            return -1;
        }
    }

    /** One page of a namespace's table names; {@code limit} 1 to {@value #MAX_TABLE_PAGE}; {@link CatalogException.NotFound} without the namespace. */
    public Future<NamePage> listTables(String ns, String continuation, int limit) {
        return start(() -> scanTables(ns, continuation, limit).map(page -> namePage(CatalogKeys.tablesOf(ns), page)));
    }

    /** The table's registration as stored (its exact bytes in {@link Registration#bytes()}). */
    public Future<Table> resolve(String ns, String name) {
        return start(() -> readTable(checkName("namespace", ns), checkName("table name", name))
                .map(t -> new Table(ns, name, t.value())));
    }

    /**
     * Moves the table from {@code expectedVersion} to {@code version} (unsigned, {@code version >
     * expectedVersion}), changing only {@code current_version} and conditioned on the exact
     * registration read. {@code incarnationId}, when given, must be the table's
     * ({@link CatalogException.IncarnationMismatch} otherwise); {@link CatalogException.VersionConflict}
     * names the current version. The generation is untouched.
     */
    public Future<Table> commitVersion(String ns, String name, long expectedVersion, long version, String incarnationId) {
        return start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            if (Long.compareUnsigned(version, expectedVersion) <= 0) {
                throw invalid("version " + Long.toUnsignedString(version) + " must be greater than expected_version "
                        + Long.toUnsignedString(expectedVersion));
            }
            if (incarnationId != null && incarnationId.isEmpty()) throw invalid("incarnation_id must not be empty when given");
            String what = "'" + ns + "." + name + "'";
            return retrying("commit version of table " + what, () -> readTable(ns, name).compose(current -> {
                Registration reg = current.value();
                String actual = reg.incarnationId().orElse(null);
                if (incarnationId != null && !incarnationId.equals(actual)) {
                    return Future.failedFuture(new CatalogException.IncarnationMismatch("table " + what + " has incarnation "
                            + (actual == null ? "none (legacy)" : actual) + ", not " + incarnationId + "; it was dropped and re-created"));
                }
                if (reg.currentVersion() != expectedVersion) {
                    return Future.failedFuture(new CatalogException.VersionConflict(what, expectedVersion, reg.currentVersion()));
                }
                Registration next = reg.withCurrentVersion(version);
                Transaction tx = Transaction.of(List.of(
                        Op.update(CatalogKeys.table(ns, name), current.bytes(), next.bytes())));
                return apply(tx, CatalogEvents.versionCommitted(ref(ns, name, next), next.currentVersion())).map(o -> o.applied() ? Optional.of(new Table(ns, name, next)) : Optional.empty());
            }));
        });
    }

    /**
     * Drops the table in one transaction: its tombstone created, the exact registration deleted,
     * the generation rewritten.
     */
    public Future<Tombstone> dropTable(String ns, String name) {
        return dropTable(ns, name, null, List.of());
    }

    /**
     * As {@link #dropTable(String, String)}; with {@code engine}, only a table of that engine
     * ({@link CatalogException.NotFound} naming the other engine otherwise), and {@code extra}
     * written in the same transaction.
     */
    public Future<Tombstone> dropTable(String ns, String name, String engine, List<Op> extra) {
        return dropTable(ns, name, engine, extra, null, null);
    }

    /**
     * As {@link #dropTable(String, String, String, List)}, of the table only while it is the
     * incarnation {@code incarnationId} ({@link CatalogException.PointerMoved} once it was dropped
     * and re-created; {@code null}: any), with {@code detail} (what the caller read of that
     * incarnation, say an Iceberg table's UUID, which its commits never change) in the event.
     */
    public Future<Tombstone> dropTable(String ns, String name, String engine, List<Op> extra, String incarnationId,
                                       io.vertx.core.json.JsonObject detail) {
        return dropTable(ns, name, engine, extra, incarnationId, detail, false);
    }

    /**
     * As {@link #dropTable(String, String, String, List, String, io.vertx.core.json.JsonObject)};
     * with {@code purge}, the dropped incarnation is queued for purge in the same transaction
     * ({@link PurgeJob}: the leader's worker deletes its files; until a batch is claimed an undrop
     * still cancels it).
     */
    public Future<Tombstone> dropTable(String ns, String name, String engine, List<Op> extra, String incarnationId,
                                       io.vertx.core.json.JsonObject detail, boolean purge) {
        return start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            String what = "table '" + ns + "." + name + "'";
            return retrying("drop " + what, () -> readTable(ns, name).compose(table -> {
                Registration reg = table.value();
                if (engine != null && !engine.equals(reg.engine())) {
                    return Future.failedFuture(new CatalogException.NotFound(what + " is a " + reg.engine() + " table, not " + engine));
                }
                if (recreated(reg, incarnationId)) return Future.failedFuture(recreated(what, incarnationId));
                String incarnation = reg.incarnationId().orElse(null);
                String tombKey = CatalogKeys.tombstone(ns, name, incarnation);
                List<Op> ops = new ArrayList<>(3 + extra.size());
                long droppedMs = wallMillis.getAsLong();
                ops.add(Op.create(tombKey, checkedSize(what + " tombstone", Tombstone.encode(ns, name, droppedMs, reg))));
                ops.add(Op.delete(CatalogKeys.table(ns, name), table.bytes()));
                ops.add(bumpGeneration());
                if (purge) {
                    ops.add(Op.create(CatalogKeys.purgeJob(ns, name, incarnation),
                            PurgeJob.queued(ns, name, incarnation == null ? CatalogKeys.LEGACY : incarnation, PurgeJob.Reason.REQUESTED, droppedMs).encode()));
                }
                ops.addAll(extra);
                io.vertx.core.json.JsonObject event = with(CatalogEvents.tableDropped(ref(ns, name, reg)), detail);
                if (purge) event.put("purge_requested", true);
                return apply(Transaction.of(ops), event).compose(o -> {
                    if (!o.applied() && o.failed().stream().anyMatch(i -> i > 2)) {
                        return Future.failedFuture(new CatalogException.AlreadyExists("a record written with the drop of " + what + " already exists"));
                    }
                    Tombstone tomb = new Tombstone(ns, name, incarnation == null ? CatalogKeys.LEGACY : incarnation, droppedMs, reg);
                    if (o.applied()) return Future.succeededFuture(Optional.of(tomb));
                    if (o.failed().contains(0) && !o.failed().contains(1)) {
                        return Future.failedFuture(new CatalogException.AlreadyExists(
                                "a tombstone " + tombKey + " already exists for " + what + "; purge it first"));
                    }
                    return Future.succeededFuture(Optional.<Tombstone>empty());
                });
            }));
        });
    }

    // ---- pointer tables (engines that keep their own metadata files: Iceberg) -------------------

    /**
     * One table's pointer swap: from exactly {@code expectedMetadataLocation} to {@code metadataLocation};
     * {@code detail} joins the table's entry in the commit's event (say, the snapshots it added), or {@code null}.
     */
    public record PointerSwap(String namespace, String name, String expectedMetadataLocation, String metadataLocation,
                              io.vertx.core.json.JsonObject detail) {
        public PointerSwap(String namespace, String name, String expectedMetadataLocation, String metadataLocation) {
            this(namespace, name, expectedMetadataLocation, metadataLocation, null);
        }

        public PointerSwap {
            detail = detail == null ? null : detail.copy();
            if (expectedMetadataLocation == null || expectedMetadataLocation.isEmpty()) throw invalid("expected metadata location must be given");
            if (metadataLocation == null || metadataLocation.isEmpty()) throw invalid("metadata location must be given");
        }
    }

    /**
     * Registers a pointer table (its registration names {@code metadataLocation}) at version 0 with
     * a fresh incarnation, as {@link #createTable} does: one transaction, the table key absent (a
     * name taken by any engine is {@link CatalogException.AlreadyExists}), the namespace present and
     * not being dropped, the generation rewritten, plus {@code extra} (records the caller writes
     * atomically with the create, e.g. an idempotency record).
     */
    public Future<Table> createPointerTable(String ns, String name, String engine, String location, String metadataLocation, List<Op> extra) {
        return createPointerTable(ns, name, engine, location, metadataLocation, extra, null);
    }

    /** As {@link #createPointerTable(String, String, String, String, String, List)}; {@code detail} joins the create's event. */
    public Future<Table> createPointerTable(String ns, String name, String engine, String location, String metadataLocation, List<Op> extra,
                                            io.vertx.core.json.JsonObject detail) {
        return createPointerTable(ns, name, engine, location, metadataLocation, extra, detail, false);
    }

    /**
     * As {@link #createPointerTable(String, String, String, String, String, List, io.vertx.core.json.JsonObject)};
     * with {@code assignLocation} the create also claims {@code location} for this incarnation, in
     * the same transaction, and its registration says so ({@link Registration#locationAssigned()}).
     * A location is claimed once, ever: a claim that exists already (a live, renamed or dropped
     * table's) fails the create with {@link CatalogException.LocationTaken} and nothing is written.
     * Storage access is delegated only for a claimed location, so no later table, whatever its
     * name, reaches the files of the table the catalog assigned it to.
     */
    public Future<Table> createPointerTable(String ns, String name, String engine, String location, String metadataLocation, List<Op> extra,
                                            io.vertx.core.json.JsonObject detail, boolean assignLocation) {
        return start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            String eng = checkName("engine", engine);
            if (location == null || location.isEmpty()) throw invalid("location must be given");
            if (metadataLocation == null || metadataLocation.isEmpty()) throw invalid("metadata location must be given");
            String what = "table '" + ns + "." + name + "'";
            String incarnation = UuidV7.next(wallMillis.getAsLong(), random);
            Registration.Claiming claiming = assignLocation
                    ? Registration.createClaimingPointer(location, eng, incarnation, metadataLocation, ns, name) : null;
            Registration reg = claiming != null ? claiming.registration() : Registration.createPointer(location, eng, incarnation, metadataLocation);
            List<Op> ops = new ArrayList<>(List.of(
                    Op.create(CatalogKeys.table(ns, name), checkedSize(what + " registration", reg.bytes())),
                    Op.checkExists(CatalogKeys.namespace(ns)),
                    Op.checkAbsent(CatalogKeys.droppingMarker(ns)),
                    bumpGeneration()));
            if (claiming != null) ops.add(Op.create(claiming.claimKey(), claiming.claim()));
            int claim = ops.size() - 1;
            ops.addAll(extra);
            return apply(Transaction.of(ops), CatalogEvents.tableCreated(ref(ns, name, reg), detail)).compose(o -> {
                if (o.applied()) return Future.succeededFuture(new Table(ns, name, reg));
                if (o.failed().contains(1)) return Future.failedFuture(namespaceNotFound(ns));
                if (o.failed().contains(2)) return Future.failedFuture(new CatalogException.Contended("namespace '" + ns + "' is being dropped"));
                if (o.failed().contains(0)) return Future.failedFuture(new CatalogException.AlreadyExists(what + " already exists"));
                if (assignLocation && o.failed().contains(claim)) {
                    return Future.failedFuture(new CatalogException.LocationTaken("location " + location
                            + " was assigned to another table or view (live, renamed or dropped); a new one cannot take it"));
                }
                return Future.failedFuture(new CatalogException.AlreadyExists("a record written with " + what + " already exists"));
            });
        });
    }

    /**
     * Swaps every table's pointer in <b>one</b> transaction, each conditioned on the exact
     * registration read, after checking that it still names the swap's expected metadata location;
     * {@code extra} joins the same transaction. If any table points elsewhere, or is gone, nothing
     * is written: {@link CatalogException.PointerMoved} or {@link CatalogException.NotFound}. A
     * registration that changed otherwise in between (same pointer) is re-read and tried again.
     * The generation is untouched, as for a version commit.
     */
    public Future<List<Table>> swapPointers(List<PointerSwap> swaps, List<Op> extra) {
        return start(() -> {
            if (swaps == null || swaps.isEmpty()) throw invalid("at least one table must be committed");
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (PointerSwap s : swaps) {
                checkName("namespace", s.namespace());
                checkName("table name", s.name());
                if (!seen.add(CatalogKeys.table(s.namespace(), s.name()))) {
                    throw invalid("table '" + s.namespace() + "." + s.name() + "' is committed twice in one transaction");
                }
            }
            return retrying("pointer swap of " + swaps.size() + " table(s)", () -> {
                List<Future<Stored<Registration>>> reads = swaps.stream().map(s -> readTable(s.namespace(), s.name())).toList();
                return Future.all(reads).compose(all -> {
                    List<Op> ops = new ArrayList<>(swaps.size() + extra.size());
                    List<Table> next = new ArrayList<>(swaps.size());
                    List<io.vertx.core.json.JsonObject> committed = new ArrayList<>(swaps.size());
                    for (int i = 0; i < swaps.size(); i++) {
                        PointerSwap s = swaps.get(i);
                        Stored<Registration> current = reads.get(i).result();
                        String at = current.value().metadataLocation().orElse(null);
                        if (!s.expectedMetadataLocation().equals(at)) {
                            return Future.failedFuture(new CatalogException.PointerMoved("table '" + s.namespace() + "." + s.name()
                                    + "' points at " + at + ", not at the base " + s.expectedMetadataLocation()));
                        }
                        Registration moved = current.value().withMetadataLocation(s.metadataLocation());
                        ops.add(Op.update(CatalogKeys.table(s.namespace(), s.name()), current.bytes(),
                                checkedSize("table '" + s.namespace() + "." + s.name() + "' registration", moved.bytes())));
                        next.add(new Table(s.namespace(), s.name(), moved));
                        committed.add(CatalogEvents.committedTable(ref(s.namespace(), s.name(), moved), at, s.detail()));
                    }
                    ops.addAll(extra);
                    return apply(Transaction.of(ops), CatalogEvents.tablesCommitted(committed)).compose(o -> {
                        if (o.applied()) return Future.succeededFuture(Optional.of(List.copyOf(next)));
                        if (o.failed().stream().anyMatch(i -> i >= swaps.size())) {
                            return Future.failedFuture(new CatalogException.AlreadyExists("a record written with this commit already exists"));
                        }
                        return Future.succeededFuture(Optional.<List<Table>>empty());
                    });
                });
            });
        });
    }

    /**
     * Renames a table in one transaction: the exact registration moves to the new name (same
     * incarnation), the target name absent, the target namespace present and not being dropped,
     * the generation rewritten, plus {@code extra}. No tombstone: nothing was dropped.
     */
    public Future<Table> renameTable(String ns, String name, String toNs, String toName, List<Op> extra) {
        return renameTable(ns, name, toNs, toName, extra, null, null);
    }

    /** As {@link #renameTable(String, String, String, String, List)}, with a drop's {@code incarnationId} check and event {@code detail}. */
    public Future<Table> renameTable(String ns, String name, String toNs, String toName, List<Op> extra, String incarnationId,
                                     io.vertx.core.json.JsonObject detail) {
        return start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            checkName("namespace", toNs);
            checkName("table name", toName);
            String from = "table '" + ns + "." + name + "'";
            String to = "table '" + toNs + "." + toName + "'";
            if (ns.equals(toNs) && name.equals(toName)) throw invalid("cannot rename " + from + " to itself");
            return retrying("rename " + from, () -> readTable(ns, name).compose(current -> {
                if (recreated(current.value(), incarnationId)) return Future.failedFuture(recreated(from, incarnationId));
                List<Op> ops = new ArrayList<>(List.of(
                        Op.delete(CatalogKeys.table(ns, name), current.bytes()),
                        Op.create(CatalogKeys.table(toNs, toName), current.bytes()),
                        Op.checkExists(CatalogKeys.namespace(toNs)),
                        Op.checkAbsent(CatalogKeys.droppingMarker(toNs)),
                        bumpGeneration()));
                ops.addAll(extra);
                return apply(Transaction.of(ops), with(CatalogEvents.tableRenamed(ref(ns, name, current.value()), toNs, toName), detail)).compose(o -> {
                    if (o.applied()) return Future.succeededFuture(Optional.of(new Table(toNs, toName, current.value())));
                    if (o.failed().contains(2)) return Future.failedFuture(namespaceNotFound(toNs));
                    if (o.failed().contains(1)) return Future.failedFuture(new CatalogException.AlreadyExists(to + " already exists"));
                    if (o.failed().contains(3)) return Future.failedFuture(new CatalogException.Contended("namespace '" + toNs + "' is being dropped"));
                    if (o.failed().stream().anyMatch(i -> i > 4)) {
                        return Future.failedFuture(new CatalogException.AlreadyExists("a record written with this rename already exists"));
                    }
                    return Future.succeededFuture(Optional.<Table>empty());
                });
            }));
        });
    }

    /** Removes {@code removals} and sets {@code updates} on the namespace's properties, on its exact record, plus {@code extra}. */
    public Future<Namespace> updateNamespaceProperties(String ns, java.util.Set<String> removals, Map<String, String> updates, List<Op> extra) {
        return start(() -> {
            checkName("namespace", ns);
            Map<String, String> set = CatalogNames.checkProperties(ns, updates);
            java.util.Set<String> remove = removals == null ? java.util.Set.of() : java.util.Set.copyOf(removals);
            for (String r : remove) {
                if (set.containsKey(r)) throw invalid("namespace '" + ns + "': property '" + r + "' is both removed and set");
            }
            return retrying("update properties of namespace '" + ns + "'", () -> readNamespace(ns).compose(current -> {
                Map<String, String> props = new java.util.LinkedHashMap<>(current.value().properties());
                props.keySet().removeAll(remove);
                props.putAll(set);
                Namespace next = new Namespace(ns, props, false);
                List<Op> ops = new ArrayList<>(List.of(Op.update(CatalogKeys.namespace(ns), current.bytes(),
                        checkedSize("namespace '" + ns + "' record", next.toBytes()))));
                ops.addAll(extra);
                return apply(Transaction.of(ops), CatalogEvents.namespaceUpdated(ns, remove, set)).compose(o -> {
                    if (o.applied()) return Future.succeededFuture(Optional.of(next));
                    if (o.failed().stream().anyMatch(i -> i > 0)) {
                        return Future.failedFuture(new CatalogException.AlreadyExists("a record written with this update already exists"));
                    }
                    return Future.succeededFuture(Optional.<Namespace>empty());
                });
            }));
        });
    }

    /** One page of a namespace's tables with their registrations; as {@link #listTables}. */
    public Future<TablePage> listTableRegistrations(String ns, String continuation, int limit) {
        String prefix = CatalogKeys.tablesOf(ns);
        return start(() -> scanTables(ns, continuation, limit).map(page -> new TablePage(
                page.entries().stream().map(kv -> new Table(ns, kv.key().substring(prefix.length()),
                        Registration.parse("registration " + kv.key(), kv.value()))).toList(), page.continuation())));
    }

    /**
     * Whether {@code location} was ever claimed by a table or view incarnation (live, renamed or
     * dropped: a claim is never removed), read strongly consistent.
     */
    public Future<Boolean> locationClaimed(String location) {
        return start(() -> port.get(CatalogKeys.assignedLocation(location)).map(Optional::isPresent));
    }

    /** A page of tables with their registrations. */
    public record TablePage(List<Table> tables, String continuation) {
        public TablePage { tables = List.copyOf(tables); }
    }

    // ---- idempotency records ---------------------------------------------------------------------

    /** The longest idempotency key accepted. */
    public static final int MAX_IDEMPOTENCY_KEY = 128;

    /**
     * The store key of idempotency key {@code key} (1 to {@value #MAX_IDEMPOTENCY_KEY} characters
     * of {@code A-Z a-z 0-9 - _ . :}, so it is one key segment as written).
     */
    public static String idempotencyRecordKey(String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_IDEMPOTENCY_KEY) {
            throw invalid("Idempotency-Key must be 1 to " + MAX_IDEMPOTENCY_KEY + " characters");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == ':';
            if (!ok) throw invalid("Idempotency-Key '" + key + "' may contain only A-Z a-z 0-9 - _ . :");
        }
        return CatalogKeys.IDEMPOTENCY + key;
    }

    /** The record stored for idempotency key {@code key}, if any (strongly consistent). */
    public Future<Optional<byte[]>> idempotencyRecord(String key) {
        return start(() -> port.get(idempotencyRecordKey(key)));
    }

    /**
     * Deletes, each on its exact bytes, the records among the first {@code limit} that
     * {@code expired} accepts; completes with how many it deleted. A record rewritten meanwhile is
     * left alone (its delete's condition fails).
     */
    public Future<Integer> purgeIdempotencyRecords(java.util.function.Predicate<byte[]> expired, int limit) {
        return start(() -> port.scan(CatalogKeys.IDEMPOTENCY, null, CatalogNames.checkLimit(limit, MAX_TOMBSTONE_PAGE)).compose(page -> {
            List<Op> ops = new ArrayList<>();
            // One item of the store's transaction is the change record's.
            for (KeyValue kv : page.entries()) {
                if (ops.size() < Transaction.MAX_OPERATIONS - 1 && expired.test(kv.value())) ops.add(Op.delete(kv.key(), kv.value()));
            }
            if (ops.isEmpty()) return Future.succeededFuture(0);
            int n = ops.size();
            return apply(Transaction.of(ops)).map(o -> o.applied() ? n : 0);
        }));
    }

    // ---- directory -------------------------------------------------------------------------------

    /** The directory generation; empty while the catalog has never seen a create or drop. */
    public Future<Optional<String>> currentGeneration() {
        return start(() -> port.get(CatalogKeys.GENERATION).map(v -> v.map(b -> new String(b, StandardCharsets.UTF_8))));
    }

    /**
     * {@link CatalogSnapshot.NotModified} when the generation equals {@code knownGeneration}
     * (never for {@code null}); otherwise every table as one consistent cut: the generation is read,
     * every {@code tbl/} page scanned and the generation read again; any change means a DDL
     * happened in between and the cut is retaken ({@value #MAX_ATTEMPTS} times at most).
     */
    public Future<CatalogSnapshot> snapshot(String knownGeneration) {
        return start(() -> retrying("catalog snapshot", () -> currentGeneration().compose(before -> {
            String generation = before.orElse(null);
            if (generation != null && generation.equals(knownGeneration)) {
                return Future.succeededFuture(Optional.of((CatalogSnapshot) new CatalogSnapshot.NotModified(generation)));
            }
            return scanAllTables(null, new ArrayList<>()).compose(tables -> currentGeneration().map(after ->
                    after.equals(before) ? Optional.of((CatalogSnapshot) new CatalogSnapshot.Snapshot(generation, tables))
                            : Optional.<CatalogSnapshot>empty()));
        })));
    }

    private Future<List<Table>> scanAllTables(String continuation, List<Table> into) {
        return port.scan(CatalogKeys.TABLES, continuation, snapshotPage).compose(page -> {
            for (KeyValue kv : page.entries()) {
                String[] seg = CatalogKeys.segments(CatalogKeys.TABLES, kv.key());
                if (seg.length != 2) throw CatalogJson.corrupt("registration key " + kv.key(), "is not tbl/<ns>/<name>");
                into.add(new Table(seg[0], seg[1], Registration.parse("registration " + kv.key(), kv.value())));
            }
            return page.continuation() == null ? Future.succeededFuture(into) : scanAllTables(page.continuation(), into);
        });
    }

    // ---- tombstones ------------------------------------------------------------------------------

    /** One page of drop tombstones in key order; {@code limit} 1 to {@value #MAX_TOMBSTONE_PAGE}. */
    public Future<TombstonePage> listTombstones(String continuation, int limit) {
        return start(() -> {
            CatalogNames.checkLimit(limit, MAX_TOMBSTONE_PAGE);
            checkContinuation(CatalogKeys.TOMBSTONES, continuation);
            return port.scan(CatalogKeys.TOMBSTONES, continuation, limit).map(page -> new TombstonePage(
                    page.entries().stream().map(kv -> Tombstone.parse(kv.key(), kv.value())).toList(), page.continuation()));
        });
    }

    /**
     * Restores a dropped table from its tombstone, as {@code toNs.toName} (its own name or
     * another), in one transaction: the registration exactly as it was dropped (the same
     * incarnation, location and, for a pointer table, metadata location), the tombstone deleted on
     * its exact bytes, the generation rewritten. {@code incarnationId} picks the tombstone;
     * {@code null} takes the name's only one ({@link CatalogException.InvalidArgument} naming them
     * when there are several). {@link CatalogException.AlreadyExists} while {@code toNs.toName} is
     * taken; {@link CatalogException.NotFound} without such a tombstone or namespace.
     */
    public Future<Table> undropTable(String ns, String name, String incarnationId, String toNs, String toName) {
        return undropTable(ns, name, incarnationId, toNs, toName, null);
    }

    /** As {@link #undropTable(String, String, String, String, String)}, of a table of {@code engine} only ({@code null}: any). */
    public Future<Table> undropTable(String ns, String name, String incarnationId, String toNs, String toName, String engine) {
        return start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            if (incarnationId != null) checkName("incarnation_id", incarnationId);
            checkName("namespace", toNs);
            checkName("table name", toName);
            String what = "table '" + toNs + "." + toName + "'";
            return retrying("undrop table '" + ns + "." + name + "'", () -> readTombstone(ns, name, incarnationId).compose(tomb ->
                    port.get(CatalogKeys.purgeJob(ns, name, tomb.value().incarnation())).compose(job -> {
                Registration reg = tomb.value().registration();
                if (engine != null && !engine.equals(reg.engine())) {
                    return Future.failedFuture(new CatalogException.NotFound("the dropped table '" + ns + "." + name + "' is a "
                            + reg.engine() + " table, not " + engine));
                }
                String jobKey = CatalogKeys.purgeJob(ns, name, tomb.value().incarnation());
                PurgeJob queued = job.map(b -> PurgeJob.parse(jobKey, b)).orElse(null);
                // Once a batch was claimed its files may be gone, whatever the job says now: a purge
                // refused midway (a sharer registered meanwhile, a node without a FileIO took over) has
                // deleted files too, and a paused leader may still send its claimed batch.
                if (queued != null && (queued.state() == PurgeJob.State.PURGING || queued.batches() > 0 || queued.epoch() != null)) {
                    return Future.failedFuture(new CatalogException.BeingPurged("the dropped table '" + ns + "." + name
                            + "' is being purged (" + queued.deleted() + " file(s) deleted so far, " + queued.batches()
                            + " batch(es) claimed, the last by epoch " + (queued.epoch() == null ? "none" : Long.toUnsignedString(queued.epoch()))
                            + ", now " + queued.state().name().toLowerCase(java.util.Locale.ROOT) + "): it can no longer be undropped"));
                }
                // A purge not yet begun is cancelled with the undrop, in its transaction: the worker's
                // next claim checks the job's exact bytes, so it can never delete a file of the restored table.
                List<Op> ops = List.of(
                        Op.create(CatalogKeys.table(toNs, toName), reg.bytes()),
                        Op.delete(CatalogKeys.tombstone(ns, name, tomb.value().incarnation()), tomb.bytes()),
                        Op.checkExists(CatalogKeys.namespace(toNs)),
                        Op.checkAbsent(CatalogKeys.droppingMarker(toNs)),
                        bumpGeneration(),
                        job.isPresent() ? Op.delete(jobKey, job.get()) : Op.checkAbsent(jobKey));
                return apply(Transaction.of(ops), CatalogEvents.tableUndropped(ref(ns, name, reg), toNs, toName)).compose(o -> {
                    if (o.applied()) return Future.succeededFuture(Optional.of(new Table(toNs, toName, reg)));
                    if (o.failed().contains(0)) {
                        return Future.failedFuture(new CatalogException.AlreadyExists(what + " exists; undrop under another name"));
                    }
                    if (o.failed().contains(2)) return Future.failedFuture(namespaceNotFound(toNs));
                    if (o.failed().contains(3)) return Future.failedFuture(new CatalogException.Contended("namespace '" + toNs + "' is being dropped"));
                    return Future.succeededFuture(Optional.<Table>empty()); // the tombstone or its purge changed: read them again
                });
            })));
        });
    }

    /** The tombstone of that incarnation, or of the name's only dropped incarnation when {@code incarnationId} is null. */
    Future<Stored<Tombstone>> readTombstone(String ns, String name, String incarnationId) {
        String table = "table '" + ns + "." + name + "'";
        if (incarnationId != null) {
            String key = CatalogKeys.tombstone(ns, name, incarnationId);
            return port.get(key).map(v -> new Stored<>(Tombstone.parse(key, v.orElseThrow(() ->
                    new CatalogException.NotFound("no dropped " + table + " of incarnation " + incarnationId))), v.get()));
        }
        String prefix = CatalogKeys.TOMBSTONES + ns + '/' + name + '/';
        return port.scan(prefix, null, 2).map(page -> {
            if (page.entries().isEmpty()) throw new CatalogException.NotFound("no dropped " + table);
            if (page.entries().size() > 1 || page.continuation() != null) {
                throw new CatalogException.InvalidArgument(table + " was dropped more than once (incarnations "
                        + page.entries().stream().map(kv -> kv.key().substring(prefix.length())).toList()
                        + (page.continuation() == null ? "" : ", …") + "); name the incarnation to undrop");
            }
            KeyValue kv = page.entries().get(0);
            return new Stored<>(Tombstone.parse(kv.key(), kv.value()), kv.value());
        });
    }

    /** One page of namespace {@code ns}'s drop tombstones in key order (by name, then incarnation). */
    public Future<TombstonePage> listTombstones(String ns, String continuation, int limit) {
        return start(() -> {
            checkName("namespace", ns);
            CatalogNames.checkLimit(limit, MAX_TOMBSTONE_PAGE);
            String prefix = CatalogKeys.TOMBSTONES + ns + '/';
            checkContinuation(prefix, continuation);
            return port.scan(prefix, continuation, limit).map(page -> new TombstonePage(
                    page.entries().stream().map(kv -> Tombstone.parse(kv.key(), kv.value())).toList(), page.continuation()));
        });
    }

    /** Deletes exactly the tombstone of that incarnation ({@code "legacy"} for a legacy table), on its exact bytes. */
    public Future<Tombstone> purgeTombstone(String ns, String name, String incarnationId) {
        return start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            checkName("incarnation_id", incarnationId);
            String key = CatalogKeys.tombstone(ns, name, incarnationId);
            return retrying("purge tombstone " + key, () -> port.get(key).compose(stored -> {
                if (stored.isEmpty()) return Future.failedFuture(new CatalogException.NotFound("no tombstone for table '"
                        + ns + "." + name + "' incarnation " + incarnationId));
                Tombstone tomb = Tombstone.parse(key, stored.get());
                return apply(Transaction.of(List.of(Op.delete(key, stored.get()), Op.deleteAny(CatalogKeys.purgeJob(ns, name, incarnationId)))),
                        CatalogEvents.tombstonePurged(ns, name, incarnationId))
                        .map(o -> o.applied() ? Optional.of(tomb) : Optional.empty());
            }));
        });
    }

    // ---- plumbing --------------------------------------------------------------------------------

    /** A value and the exact bytes it was read from. */
    record Stored<T>(T value, byte[] bytes) {}

    private Future<Stored<Namespace>> readNamespace(String ns) {
        return port.get(CatalogKeys.namespace(ns)).map(v -> new Stored<>(Namespace.parse(ns,
                v.orElseThrow(() -> namespaceNotFound(ns))), v.get()));
    }

    private static CatalogException.NotFound namespaceNotFound(String ns) {
        return new CatalogException.NoNamespace(ns);
    }

    /**
     * A new drop marker: when the drop began (for an abandoned drop and for an operator) and a
     * UUIDv7 of its own. The id makes every marker's bytes unique: a drop's final transaction
     * deletes its marker on exact bytes, which proves no other drop re-marked the namespace (and
     * let a create in) in between, as the generation's fresh value does for snapshots.
     */
    byte[] newDropMarker() {
        long now = wallMillis.getAsLong();
        return ("{\"started_ms\":" + now + ",\"drop_id\":\"" + UuidV7.next(now, random) + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private Future<Stored<Registration>> readTable(String ns, String name) {
        String key = CatalogKeys.table(ns, name);
        return port.get(key).map(v -> new Stored<>(Registration.parse("registration " + key,
                v.orElseThrow(() -> new CatalogException.NotFound("table '" + ns + "." + name + "' does not exist"))), v.get()));
    }

    private Future<NamePage> scanNames(String prefix, String continuation, int limit) {
        checkContinuation(prefix, continuation);
        return port.scan(prefix, continuation, limit).map(page -> namePage(prefix, page));
    }

    /**
     * One page of namespace {@code ns}'s registrations, raw: the arguments are checked before the
     * store is touched, and a missing namespace fails with {@link CatalogException.NotFound} rather
     * than reading as an empty page.
     */
    private Future<ScanPage> scanTables(String ns, String continuation, int limit) {
        checkName("namespace", ns);
        CatalogNames.checkLimit(limit, MAX_TABLE_PAGE);
        String prefix = CatalogKeys.tablesOf(ns);
        checkContinuation(prefix, continuation);
        return readNamespace(ns).compose(present -> port.scan(prefix, continuation, limit));
    }

    /** The page's keys without {@code prefix}: every key of a scan of {@code prefix} starts with it. */
    private static NamePage namePage(String prefix, ScanPage page) {
        return new NamePage(page.entries().stream().map(kv -> kv.key().substring(prefix.length())).toList(), page.continuation());
    }

    private static void checkContinuation(String prefix, String continuation) {
        try {
            ScanPage.resumeAfter(prefix, continuation);
        } catch (MetaException.InvalidArgument e) {
            throw invalid(e.getMessage());
        }
    }

    private Op bumpGeneration() {
        return Op.put(CatalogKeys.GENERATION,
                UuidV7.next(wallMillis.getAsLong(), random).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] checkedSize(String what, byte[] value) {
        if (value.length > lake.meta.Keys.MAX_VALUE_BYTES) {
            throw invalid(what + " would be " + value.length + " bytes; the maximum is " + lake.meta.Keys.MAX_VALUE_BYTES);
        }
        return value;
    }

    private static CatalogException.NamespaceNotEmpty notEmpty(String ns, String holding) {
        return new CatalogException.NamespaceNotEmpty("namespace '" + ns + "' still holds " + holding + "; drop them first");
    }

    /** One transaction through the port. A failed guard means this node can no longer write: a retryable refusal. */
    private Future<TransactionOutcome> apply(Transaction tx) {
        return apply(tx, null);
    }

    private static boolean recreated(Registration reg, String incarnationId) {
        return incarnationId != null && !incarnationId.equals(reg.incarnationId().orElse(null));
    }

    private static CatalogException.PointerMoved recreated(String what, String incarnationId) {
        return new CatalogException.PointerMoved(what + " is no longer incarnation " + incarnationId
                + " (dropped and re-created meanwhile); nothing was written");
    }

    private static io.vertx.core.json.JsonObject with(io.vertx.core.json.JsonObject event, io.vertx.core.json.JsonObject detail) {
        return detail == null ? event : event.mergeIn(detail);
    }

    private static CatalogEvents.TableRef ref(String ns, String name, Registration reg) {
        return new CatalogEvents.TableRef(ns, name, reg.engine(), reg.incarnationId().orElse(null), reg.location(),
                reg.metadataLocation().orElse(null));
    }

    /** As {@link #apply(Transaction)}, the transaction's change record carrying {@code event}. */
    Future<TransactionOutcome> apply(Transaction tx, io.vertx.core.json.JsonObject event) {
        return port.transact(tx, event).compose(o -> o.guardFailed()
                ? Future.failedFuture(new CatalogException.Contended("the write path's guard did not hold; leadership may have moved"))
                : Future.succeededFuture(o));
    }

    /** Runs {@code attempt} until it yields a value, at most {@value #MAX_ATTEMPTS} times; empty means "re-read and decide again". */
    <T> Future<T> retrying(String what, Supplier<Future<Optional<T>>> attempt) {
        return retrying(what, attempt, 1);
    }

    private <T> Future<T> retrying(String what, Supplier<Future<Optional<T>>> attempt, int n) {
        return start(attempt).compose(result -> {
            if (result.isPresent()) return Future.succeededFuture(result.get());
            if (n >= MAX_ATTEMPTS) {
                return Future.failedFuture(new CatalogException.Contended(what + " lost to concurrent changes "
                        + MAX_ATTEMPTS + " times; retry later"));
            }
            return retrying(what, attempt, n + 1);
        });
    }

    /** {@code body}'s future, or a failed one for anything it throws (validation runs on the calling thread). */
    static <T> Future<T> start(Supplier<Future<T>> body) {
        try {
            return body.get();
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }
}
