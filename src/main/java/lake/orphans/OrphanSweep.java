package lake.orphans;

import lake.catalog.model.Registration;
import lake.iceberg.IcebergCatalog;
import lake.iceberg.IcebergNames;
import lake.iceberg.Sharers;
import lake.iceberg.files.PurgeIO;
import lake.iceberg.files.TableFiles;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * One Iceberg table's orphan sweep (docs/iceberg.md, "Orphan files"). It lists every file under
 * the table's name directory {@code <warehouse>/<ns>/<name>/} and reports, among those last
 * modified at least the safety age ago:
 * <ul>
 *   <li>files under the table's own assigned location that its current metadata does not reach
 *       ({@link References}): {@link Orphan.Kind#STALE_METADATA} and {@link Orphan.Kind#UNREFERENCED_FILE};</li>
 *   <li>files under a sibling {@code <uuid v4>} directory that no table or view, live, renamed or
 *       dropped, claims or ever claimed, and that holds no metadata file: the directory the catalog
 *       handed to a staged create that never committed ({@link Orphan.Kind#ABANDONED_CREATE}).</li>
 * </ul>
 * Never reported: files under a claimed directory (a dropped incarnation's belong to its purge,
 * a renamed table's to that table), under a directory holding a committed table's metadata file
 * (a table nested in the location, or one from before location claims), or anywhere else.
 *
 * <p>The listing comes first and what the table references is read after it, so a commit that
 * applied meanwhile has its files counted as referenced; a commit still under way wrote its
 * metadata file less than the longest commit ago, younger than any safety age allowed
 * ({@link #floorMs()}). A staged create that commits during the sweep references files its engine
 * wrote during its job: the safety age (3 days by default) must exceed the longest such job, as for
 * Iceberg's own {@code DeleteOrphanFiles}. Deletes, only when asked, go through the catalog's
 * confinement ({@link PurgeIO}): the table's own assigned location, or a directory re-checked as
 * unclaimed right before its files are deleted. Blocking: runs on an Iceberg worker thread.
 */
public final class OrphanSweep {
    /** Orphans one answer lists (and one delete run deletes) at most; {@code truncated} says more are left. */
    public static final int MAX_LISTED = 10_000;
    /** The directory name the catalog gives a new table's location: a random (version 4) UUID. */
    private static final Pattern UUID_V4 = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OrphanSweep.class);

    private final IcebergCatalog catalog;
    private final LongSupplier wallMillis;
    private final long floorMs;
    private final Counts counts;

    /** Told what each table's sweep found and deleted (the node's meters). */
    @FunctionalInterface
    public interface Counts {
        void swept(int found, int deleted);
    }

    /**
     * @param minAgeMs        the node's {@code orphan_min_age_ms}
     * @param commitTimeoutMs the longest a commit can take ({@code request_timeout_ms})
     */
    public OrphanSweep(IcebergCatalog catalog, LongSupplier wallMillis, long minAgeMs, long commitTimeoutMs, Counts counts) {
        this.catalog = catalog;
        this.wallMillis = wallMillis;
        this.floorMs = Math.max(minAgeMs, commitTimeoutMs);
        this.counts = counts;
    }

    /** The least safety age a sweep accepts, and its default: the larger of the minimum age setting and the longest commit. */
    public long floorMs() {
        return floorMs;
    }

    /** What a sweep found and did, as the management route answers it. */
    public record Report(List<Orphan> orphans, boolean truncated, int deleted, long scanned, long olderThanMs) {
        public Report {
            orphans = List.copyOf(orphans);
        }

        public Map<String, Object> toMap() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("orphan-files", orphans.stream().map(Orphan::toMap).toList());
            out.put("truncated", truncated);
            out.put("deleted", deleted);
            out.put("scanned", scanned);
            out.put("older-than-ms", olderThanMs);
            return out;
        }
    }

    /** The route's work: {@code body} read strictly ({@link SweepRequest}), then {@link #sweep}. */
    public Report serve(TableIdentifier id, byte[] body) {
        SweepRequest request = SweepRequest.parse(body, floorMs);
        return sweep(id, request.olderThanMs(), request.delete());
    }

    /**
     * Sweeps table {@code id}: reports its orphans last modified at least {@code olderThanMs} ago
     * by the node's clock, and with {@code delete} deletes exactly those reported.
     */
    public Report sweep(TableIdentifier id, long olderThanMs, boolean delete) {
        return sweep(id, olderThanMs, delete, catalog.liveUses());
    }

    /** {@link #sweep(TableIdentifier, long, boolean)} against {@code live}, what every live table used when it was read. */
    private Report sweep(TableIdentifier id, long olderThanMs, boolean delete, Sharers.Index live) {
        if (olderThanMs < floorMs) throw new IllegalArgumentException("older-than-ms " + olderThanMs + " is below the safety minimum " + floorMs);
        Registration before = table(id);
        String own = IcebergCatalog.assignedLocation(before);
        if (own == null) {
            throw new IllegalArgumentException("Cannot sweep " + id + " for orphan files: its location " + before.location()
                    + " was not assigned to it by the catalog (named by its creator, registered, or from before assignments),"
                    + " so the files there need not be its own; sweep it with your own credentials");
        }
        while (own.endsWith("/")) own = own.substring(0, own.length() - 1);
        // As Iceberg's DeleteOrphanFiles: a table that disables garbage collection may name files
        // other tables own, and none of its files is deleted by the catalog.
        if (!Sharers.gcEnabled(catalog.tableMetadata(before.metadataLocation().orElseThrow()))) {
            throw new IllegalArgumentException("Cannot sweep " + id + " for orphan files: its gc.enabled is false (its files may be"
                    + " other tables' too): nothing reported or deleted");
        }
        // A table registered at this one's files commits under this location too, and one that
        // disables garbage collection may name files here: neither's files are in this table's
        // references, and they would be reported and deleted as orphans.
        List<String> sharing = live.under(own, IcebergNames.namespace(id.namespace()), IcebergNames.name(id.name()));
        if (!sharing.isEmpty()) {
            throw new IllegalArgumentException("Cannot sweep " + id + " for orphan files: its location " + own + " is shared with live table(s) "
                    + String.join(", ", sharing) + " (registered there, with files there, or with gc.enabled=false and files here in"
                    + " their metadata), whose files its metadata does not name: nothing reported or deleted");
        }
        String nameDir = own.substring(0, own.lastIndexOf('/') + 1);
        long cutoff = wallMillis.getAsLong() - olderThanMs;

        List<FileInfo> files = new ArrayList<>();
        for (FileInfo f : catalog.listFiles(nameDir)) if (f.location().startsWith(nameDir)) files.add(f);
        // What the table references, read after the listing (a commit that applied meanwhile named its files).
        Registration after = table(id);
        if (!Objects.equals(after.incarnationId(), before.incarnationId())) {
            throw new CommitFailedException("Table %s was dropped and created again during the sweep: nothing reported or deleted; sweep again", id);
        }
        PurgeIO ownDeletes = catalog.deletesFor(after);
        Set<String> referenced = References.of(catalog.tableMetadata(after.metadataLocation().orElseThrow()), ownDeletes);
        Set<String> committed = committedRoots(files);

        Map<String, List<Orphan>> byDirectory = new TreeMap<>();
        Map<String, Boolean> unclaimed = new java.util.HashMap<>();
        int listed = 0;
        boolean truncated = false;
        for (FileInfo f : files) {
            String rest = f.location().substring(nameDir.length());
            int slash = rest.indexOf('/');
            if (slash <= 0 || f.createdAtMillis() > cutoff) continue; // a file beside the table directories, or too young
            String dir = nameDir + rest.substring(0, slash);
            Orphan.Kind kind;
            if (dir.equals(own)) {
                if (referenced.contains(TableFiles.spelling(f.location())) || under(f.location(), committed, own)) continue;
                String inOwn = rest.substring(slash + 1);
                kind = inOwn.startsWith("metadata/") && inOwn.indexOf('/', "metadata/".length()) < 0 && inOwn.endsWith(".metadata.json")
                        ? Orphan.Kind.STALE_METADATA : Orphan.Kind.UNREFERENCED_FILE;
            } else {
                if (!UUID_V4.matcher(rest.substring(0, slash)).matches() || under(f.location(), committed, null) || holdsCommitted(dir, committed)) continue;
                if (!unclaimed.computeIfAbsent(dir, d -> catalog.deletesForUnclaimed(d) != null)) continue;
                kind = Orphan.Kind.ABANDONED_CREATE;
            }
            if (listed == MAX_LISTED) {
                truncated = true;
                break;
            }
            listed++;
            byDirectory.computeIfAbsent(dir, d -> new ArrayList<>()).add(new Orphan(f.location(), f.size(), f.createdAtMillis(), kind));
        }
        int deleted = 0;
        if (delete) {
            for (Map.Entry<String, List<Orphan>> e : byDirectory.entrySet()) {
                // Re-checked now: a directory claimed since it was classified is not touched.
                PurgeIO io = e.getKey().equals(own) ? ownDeletes : catalog.deletesForUnclaimed(e.getKey());
                if (io != null) deleted += delete(io, e.getValue());
            }
        }
        List<Orphan> orphans = new ArrayList<>();
        byDirectory.values().forEach(orphans::addAll);
        orphans.sort(java.util.Comparator.comparing(Orphan::location));
        counts.swept(orphans.size(), deleted);
        return new Report(orphans, truncated, deleted, files.size(), olderThanMs);
    }

    /** What one sweep of every table found: tables swept, orphans found and deleted, tables skipped (refused or failed). */
    public record Round(int tables, int found, int deleted, int skipped) {}

    /**
     * Every Iceberg table of every namespace swept at the floor, one at a time (the leader's
     * periodic sweep), deleting only with {@code delete}; a table refused (no assigned location)
     * or whose sweep fails is skipped and counted. Stops before the next table once {@code goOn}
     * says so (the node no longer leads).
     */
    public Round sweepAll(boolean delete, java.util.function.BooleanSupplier goOn) {
        int tables = 0, found = 0, deleted = 0, skipped = 0;
        Optional<String> generation = catalog.generation();
        Sharers.Index live = catalog.liveUses();
        for (org.apache.iceberg.catalog.Namespace ns : catalog.allNamespaces()) {
            if (!goOn.getAsBoolean()) break;
            List<TableIdentifier> ids;
            try {
                ids = catalog.listTables(ns);
            } catch (org.apache.iceberg.exceptions.NoSuchNamespaceException dropped) {
                continue;
            }
            for (TableIdentifier id : ids) {
                if (!goOn.getAsBoolean()) break;
                try {
                    // What live tables use is read once a round, and again after a create, register or drop.
                    Optional<String> now = catalog.generation();
                    if (!now.equals(generation)) {
                        live = catalog.liveUses();
                        generation = now;
                    }
                    Report r = sweep(id, floorMs, delete, live);
                    tables++;
                    found += r.orphans().size();
                    deleted += r.deleted();
                } catch (RuntimeException e) {
                    skipped++;
                    LOG.debug("orphan sweep of {} skipped: {}", id, e.toString());
                }
            }
        }
        return new Round(tables, found, deleted, skipped);
    }

    private Registration table(TableIdentifier id) {
        return catalog.registration(id).filter(r -> IcebergCatalog.TABLE_ENGINE.equals(r.engine()))
                .orElseThrow(() -> new NoSuchTableException("Table does not exist: %s", id));
    }

    /** How many of {@code orphans} {@code io} deleted (it refuses any outside its confinement; a failed one is not counted). */
    private static int delete(PurgeIO io, List<Orphan> orphans) {
        List<String> paths = orphans.stream().map(Orphan::location).toList();
        int refusedBefore = io.refusedCount();
        int failed = 0;
        try {
            io.deleteFiles(paths);
        } catch (BulkDeletionFailureException e) {
            failed = e.numberFailedObjects();
        }
        return paths.size() - failed - (io.refusedCount() - refusedBefore);
    }

    /**
     * The directories that hold a committed table's metadata file ({@code <root>/metadata/*.metadata.json}),
     * by the listing: only the catalog writes those, at a commit.
     */
    private static Set<String> committedRoots(List<FileInfo> files) {
        Set<String> roots = new HashSet<>();
        for (FileInfo f : files) {
            String l = f.location();
            if (!l.endsWith(".metadata.json")) continue;
            String parent = l.substring(0, l.lastIndexOf('/'));
            if (parent.endsWith("/metadata")) roots.add(parent.substring(0, parent.length() - "/metadata".length()));
        }
        return roots;
    }

    /** Whether {@code location} lies under a committed table's root other than {@code own}. */
    private static boolean under(String location, Set<String> roots, String own) {
        for (String r : roots) if (!r.equals(own) && location.startsWith(r + "/")) return true;
        return false;
    }

    /** Whether directory {@code dir} is, or holds, a committed table's root. */
    private static boolean holdsCommitted(String dir, Set<String> roots) {
        for (String r : roots) if (r.equals(dir) || r.startsWith(dir + "/")) return true;
        return false;
    }
}
