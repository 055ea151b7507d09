package lake.catalogapi;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.catalog.Catalog;
import lake.catalog.CatalogPort;
import lake.catalog.model.CatalogSnapshot;
import lake.catalog.model.NamePage;
import lake.catalog.model.Namespace;
import lake.catalog.model.Registration;
import lake.catalog.model.Table;
import lake.catalog.model.Tombstone;
import lake.catalog.model.TombstonePage;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;
import lake.metasrv.ClientTransaction;
import lake.metasrv.FencedWriter;
import lake.metasrv.NodeClock;
import lake.protocol.ApiError;
import lake.protocol.ApiRequests;
import lake.protocol.Ops;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The catalog as one node's API serves it: decodes a request ({@link CatalogRequests}), runs it on
 * a {@link Catalog} whose port reads this node's store and writes through its
 * {@link FencedWriter} (so every catalog mutation is one transaction guarded by the exact lease
 * record), and renders the answer. Long polls wait in this instance's {@link CatalogWatch}.
 * Confined to the owning {@code NodeApi}'s event loop.
 */
public final class CatalogApi {
    private final Vertx vertx;
    private final MetaStore reads;
    private final FencedWriter writer;
    private final String catalogRoot;
    private final NodeClock clock;
    private final CatalogWatch watch;
    private final SecureRandom random = new SecureRandom();

    /** How long a dropped table is kept when its namespace does not say (the node's {@code table_retention_ms}). */
    private final long retentionMs;

    public CatalogApi(Vertx vertx, MetaStore reads, FencedWriter writer, String catalogRoot, NodeClock clock, CatalogWatch watch, long retentionMs) {
        this.retentionMs = retentionMs;
        this.vertx = vertx;
        this.reads = reads;
        this.writer = writer;
        this.catalogRoot = catalogRoot;
        this.clock = clock;
        this.watch = watch;
    }

    /** The most names one page of a table listing holds. */
    public static final int MAX_TABLE_PAGE = CatalogRequests.MAX_TABLE_PAGE;
    /** The most names one page of a namespace listing holds. */
    public static final int MAX_NAMESPACE_PAGE = CatalogRequests.MAX_NAMESPACE_PAGE;

    /**
     * Decodes {@code body} for {@code op} now (an invalid request throws {@link ApiError} before
     * anything is read, written or forwarded) and returns the operation, ready to run.
     * {@code epoch} is the epoch a write expects to be decided under, or {@code null};
     * {@code abandoned} completes if the client goes away (a long poll then stops waiting).
     */
    public Supplier<Future<JsonObject>> prepare(String op, JsonObject body, Long epoch, Future<?> abandoned) {
        java.util.concurrent.atomic.AtomicLong revision = new java.util.concurrent.atomic.AtomicLong();
        Catalog c = new Catalog(port(epoch, revision), catalogRoot, clock::wallMillis, random);
        Supplier<Future<JsonObject>> operation = operation(op, body, abandoned, c);
        // A write's reply names the revision of the change record its last applied transaction wrote.
        return () -> operation.get().map(reply -> revision.get() == 0 ? reply
                : reply.put("revision", lake.protocol.ApiRequests.u64(revision.get())));
    }

