package lake.iceberg;

import lake.iceberg.files.NioFileIO;
import lake.iceberg.files.PurgeIO;

import lake.catalog.Catalog.PointerSwap;
import lake.catalog.Catalog;
import lake.catalog.model.CatalogException;
import lake.catalog.model.Registration;
import lake.catalog.model.Table;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.view.BaseMetastoreViewCatalog;
import org.apache.iceberg.view.BaseViewOperations;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;
import org.apache.iceberg.view.ViewOperations;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Iceberg's {@code Catalog} + {@code SupportsNamespaces} + {@code ViewCatalog} over lake's table
 * catalog. An Iceberg table is a catalog table of engine {@value #TABLE_ENGINE} whose registration
 * names its current metadata file ({@code metadata_location}); a view is one of engine
 * {@value #VIEW_ENGINE}. Both live at {@code tbl/<ns>/<name>}, so one name is one thing whatever
 * the engine, and every create, drop and rename is a catalog DDL (generation, tombstone).
 *
 * <p>Every commit writes the new metadata file first (complete and fsynced), then swaps the
 * pointer in one fenced transaction conditioned on the exact registration whose pointer is the
 * base the change was computed from: a concurrent commit, or a stale leader, cannot make it
 * apply. A file written by a commit that did not apply is an orphan, never referenced.
 *
 * <p>Blocking (Iceberg's API is): call it only on lake.iceberg's worker threads. Holds no state
 * of its own apart from the shared metadata cache; {@link RequestScope} supplies, per request,
 * the records to write in the same transaction as the mutation (idempotency).
 */
public final class IcebergCatalog extends BaseMetastoreViewCatalog implements SupportsNamespaces {
    public static final String TABLE_ENGINE = "iceberg";
    public static final String VIEW_ENGINE = "iceberg-view";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(IcebergCatalog.class);
    /** Server-side attempts of one multi-table commit whose base moved but whose requirements still hold. */
    static final int COMMIT_ATTEMPTS = 4;
    private static final int PAGE = Catalog.MAX_TABLE_PAGE;

    private final Catalog catalog;
    private final String warehouse;
    private final FileIO io;
    private final MetadataCache<TableMetadata> tables;
    private final MetadataCache<ViewMetadata> views;
    private final long timeoutMs;
    private final Sharers sharers;

    /** An Iceberg catalog over {@code catalog}, whose root is its warehouse. */
    public IcebergCatalog(Catalog catalog, FileIO io, MetadataCache<TableMetadata> tables,
                   MetadataCache<ViewMetadata> views, long timeoutMs) {
        this.catalog = catalog;
        this.warehouse = catalog.root();
        this.io = io;
        this.tables = tables;
        this.views = views;
        this.timeoutMs = timeoutMs;
        this.sharers = new Sharers(io);
        initialize("lake", Map.of());
    }

    // ---- reads -----------------------------------------------------------------------------------

    /** The registration at the identifier's key, if any (whatever its engine). */
    public Optional<Registration> registration(TableIdentifier id) {
        try {
            return Optional.of(read(catalog.resolve(ns(id.namespace()), IcebergNames.name(id.name()))).registration());
        } catch (NotFoundException absent) {
            return Optional.empty();
        }
    }

    /**
     * The metadata file at {@code location}, parsed once per node. On a local warehouse a cache
     * hit still checks that the file exists (a stat): a metadata file deleted under a table
     * answers as missing ({@code NotFoundException}), as it would uncached. On object stores
     * that check would cost a request per load, so it is skipped there.
     */
    public TableMetadata tableMetadata(String location) {
        TableMetadata cached = tables.get(location, l -> TableMetadataParser.read(io, l));
        checkPresent(location);
        return cached;
    }

    /** On a local warehouse, {@link NotFoundException} if the metadata file is gone (a stat, not a read); elsewhere nothing. */
    public void checkPresent(String location) {
        if (io instanceof NioFileIO && !io.newInputFile(location).exists()) {
            throw new NotFoundException("Failed to open input stream for file: %s", location);
        }
    }

    FileIO io() {
        return io;
    }

    private <T> T read(io.vertx.core.Future<T> f) {
        return Blocking.await(f, timeoutMs, false);
    }

    private <T> T write(io.vertx.core.Future<T> f) {
        return Blocking.await(f, timeoutMs, true);
    }

    private static String ns(Namespace namespace) {
        return IcebergNames.namespace(namespace);
    }

    // ---- tables ----------------------------------------------------------------------------------

    @Override
    protected TableOps newTableOps(TableIdentifier id) {
        return new TableOps(id);
    }

    /**
     * Where a new table or view goes when its create names no location: a directory of its own
     * below its name's, {@code <warehouse>/<ns>/<name>/<uuid>} (a random, version-4 UUID), so a
     * name used again (after a drop or a rename) never shares a directory with an earlier table of
     * that name. A table or view created there claims the location for good ({@link #assignable}).
     */
    @Override
    protected String defaultWarehouseLocation(TableIdentifier id) {
        return warehouse + "/" + ns(id.namespace()) + "/" + IcebergNames.name(id.name()) + "/" + UUID.randomUUID();
    }

    /** A random (version 4) UUID as {@link UUID#toString()} writes it: never a lake incarnation id (version 7). */
    private static final Pattern UUID_V4 = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

    /**
     * Whether {@code location} has the shape the catalog assigns, {@code <warehouse>/<ns>/<name>/<uuid v4>}
     * (whichever names it was given for), which only the catalog assigns: a create (or register)
     * there claims it, in its own fenced transaction, once per location, ever, and a create that
     * names a claimed one is refused; a {@code set-location} there is refused. So every such
     * directory belongs to the first object created there and to nothing else. They all lie exactly
     * three levels below the warehouse, so none holds another; nor does one hold a lake table's
     * files ({@code <ns>/<name>/<incarnation>}: a version-7 UUID). Names the catalog writes hold no
     * {@code %} ({@link IcebergNames} escapes it), so a location with one is never of the shape: no
     * second spelling of a claimed directory can be claimed again.
     */
    boolean assignable(String location) {
        if (location == null || !location.startsWith(warehouse + "/")) return false;
        String[] parts = location.substring(warehouse.length() + 1).split("/", -1);
        if (parts.length != 3 || !UUID_V4.matcher(parts[2]).matches()) return false;
        for (int i = 0; i < 2; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.equals(".") || p.equals("..") || p.indexOf('%') >= 0 || p.indexOf('\\') >= 0) return false;
        }
        return true;
    }

    /**
     * Refuses a commit that moves table or view {@code id} ({@code set-location}) to a location of
     * the shape the catalog assigns, other than its own: only a create may take one (and claim it),
     * so no directory of that shape ever holds files of an object that does not own it.
     */
    private void checkMove(TableIdentifier id, String from, String to) {
        if (to == null || to.equals(from) || !assignable(to)) return;
        if (registration(id).filter(Registration::locationAssigned).map(Registration::location).filter(to::equals).isPresent()) return;
        throw new IllegalArgumentException("Invalid location: " + to + " has the shape of a location the catalog assigns"
                + " (<warehouse>/<ns>/<name>/<uuid>); only a create may take one");
    }

    /**
     * Restores dropped Iceberg table {@code from} (incarnation {@code incarnationId}; {@code null}:
     * the name's only dropped one) as {@code to}, in one fenced transaction: the same table, its
     * UUID, metadata location and snapshots, and its storage delegation (its assigned location
     * stays its own). The restored metadata; {@link NoSuchTableException} without such a dropped
     * table, {@link AlreadyExistsException} while {@code to} is taken.
     */
    public TableMetadata undropTable(TableIdentifier from, String incarnationId, TableIdentifier to) {
        Table restored;
        try {
            restored = write(catalog.undropTable(ns(from.namespace()), IcebergNames.name(from.name()), incarnationId,
                    ns(to.namespace()), IcebergNames.name(to.name()), TABLE_ENGINE));
        } catch (NotFoundException e) {
            if (e.getCause() instanceof CatalogException.NoNamespace) throw new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace());
            throw new NoSuchTableException("%s", e.getMessage());
        } catch (AlreadyExistsException e) {
            if (e.getCause() instanceof CatalogException.BeingPurged purging) throw new AlreadyExistsException(purging, "%s", purging.getMessage());
            throw new AlreadyExistsException("Table already exists: %s; undrop under another name", to);
        }
        return tableMetadata(restored.registration().metadataLocation().orElseThrow());
    }

    /**
     * Restores dropped Iceberg view {@code from} as {@code to}, as {@link #undropTable} restores a
     * table: the same view, its UUID, metadata location and versions, in one fenced transaction.
     * Its metadata location; {@link NoSuchViewException} without such a dropped view,
     * {@link AlreadyExistsException} while {@code to} is taken (by a table or a view).
     */
    public String undropView(TableIdentifier from, String incarnationId, TableIdentifier to) {
        Table restored;
        try {
            restored = write(catalog.undropTable(ns(from.namespace()), IcebergNames.name(from.name()), incarnationId,
                    ns(to.namespace()), IcebergNames.name(to.name()), VIEW_ENGINE));
        } catch (NotFoundException e) {
            if (e.getCause() instanceof CatalogException.NoNamespace) throw new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace());
            throw new NoSuchViewException("%s", e.getMessage());
        } catch (AlreadyExistsException e) {
            if (e.getCause() instanceof CatalogException.BeingPurged purging) throw new AlreadyExistsException(purging, "%s", purging.getMessage());
            throw new AlreadyExistsException("Cannot undrop the view as %s: the name is taken (by a table or view); undrop under another name", to);
        }
        return restored.registration().metadataLocation().orElseThrow();
    }

    /**
     * One page of namespace {@code namespace}'s dropped Iceberg objects of {@code engine}
     * ({@link #TABLE_ENGINE} or {@link #VIEW_ENGINE}; the others left out, so a page may hold
     * fewer than {@code pageSize}), with the next page's token.
     */
    public lake.catalog.model.TombstonePage dropped(Namespace namespace, String engine, String pageToken, int pageSize) {
        lake.catalog.model.TombstonePage page = read(catalog.listTombstones(ns(namespace), pageToken, pageSize));
        return new lake.catalog.model.TombstonePage(page.tombstones().stream()
                .filter(t -> engine.equals(t.registration().engine()) && IcebergNames.addressableName(t.name())).toList(), page.continuation());
    }

    /**
     * The location the catalog assigned the table registered as {@code reg} when it was created,
     * or {@code null} when it assigned none (a location its creator named, a registered table, a
     * table created before assignments). Renames, commits and drops keep it.
     */
    public static String assignedLocation(Registration reg) {
        return reg.locationAssigned() ? reg.location() : null;
    }

    // ---- the orphan sweep's reach (lake.orphans, docs/iceberg.md "Orphan files") ---------------------

    /** Every file under directory {@code prefix}, as the warehouse's FileIO lists them. */
    public Iterable<org.apache.iceberg.io.FileInfo> listFiles(String prefix) {
        if (!(io instanceof org.apache.iceberg.io.SupportsPrefixOperations p)) throw new UnsupportedOperationException("the warehouse's FileIO cannot list files");
        return p.listPrefix(prefix);
    }

    /** Every namespace that exists (not those only named as another's ancestor), in one pass over the catalog's. */
    public List<Namespace> allNamespaces() {
        List<Namespace> out = new ArrayList<>();
        String continuation = null;
        do {
            lake.catalog.model.NamePage page = read(catalog.listNamespaces(continuation, Catalog.MAX_NAMESPACE_PAGE));
            for (String name : page.names()) if (IcebergNames.addressable(name)) out.add(IcebergNames.fromCatalog(name));
            continuation = page.continuation();
        } while (continuation != null);
        return out;
    }

    /** Deletes confined to the location the catalog assigned {@code reg}'s table (nothing when it assigned none). */
    public PurgeIO deletesFor(Registration reg) {
        return new PurgeIO(io, assignedLocation(reg));
    }

    /**
     * What every live table and view uses, to ask which use files under a location
     * ({@link Sharers.Index#under}): {@code register} can point a table at another's files, and a
     * table with {@code gc.enabled=false} can name them; neither a purge nor an orphan sweep may
     * delete them. Reads every live registration, page by page.
     */
    public Sharers.Index liveUses() {
        Sharers.Index index = sharers.index();
        lake.catalog.PurgeQueue tables = new lake.catalog.PurgeQueue(catalog);
        String from = null;
        do {
            Catalog.TablePage page = read(tables.liveTables(from, lake.catalog.PurgeQueue.MAX_PAGE));
            index.add(page.tables());
            from = page.continuation();
        } while (from != null);
        return index;
    }

    /** The catalog's directory generation, which every create, register and drop rewrites; empty before the first. */
    public Optional<String> generation() {
        return read(catalog.currentGeneration());
    }

    /**
     * Deletes confined to {@code location} when it has the shape the catalog assigns and no table
     * or view claims it or ever did (claims are never removed): a directory the catalog handed to a
     * create that never committed (an abandoned staged create); {@code null} for any other.
     */
    public PurgeIO deletesForUnclaimed(String location) {
        return assignable(location) && !read(catalog.locationClaimed(location)) ? new PurgeIO(io, location) : null;
    }

    @Override
    public org.apache.iceberg.Table loadTable(TableIdentifier id) {
        TableOps ops = newTableOps(id);
        if (ops.current() == null && ops.foreignEngine != null) {
            throw new NoSuchTableException("Table does not exist: %s (the name is a %s table, not an Iceberg table)", id, ops.foreignEngine);
        }
        return super.loadTable(id);
    }

    @Override
    public List<TableIdentifier> listTables(Namespace namespace) {
        return list(namespace, TABLE_ENGINE);
    }

    private List<TableIdentifier> list(Namespace namespace, String engine) {
        String n = ns(namespace);
        List<TableIdentifier> out = new ArrayList<>();
        String continuation = null;
        do {
            Catalog.TablePage page;
            try {
                page = read(catalog.listTableRegistrations(n, continuation, PAGE));
            } catch (NotFoundException e) {
                throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
            }
            for (Table t : page.tables()) {
                if (engine.equals(t.registration().engine()) && IcebergNames.addressableName(t.name())) {
                    out.add(TableIdentifier.of(namespace, IcebergNames.nameFromCatalog(t.name())));
                }
            }
            continuation = page.continuation();
        } while (continuation != null);
        return out;
    }

    /**
     * Drops the table; with {@code purge}, its incarnation is queued for purge in the drop's own
     * transaction, and the leader's purge worker deletes its files afterwards, in fenced batches,
     * only under the location the catalog assigned it ({@code lake.purge.PurgeWorker}). The
     * answer does not wait for the files: an undrop can still cancel the purge until its first batch.
     */
    @Override
    public boolean dropTable(TableIdentifier id, boolean purge) {
        return drop(id, TABLE_ENGINE, purge) != null;
    }

    /**
     * Drops the table or view {@code id} of {@code engine}, its event naming the UUID of the
     * incarnation dropped (the drop applies only while the name still holds that incarnation;
     * commits meanwhile keep its UUID). The registration dropped, or {@code null} when there was none.
     */
    private Registration drop(TableIdentifier id, String engine, boolean purge) {
        for (int attempt = 1; ; attempt++) {
            Optional<Registration> reg;
            try {
                reg = registration(id);
            } catch (IllegalArgumentException notAName) {
                return null;
            }
            if (reg.isEmpty() || !engine.equals(reg.get().engine())) return null;
            io.vertx.core.json.JsonObject identity = identity(reg.get());
            try {
                lake.catalog.model.Tombstone t = write(catalog.dropTable(ns(id.namespace()), IcebergNames.name(id.name()), engine,
                        RequestScope.extras(RequestScope.Outcome.noContent()), reg.get().incarnationId().orElse(null), identity, purge));
                return t.registration();
            } catch (NotFoundException | IllegalArgumentException absent) {
                return null;
            } catch (CommitFailedException recreated) {
                if (attempt >= COMMIT_ATTEMPTS) throw recreated;
            }
        }
    }

    /**
     * The UUID in the metadata file {@code reg} points at, for a drop's or rename's event;
     * {@code null} when that file is gone or is not valid metadata (the table can still be
     * dropped; its event lacks the UUID). A failure to read it fails the drop (retry): an event
     * must not lose the UUID to a passing fault.
     */
    private io.vertx.core.json.JsonObject identity(Registration reg) {
        String location = reg.metadataLocation().orElse(null);
        if (location == null) return null;
        boolean view = VIEW_ENGINE.equals(reg.engine());
        try {
            String uuid = view ? viewMetadata(location).uuid() : tableMetadata(location).uuid();
            return new io.vertx.core.json.JsonObject().put(view ? "view_uuid" : "table_uuid", uuid);
        } catch (NotFoundException | IllegalArgumentException goneOrMalformed) {
            return null;
        } catch (java.io.UncheckedIOException e) {
            if (e.getCause() instanceof com.fasterxml.jackson.core.JsonProcessingException) return null; // not JSON: corrupt
            throw e;
        }
    }

    @Override
    public void renameTable(TableIdentifier from, TableIdentifier to) {
        rename(from, to, TABLE_ENGINE);
    }

    private void rename(TableIdentifier from, TableIdentifier to, String engine) {
        rename(from, to, engine, 1);
    }

    private void rename(TableIdentifier from, TableIdentifier to, String engine, int attempt) {
        boolean view = engine.equals(VIEW_ENGINE);
        Optional<Registration> source = registration(from);
        if (source.isEmpty() || !engine.equals(source.get().engine())) {
            if (view) throw new NoSuchViewException("View does not exist: %s", from);
            throw new NoSuchTableException("Table does not exist: %s", from);
        }
        if (!namespaceExists(to.namespace())) throw new NoSuchNamespaceException("Namespace does not exist: %s", to.namespace());
        Optional<Registration> target = registration(to);
        if (target.isPresent()) {
            boolean targetIsView = VIEW_ENGINE.equals(target.get().engine());
            if (targetIsView) throw new AlreadyExistsException("Cannot rename %s to %s. View already exists", from, to);
            if (view) throw new AlreadyExistsException("Cannot rename %s to %s. Table already exists", from, to);
            throw new AlreadyExistsException("Table already exists: %s", to);
        }
        try {
            write(catalog.renameTable(ns(from.namespace()), IcebergNames.name(from.name()), ns(to.namespace()),
                    IcebergNames.name(to.name()), RequestScope.extras(RequestScope.Outcome.noContent()),
                    source.get().incarnationId().orElse(null), identity(source.get())));
        } catch (NotFoundException e) {
            if (view) throw new NoSuchViewException("View does not exist: %s", from);
            throw new NoSuchTableException("Table does not exist: %s", from);
        } catch (CommitFailedException recreated) {
            // The source was dropped and re-created between the read and the rename: once more, from the top.
            if (attempt >= COMMIT_ATTEMPTS) throw recreated;
            rename(from, to, engine, attempt + 1);
        }
    }

    @Override
    public org.apache.iceberg.Table registerTable(TableIdentifier id, String metadataFileLocation) {
        if (!namespaceExists(id.namespace())) throw new NoSuchNamespaceException("Namespace does not exist: %s", id.namespace());
        return super.registerTable(id, metadataFileLocation);
    }

    /**
     * {@code POST /v1/transactions/commit}: every table's change validated against its current
     * metadata, every new metadata file written, then every pointer swapped in <b>one</b> fenced
     * transaction. A requirement that fails: {@link CommitFailedException}, nothing changed. A base
     * that moved while every requirement still holds: rebase on the new metadata and try again, at
     * most {@value #COMMIT_ATTEMPTS} times.
     */
    public void commitTransaction(List<UpdateTableRequest> changes) {
        if (changes == null || changes.isEmpty()) throw new IllegalArgumentException("Invalid commit: no table changes");
        Set<TableIdentifier> seen = new HashSet<>();
        for (UpdateTableRequest change : changes) {
            if (change.identifier() == null) throw new IllegalArgumentException("Invalid table change: no identifier");
            if (!seen.add(change.identifier())) throw new IllegalArgumentException("Invalid commit: table " + change.identifier() + " changed twice");
        }
        for (int attempt = 1; ; attempt++) {
            // First every table's requirements and updates, with nothing written: a change that
            // fails (409, 400) leaves no metadata file behind. Then the files, then one swap.
            record Staged(TableOps ops, TableIdentifier id, TableMetadata base, TableMetadata updated) {}
            List<Staged> staged = new ArrayList<>();
            for (UpdateTableRequest change : changes) {
                TableIdentifier id = change.identifier();
                TableOps ops = newTableOps(id);
                TableMetadata base = ops.current();
                if (base == null) throw new NoSuchTableException("Table does not exist: %s", id);
                for (UpdateRequirement r : change.requirements()) r.validate(base);
                TableMetadata.Builder builder = TableMetadata.buildFrom(base);
                for (MetadataUpdate u : change.updates()) u.applyTo(builder);
                TableMetadata updated = builder.build();
                checkMove(id, base.location(), updated.location());
                if (!updated.changes().isEmpty()) staged.add(new Staged(ops, id, base, updated));
            }
            if (staged.isEmpty()) return;
            if (staged.size() > MAX_TABLES_PER_COMMIT) {
                throw new IllegalArgumentException("Invalid commit: " + staged.size() + " tables changed; one commit changes at most "
                        + MAX_TABLES_PER_COMMIT);
            }
            List<PointerSwap> swaps = new ArrayList<>();
            List<String> written = new ArrayList<>();
            try {
                List<io.vertx.core.json.JsonObject> details = new ArrayList<>();
                for (Staged st : staged) details.add(snapshots(st.base(), st.updated()));
                capUpdates(details);
                for (int i = 0; i < staged.size(); i++) {
                    Staged st = staged.get(i);
                    String location = st.ops().stage(st.updated());
                    written.add(location);
                    swaps.add(new PointerSwap(ns(st.id().namespace()), IcebergNames.name(st.id().name()),
                            st.base().metadataFileLocation(), location, details.get(i)));
                }
                write(catalog.swapPointers(swaps, RequestScope.extras(RequestScope.Outcome.noContent())));
                return;
            } catch (CommitFailedException | NotFoundException moved) {
                written.forEach(this::deleteQuietly);
                if (attempt >= COMMIT_ATTEMPTS) throw new CommitFailedException(moved, "Commit failed after %d attempts: %s", attempt, moved.getMessage());
            } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException certain) {
                // Refused before any pointer moved: the files just written are orphans now.
                written.forEach(this::deleteQuietly);
                throw certain;
            }
        }
    }

    /** The store's 99 operations per transaction, less the idempotency record's and the change record's. */
    static final int MAX_TABLES_PER_COMMIT = 97;

    private void deleteQuietly(String location) {
        try {
            io.deleteFile(location);
        } catch (RuntimeException ignored) {
            // An orphan left behind is harmless: nothing references it (docs/iceberg.md, orphans).
        }
    }

    /** A table's operations: refresh reads the registration, commit swaps its pointer. */
    final class TableOps extends BaseMetastoreTableOperations {
        private final TableIdentifier id;
        private final String namespace;
        private final String name;
        /** The engine of a non-Iceberg registration found at this name by the last refresh. */
        String foreignEngine;

        TableOps(TableIdentifier id) {
            this.id = id;
            this.namespace = ns(id.namespace());
            this.name = IcebergNames.name(id.name());
        }

        @Override protected String tableName() { return id.toString(); }

        /** The location the catalog assigned this table, as the last refresh read it ({@code null}: none, or not read). */
        private String assigned;

        /**
         * The node's FileIO, whose deletes reach only this table's assigned location: after a commit
         * Iceberg deletes the metadata files that fell out of the log ({@code
         * write.metadata.delete-after-commit.enabled}), and a log can name any object (a registered,
         * crafted metadata file), so without this a commit could delete other tables' files with the
         * node's rights. Reads and writes go through unchanged.
         */
        @Override public FileIO io() { return new PurgeIO(io, assigned); }

        @Override
        protected void doRefresh() {
            Optional<Registration> reg = registration(id);
            String location = null;
            foreignEngine = null;
            assigned = null;
            if (reg.isPresent()) {
                if (TABLE_ENGINE.equals(reg.get().engine())) {
                    location = reg.get().metadataLocation().orElse(null);
                    assigned = assignedLocation(reg.get());
                } else {
                    foreignEngine = reg.get().engine();
                }
            }
            if (location == null) {
                if (currentMetadataLocation() != null) throw new NoSuchTableException("Table does not exist: %s", id);
                disableRefresh();
                return;
            }
            refreshFromMetadataLocation(location, null, 0, IcebergCatalog.this::tableMetadata);
        }

        /** Writes {@code metadata} as the next metadata file; returns its location. */
        String stage(TableMetadata metadata) {
            return writeNewMetadataIfRequired(false, metadata);
        }

        @Override
        protected void doCommit(TableMetadata base, TableMetadata metadata) {
            boolean create = base == null;
            if (create && !namespaceExists(id.namespace())) throw new NoSuchNamespaceException("Namespace does not exist: %s", id.namespace());
            if (!create) checkMove(id, base.location(), metadata.location());
            String location = writeNewMetadataIfRequired(create, metadata);
            // A register names a metadata file that exists already: it is never this commit's to delete.
            boolean written = !location.equals(metadata.metadataFileLocation());
            try {
                if (create) {
                    createRegistration(metadata, location, !written);
                } else {
                    write(catalog.swapPointers(List.of(new PointerSwap(namespace, name, base.metadataFileLocation(), location,
                                    snapshots(base, metadata))),
                            RequestScope.extras(RequestScope.Outcome.table(location))));
                }
            } catch (AlreadyExistsException e) {
                if (written) deleteQuietly(location);
                if (e.getCause() instanceof CatalogException.LocationTaken taken) {
                    throw new AlreadyExistsException(taken, "Cannot create %s: %s", id, taken.getMessage());
                }
                Optional<Registration> there = registration(id);
                if (there.isPresent() && VIEW_ENGINE.equals(there.get().engine())) {
                    throw new AlreadyExistsException("View with same name already exists: %s", id);
                }
                throw new AlreadyExistsException("Table already exists: %s", id);
            } catch (CommitFailedException e) {
                if (written) deleteQuietly(location);
                throw new CommitFailedException(e, "Cannot commit %s: %s", id, e.getMessage());
            } catch (NotFoundException e) {
                if (written) deleteQuietly(location);
                if (create) throw new NoSuchNamespaceException("Namespace does not exist: %s", id.namespace());
                throw new NoSuchTableException("Table does not exist: %s", id);
            }
        }

        /**
         * The registration of a new table, claiming its location when it has the assigned shape. A
         * create at a claimed location is refused; a register there (the metadata of a table
         * dropped or kept elsewhere) is taken without the claim, so its storage is not delegated.
         */
        private void createRegistration(TableMetadata metadata, String location, boolean register) {
            boolean assign = assignable(metadata.location());
            try {
                write(catalog.createPointerTable(namespace, name, TABLE_ENGINE, metadata.location(), location,
                        RequestScope.extras(RequestScope.Outcome.table(location)), snapshots(null, metadata), assign));
            } catch (AlreadyExistsException e) {
                if (!(register && assign && e.getCause() instanceof CatalogException.LocationTaken)) throw e;
                write(catalog.createPointerTable(namespace, name, TABLE_ENGINE, metadata.location(), location,
                        RequestScope.extras(RequestScope.Outcome.table(location)), snapshots(null, metadata), false));
            }
        }
    }

    // ---- views -----------------------------------------------------------------------------------

    @Override
    protected ViewOperations newViewOps(TableIdentifier id) {
        return new ViewOps(id);
    }

    @Override
    public List<TableIdentifier> listViews(Namespace namespace) {
        return list(namespace, VIEW_ENGINE);
    }

    @Override
    public boolean dropView(TableIdentifier id) {
        return drop(id, VIEW_ENGINE, false) != null;
    }

    @Override
    public void renameView(TableIdentifier from, TableIdentifier to) {
        rename(from, to, VIEW_ENGINE);
    }

    /** A view's operations, as {@link TableOps}. */
    final class ViewOps extends BaseViewOperations {
        private final TableIdentifier id;
        private final String namespace;
        private final String name;

        ViewOps(TableIdentifier id) {
            this.id = id;
            this.namespace = ns(id.namespace());
            this.name = IcebergNames.name(id.name());
        }

        @Override protected String viewName() { return id.toString(); }

        @Override protected FileIO io() { return io; }

        @Override
        protected void doRefresh() {
            Optional<Registration> reg = registration(id);
            String location = reg.filter(r -> VIEW_ENGINE.equals(r.engine())).flatMap(Registration::metadataLocation).orElse(null);
            if (location == null) {
                if (currentMetadataLocation() != null) throw new NoSuchViewException("View does not exist: %s", id);
                disableRefresh();
                return;
            }
            refreshFromMetadataLocation(location, null, 0, l -> views.get(l, x -> ViewMetadataParser.read(io.newInputFile(x))));
        }

        @Override
        protected void doCommit(ViewMetadata base, ViewMetadata metadata) {
            boolean create = base == null;
            if (create && !namespaceExists(id.namespace())) throw new NoSuchNamespaceException("Namespace does not exist: %s", id.namespace());
            if (!create) checkMove(id, base.location(), metadata.location());
            String location = writeNewMetadataIfRequired(metadata);
            // A register names a metadata file that exists already: it is never this commit's to delete.
            boolean written = !location.equals(metadata.metadataFileLocation());
            try {
                if (create) {
                    // A view claims its directory as a table does, so no table can take it; a register of a
                    // view's metadata at a claimed directory goes on without the claim (as for tables).
                    boolean assign = assignable(metadata.location());
                    try {
                        write(catalog.createPointerTable(namespace, name, VIEW_ENGINE, metadata.location(), location,
                                RequestScope.extras(RequestScope.Outcome.view(location)), viewDetail(metadata), assign));
                    } catch (AlreadyExistsException e) {
                        if (!(!written && assign && e.getCause() instanceof CatalogException.LocationTaken)) throw e;
                        write(catalog.createPointerTable(namespace, name, VIEW_ENGINE, metadata.location(), location,
                                RequestScope.extras(RequestScope.Outcome.view(location)), viewDetail(metadata), false));
                    }
                } else {
                    write(catalog.swapPointers(List.of(new PointerSwap(namespace, name, base.metadataFileLocation(), location, viewDetail(metadata))),
                            RequestScope.extras(RequestScope.Outcome.view(location))));
                }
            } catch (AlreadyExistsException e) {
                if (written) deleteQuietly(location);
                if (e.getCause() instanceof CatalogException.LocationTaken taken) {
                    throw new AlreadyExistsException(taken, "Cannot create %s: %s", id, taken.getMessage());
                }
                Optional<Registration> there = registration(id);
                if (there.isPresent() && !VIEW_ENGINE.equals(there.get().engine())) {
                    throw new AlreadyExistsException("Table with same name already exists: %s", id);
                }
                throw new AlreadyExistsException("View already exists: %s", id);
            } catch (CommitFailedException e) {
                if (written) deleteQuietly(location);
                throw new CommitFailedException(e, "Cannot commit %s: %s", id, e.getMessage());
            } catch (NotFoundException e) {
                if (written) deleteQuietly(location);
                throw new NoSuchViewException("View does not exist: %s", id);
            }
        }
    }

    // ---- namespaces ------------------------------------------------------------------------------

    @Override
    public void createNamespace(Namespace namespace, Map<String, String> metadata) {
        createNamespace(namespace, metadata, RequestScope.Outcome.noContent());
    }

    /** As {@link #createNamespace(Namespace, Map)}; the request answers {@code outcome} if it applies. */
    public void createNamespace(Namespace namespace, Map<String, String> metadata, RequestScope.Outcome outcome) {
        try {
            write(catalog.createNamespace(ns(namespace), metadata == null ? Map.of() : metadata, RequestScope.extras(outcome)));
        } catch (AlreadyExistsException e) {
            throw new AlreadyExistsException(e, "Namespace already exists: %s", namespace);
        }
    }

    @Override
    public List<Namespace> listNamespaces(Namespace parent) {
        if (!parent.isEmpty() && !namespaceExists(parent)) throw new NoSuchNamespaceException("Namespace does not exist: %s", parent);
        List<Namespace> out = new ArrayList<>();
        Set<Namespace> seen = new HashSet<>();
        String continuation = null;
        String[] levels = parent.levels();
        do {
            lake.catalog.model.NamePage page = read(catalog.listNamespaces(continuation, Catalog.MAX_NAMESPACE_PAGE));
            for (String name : page.names()) {
                if (!IcebergNames.addressable(name)) continue;
                Namespace n = IcebergNames.fromCatalog(name);
                if (n.length() <= levels.length) continue;
                boolean under = true;
                for (int i = 0; i < levels.length && under; i++) under = levels[i].equals(n.level(i));
                if (!under) continue;
                // A direct child; a deeper namespace lists its ancestor at this level.
                Namespace child = Namespace.of(java.util.Arrays.copyOf(n.levels(), levels.length + 1));
                if (seen.add(child)) out.add(child);
            }
            continuation = page.continuation();
        } while (continuation != null);
        return out;
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(Namespace namespace) {
        try {
            return new HashMap<>(read(catalog.getNamespace(ns(namespace))).properties());
        } catch (NotFoundException e) {
            throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
        }
    }

    @Override
    public boolean namespaceExists(Namespace namespace) {
        if (namespace.isEmpty()) return false;
        try {
            read(catalog.getNamespace(ns(namespace)));
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    @Override
    public boolean dropNamespace(Namespace namespace) {
        if (!namespaceExists(namespace)) return false;
        String prefix = ns(namespace) + ".";
        for (Namespace child : listNamespaces(namespace)) {
            throw new NamespaceNotEmptyException("Namespace %s is not empty: it holds namespace %s", namespace, child);
        }
        try {
            write(catalog.dropNamespace(ns(namespace), RequestScope.extras(RequestScope.Outcome.noContent())));
            return true;
        } catch (NotFoundException e) {
            return false;
        } catch (NamespaceNotEmptyException e) {
            throw new NamespaceNotEmptyException("Namespace %s is not empty", namespace);
        }
    }

    @Override
    public boolean setProperties(Namespace namespace, Map<String, String> properties) {
        return updateProperties(namespace, Set.of(), properties);
    }

    @Override
    public boolean removeProperties(Namespace namespace, Set<String> properties) {
        return updateProperties(namespace, properties, Map.of());
    }

    private boolean updateProperties(Namespace namespace, Set<String> removals, Map<String, String> updates) {
        return updateProperties(namespace, removals, updates, RequestScope.Outcome.noContent());
    }

    private boolean updateProperties(Namespace namespace, Set<String> removals, Map<String, String> updates, RequestScope.Outcome outcome) {
        try {
            write(catalog.updateNamespaceProperties(ns(namespace), removals, updates, RequestScope.extras(outcome)));
            return true;
        } catch (NotFoundException e) {
            throw new NoSuchNamespaceException("Namespace does not exist: %s", namespace);
        }
    }

    /** Both changes of one REST request in one transaction. */
    public void updateNamespace(Namespace namespace, Set<String> removals, Map<String, String> updates, RequestScope.Outcome outcome) {
        updateProperties(namespace, removals, updates, outcome);
    }

    /** The idempotency record of {@code key}, if stored. */
    public Optional<byte[]> idempotencyRecord(String key) {
        return read(catalog.idempotencyRecord(key));
    }

    /**
     * Queues the purge of the dropped table or view {@code id} of {@code engine} now
     * ({@code incarnationId} null: its only dropped incarnation); {@link NoSuchTableException}
     * ({@link NoSuchViewException} for a view) when there is no such dropped object of that engine.
     */
    public lake.catalog.model.PurgeJob requestPurge(TableIdentifier id, String incarnationId, String engine) {
        try {
            return write(new lake.catalog.PurgeQueue(catalog).request(ns(id.namespace()), IcebergNames.name(id.name()), incarnationId, engine));
        } catch (NotFoundException e) {
            if (VIEW_ENGINE.equals(engine)) throw new NoSuchViewException("%s", e.getMessage());
            throw e;
        }
    }

    /** The purge queued for a dropped table, or {@code null}. */
    public lake.catalog.model.PurgeJob purgeJob(lake.catalog.model.Tombstone t) {
        return read(new lake.catalog.PurgeQueue(catalog).job(t.namespace(), t.name(), t.incarnation())).map(lake.catalog.PurgeQueue.Entry::job).orElse(null);
    }

    /** How long tables dropped from {@code namespace} are kept: its property, else {@code defaultMs}. */
    public long dropRetentionMs(Namespace namespace, long defaultMs) {
        return read(new lake.catalog.PurgeQueue(catalog).retentionMs(ns(namespace), defaultMs));
    }

    /** Deletes up to {@code limit} expired idempotency records; how many went. */
    public int purgeIdempotencyRecords(java.util.function.Predicate<byte[]> expired, int limit) {
        return write(catalog.purgeIdempotencyRecords(expired, limit));
    }

    /** The view metadata file at {@code location}, parsed once per node. */
    public ViewMetadata viewMetadata(String location) {
        return views.get(location, x -> ViewMetadataParser.read(io.newInputFile(x)));
    }

    /**
     * What an Iceberg commit's event says of the table (docs/watch.md): the snapshots it added, in
     * the order the metadata lists them, the current snapshot after it, and the table's UUID.
     */
    static io.vertx.core.json.JsonObject snapshots(TableMetadata base, TableMetadata updated) {
        java.util.Set<Long> before = new java.util.HashSet<>();
        if (base != null) for (org.apache.iceberg.Snapshot s : base.snapshots()) before.add(s.snapshotId());
        io.vertx.core.json.JsonArray added = new io.vertx.core.json.JsonArray();
        for (org.apache.iceberg.Snapshot s : updated.snapshots()) if (!before.contains(s.snapshotId())) added.add(s.snapshotId());
        io.vertx.core.json.JsonObject detail = new io.vertx.core.json.JsonObject().put("table_uuid", updated.uuid())
                .put("added_snapshot_ids", added);
        if (updated.currentSnapshot() != null) detail.put("current_snapshot_id", updated.currentSnapshot().snapshotId());
        // A table registered from an existing metadata file: parsed, not built, so it has no changes.
        boolean registered = base == null && updated.metadataFileLocation() != null;
        if (registered) detail.put("registered", true);
        // A create made whole (not from a client's updates) records none: its updates are the
        // ones a staged create would send, as Iceberg's REST client builds them.
        if (base != null || registered) return withUpdates(detail, updated.changes());
        List<MetadataUpdate> changes = new ArrayList<>();
        // A create's updates begin with the table's identity, as a staged create's do (Iceberg's
        // builder of new metadata does not record them).
        if (updated.changes().stream().noneMatch(u -> u instanceof MetadataUpdate.AssignUUID)) changes.add(new MetadataUpdate.AssignUUID(updated.uuid()));
        if (updated.changes().stream().noneMatch(u -> u instanceof MetadataUpdate.UpgradeFormatVersion)) {
            changes.add(new MetadataUpdate.UpgradeFormatVersion(updated.formatVersion()));
        }
        changes.addAll(updated.changes().isEmpty() ? createChanges(updated) : updated.changes());
        return withUpdates(detail, changes);
    }

    private static List<MetadataUpdate> createChanges(TableMetadata m) {
        List<MetadataUpdate> changes = new ArrayList<>();
        changes.add(new MetadataUpdate.AddSchema(m.schema()));
        changes.add(new MetadataUpdate.SetCurrentSchema(-1));
        changes.add(new MetadataUpdate.AddPartitionSpec(m.spec()));
        changes.add(new MetadataUpdate.SetDefaultPartitionSpec(-1));
        changes.add(new MetadataUpdate.AddSortOrder(m.sortOrder()));
        changes.add(new MetadataUpdate.SetDefaultSortOrder(-1));
        if (m.location() != null) changes.add(new MetadataUpdate.SetLocation(m.location()));
        if (!m.properties().isEmpty()) changes.add(new MetadataUpdate.SetProperties(m.properties()));
        for (org.apache.iceberg.Snapshot s : m.snapshots()) changes.add(new MetadataUpdate.AddSnapshot(s));
        m.refs().forEach((name, ref) -> changes.add(new MetadataUpdate.SetSnapshotRef(name, ref.snapshotId(), ref.type(),
                ref.minSnapshotsToKeep(), ref.maxSnapshotAgeMs(), ref.maxRefAgeMs())));
        return changes;
    }

    /** What a view's event says of it: its UUID and the updates of the commit. */
    static io.vertx.core.json.JsonObject viewDetail(ViewMetadata updated) {
        return withUpdates(new io.vertx.core.json.JsonObject().put("view_uuid", updated.uuid()), updated.changes());
    }

    /** Bytes of a commit's updates (Iceberg's JSON) an event carries at most; beyond, {@code updates_omitted} says so. */
    static final int MAX_EVENT_UPDATES_BYTES = 64 * 1024;
    /** Bytes of updates one multi-table commit's event carries at most, over all its tables. */
    static final int MAX_COMMIT_UPDATES_BYTES = 128 * 1024;

    /**
     * Leaves the largest tables' updates out of a multi-table commit's event ({@code updates_omitted})
     * until all of them fit {@value #MAX_COMMIT_UPDATES_BYTES} bytes (UTF-8): the record, which
     * repeats them beside the tables' registrations, must stay one store item (256 KiB) so that
     * a commit of the most tables still fits the store's transaction.
     */
    static void capUpdates(List<io.vertx.core.json.JsonObject> details) {
        long total = 0;
        for (io.vertx.core.json.JsonObject d : details) total += updatesBytes(d);
        while (total > MAX_COMMIT_UPDATES_BYTES) {
            io.vertx.core.json.JsonObject largest = details.stream().max(java.util.Comparator.comparingLong(IcebergCatalog::updatesBytes)).orElseThrow();
            total -= updatesBytes(largest);
            largest.remove("updates");
            largest.put("updates_omitted", true);
        }
    }

    private static long updatesBytes(io.vertx.core.json.JsonObject detail) {
        io.vertx.core.json.JsonArray updates = detail.getJsonArray("updates");
        return updates == null ? 0 : updates.encode().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    /**
     * {@code detail} with the commit's metadata updates as Iceberg's REST JSON (the events endpoint
     * serves them), unless they exceed {@value #MAX_EVENT_UPDATES_BYTES} bytes (a wide schema):
     * then {@code updates_omitted}, and a consumer reads the metadata file the event names.
     */
    private static io.vertx.core.json.JsonObject withUpdates(io.vertx.core.json.JsonObject detail, List<MetadataUpdate> changes) {
        io.vertx.core.json.JsonArray updates = new io.vertx.core.json.JsonArray();
        int bytes = 0;
        for (MetadataUpdate u : changes) {
            String json = org.apache.iceberg.MetadataUpdateParser.toJson(u);
            bytes += json.length();
            if (bytes > MAX_EVENT_UPDATES_BYTES) return detail.put("updates_omitted", true);
            updates.add(new io.vertx.core.json.JsonObject(json));
        }
        return detail.put("updates", updates);
    }
}