    private Supplier<Future<JsonObject>> operation(String op, JsonObject body, Future<?> abandoned, Catalog c) {
        return switch (op) {
            case Ops.CREATE_NAMESPACE -> {
                CatalogRequests.CreateNamespace r = CatalogRequests.createNamespace(body);
                yield () -> c.createNamespace(r.namespace(), r.properties()).map(CatalogApi::namespace);
            }
            case Ops.GET_NAMESPACE -> {
                String ns = CatalogRequests.namespace(body);
                yield () -> c.getNamespace(ns).map(CatalogApi::namespace);
            }
            case Ops.DROP_NAMESPACE -> {
                String ns = CatalogRequests.namespace(body);
                yield () -> c.dropNamespace(ns).map(CatalogApi::namespace);
            }
            case Ops.LIST_NAMESPACES -> {
                CatalogRequests.Page p = CatalogRequests.page(body, CatalogRequests.MAX_NAMESPACE_PAGE, java.util.Set.of());
                yield () -> c.listNamespaces(p.continuation(), p.limit()).map(page -> names(lake.wire.catalog.NamePage.Listing.NAMESPACES, page));
            }
            case Ops.CREATE_TABLE -> {
                CatalogRequests.CreateTable r = CatalogRequests.createTable(body);
                yield () -> c.createTable(r.namespace(), r.name(), r.columns(), r.engine()).map(CatalogApi::table);
            }
            case Ops.LIST_TABLES -> {
                CatalogRequests.Page p = CatalogRequests.page(body, CatalogRequests.MAX_TABLE_PAGE, java.util.Set.of("namespace"));
                String ns = ApiRequests.string(body, "namespace");
                yield () -> c.listTables(ns, p.continuation(), p.limit()).map(page -> names(lake.wire.catalog.NamePage.Listing.TABLES, page));
            }
            case Ops.RESOLVE -> {
                CatalogRequests.Resolve r = CatalogRequests.resolve(body);
                yield () -> resolve(c, r, abandoned);
            }
            case Ops.COMMIT_VERSION -> {
                CatalogRequests.CommitVersion r = CatalogRequests.commitVersion(body);
                yield () -> c.commitVersion(r.namespace(), r.name(), r.expectedVersion(), r.version(), r.incarnationId())
                        .map(CatalogApi::table);
            }
            case Ops.DROP_TABLE -> {
                CatalogRequests.Drop r = CatalogRequests.drop(body);
                yield () -> c.dropTable(r.namespace(), r.name(), null, List.of(), null, null, r.purge())
                        .map(t -> r.purge() ? tombstone(t).put("purge", "queued") : tombstone(t));
            }
            case Ops.SNAPSHOT -> {
                CatalogRequests.Snapshot r = CatalogRequests.snapshot(body);
                yield () -> snapshot(c, r, abandoned);
            }
            case Ops.LIST_TOMBSTONES -> {
                CatalogRequests.Page p = CatalogRequests.page(body, CatalogRequests.MAX_TOMBSTONE_PAGE, java.util.Set.of());
                yield () -> c.listTombstones(p.continuation(), p.limit()).compose(page -> expiring(c, page));
            }
            case Ops.PURGE_TABLE -> {
                CatalogRequests.Purge r = CatalogRequests.purge(body);
                yield () -> queue(c).request(r.namespace(), r.name(), r.incarnationId()).map(j -> new JsonObject(purge(j).toMap()));
            }
            case Ops.LIST_PURGES -> {
                CatalogRequests.Page p = CatalogRequests.page(body, lake.catalog.PurgeQueue.MAX_PAGE, java.util.Set.of());
                yield () -> queue(c).page(p.continuation(), p.limit()).map(page -> new JsonObject(new lake.wire.catalog.Purge.Page(
                        page.entries().stream().map(e -> purge(e.job())).toList(), page.continuation()).toMap()));
            }
            case Ops.PURGE_TOMBSTONE -> {
                CatalogRequests.Purge r = CatalogRequests.purge(body);
                yield () -> c.purgeTombstone(r.namespace(), r.name(), r.incarnationId()).map(CatalogApi::tombstone);
            }
            case Ops.UNDROP_TABLE -> {
                CatalogRequests.Undrop r = CatalogRequests.undrop(body);
                yield () -> c.undropTable(r.namespace(), r.name(), r.incarnationId(), r.toNamespace(), r.toName()).map(CatalogApi::table);
            }
            default -> throw ApiError.invalid("unknown catalog operation '" + op + "'");
        };
    }

    /** Reads through this node's store; writes through its fenced writer, announcing each applied one. */
    public CatalogPort port(Long epoch) {
        return port(epoch, new java.util.concurrent.atomic.AtomicLong());
    }

    /** As {@link #port(Long)}, keeping in {@code revision} the revision of the last transaction that applied. */
    private CatalogPort port(Long epoch, java.util.concurrent.atomic.AtomicLong revision) {
        return new CatalogPort() {
            @Override public Future<Optional<byte[]>> get(String key) { return reads.get(key); }
            @Override public Future<ScanPage> scan(String prefix, String continuation, int limit) {
                return reads.scanPrefix(prefix, continuation, limit);
            }
            @Override public Future<TransactionOutcome> transact(Transaction transaction, JsonObject event) {
                return writer.apply(new ClientTransaction(transaction, epoch, event, java.util.Set.of(lake.catalog.Catalog.GENERATION_KEY))).map(o -> {
                    if (o.applied()) {
                        revision.set(o.revision());
                        vertx.eventBus().publish(Bus.CATALOG_CHANGED, null);
                        return TransactionOutcome.APPLIED;
                    }
                    // The writer read the lease and found it still this node's: conditions failed.
                    return o.failed().isEmpty() ? TransactionOutcome.notApplied(List.of(), true)
                            : TransactionOutcome.notApplied(o.failed(), false);
                });
            }
        };
    }

    /** A resolve; with {@code known_version}, a long poll until the table's registration changes from it. */
    private Future<JsonObject> resolve(Catalog c, CatalogRequests.Resolve r, Future<?> abandoned) {
        if (r.knownVersion() == null) return c.resolve(r.namespace(), r.name()).map(CatalogApi::table);
        return c.resolve(r.namespace(), r.name()).compose(t -> {
            if (t.registration().currentVersion() != r.knownVersion() || r.waitMs() == 0) return Future.succeededFuture(modified(t, r.knownVersion()));
            byte[] seen = t.registration().bytes();
            return watch.await(Catalog.tableKey(r.namespace(), r.name()), now -> now.isEmpty() || !Arrays.equals(now.get(), seen), r.waitMs(), abandoned)
                    .compose(changed -> changed
                            ? c.resolve(r.namespace(), r.name()).map(again -> modified(again, r.knownVersion()))
                            : Future.succeededFuture(notModified(t)));
        });
    }

    private static JsonObject modified(Table t, long known) {
        return t.registration().currentVersion() == known ? notModified(t) : new JsonObject(lake.wire.catalog.TableChange.modified(wire(t)).toMap());
    }

    private static JsonObject notModified(Table t) {
        return new JsonObject(lake.wire.catalog.TableChange.notModified(t.namespace(), t.name(), t.registration().currentVersion()).toMap());
    }

    /** A snapshot; with {@code known_generation} and {@code wait_ms}, a long poll until the generation changes. */
    private Future<JsonObject> snapshot(Catalog c, CatalogRequests.Snapshot r, Future<?> abandoned) {
        return c.snapshot(r.knownGeneration()).compose(s -> {
            if (!(s instanceof CatalogSnapshot.NotModified nm) || r.waitMs() == 0) return Future.succeededFuture(snapshot(s));
            return watch.await(Catalog.GENERATION_KEY,
                            now -> !now.map(b -> new String(b, java.nio.charset.StandardCharsets.UTF_8)).equals(Optional.ofNullable(nm.generation())),
                            r.waitMs(), abandoned)
                    .compose(changed -> changed ? c.snapshot(r.knownGeneration()).map(CatalogApi::snapshot)
                            : Future.succeededFuture(snapshot(s)));
        });
    }

    // Replies render through lake.wire's records, the shapes the client decodes.

    static JsonObject snapshot(CatalogSnapshot s) {
        List<lake.wire.catalog.Table> tables = new java.util.ArrayList<>();
        if (s instanceof CatalogSnapshot.Snapshot full) for (Table t : full.tables()) tables.add(wire(t));
        return new JsonObject(new lake.wire.catalog.CatalogSnapshot(s instanceof CatalogSnapshot.Snapshot, s.generation(), tables).toMap());
    }

    static JsonObject namespace(Namespace n) {
        return new JsonObject(new lake.wire.catalog.Namespace(n.name(), n.properties(), n.dropping()).toMap());
    }

    static JsonObject table(Table t) { return new JsonObject(wire(t).toMap()); }

    static JsonObject tombstone(Tombstone t) { return new JsonObject(wire(t).toMap()); }

    /** A page of tombstones, each with when its retention ends (its namespace's, else the node's). */
    private Future<JsonObject> expiring(Catalog c, TombstonePage page) {
        lake.catalog.PurgeQueue q = queue(c);
        java.util.Map<String, Future<Long>> retention = new java.util.HashMap<>();
        for (Tombstone t : page.tombstones()) retention.computeIfAbsent(t.namespace(), ns -> q.retentionMs(ns, retentionMs));
        return Future.all(List.copyOf(retention.values())).map(all -> new JsonObject(new lake.wire.catalog.TombstonePage(
                page.tombstones().stream().map(t -> {
                    lake.wire.catalog.Tombstone w = wire(t);
                    return new lake.wire.catalog.Tombstone(w.namespace(), w.name(), w.incarnationId(), w.droppedMs(), w.registration(),
                            lake.catalog.PurgeQueue.expiresMs(t, retention.get(t.namespace()).result()));
                }).toList(), page.continuation()).toMap()));
    }

    private lake.catalog.PurgeQueue queue(Catalog c) {
        return new lake.catalog.PurgeQueue(c);
    }

    static lake.wire.catalog.Purge purge(lake.catalog.model.PurgeJob j) {
        return new lake.wire.catalog.Purge(j.namespace(), j.name(), j.incarnation(), j.reason().name().toLowerCase(java.util.Locale.ROOT),
                j.state().name().toLowerCase(java.util.Locale.ROOT), j.state() == lake.catalog.model.PurgeJob.State.PURGING ? j.phase().wire() : null, j.queuedMs(), j.epoch(), j.batches(), j.deleted(), j.message());
    }

    private static JsonObject names(lake.wire.catalog.NamePage.Listing listing, NamePage page) {
        return new JsonObject(new lake.wire.catalog.NamePage(listing, page.names(), page.continuation()).toMap());
    }

    static lake.wire.catalog.Table wire(Table t) { return new lake.wire.catalog.Table(t.namespace(), t.name(), registration(t.registration())); }

    static lake.wire.catalog.Tombstone wire(Tombstone t) {
        return new lake.wire.catalog.Tombstone(t.namespace(), t.name(), t.incarnation(), t.droppedMs(), registration(t.registration()));
    }

    /** The registration as stored: lake's fields and any unknown ones, in their order. */
    private static lake.wire.catalog.Registration registration(Registration r) {
        // The stored bytes are compact JSON already: parse them once; the record keeps that map, no tree copy or re-render.
        return new lake.wire.catalog.Registration(new JsonObject(io.vertx.core.buffer.Buffer.buffer(r.bytes())).getMap());
    }
}
