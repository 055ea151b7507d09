package lake.purge;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import lake.catalog.PurgeQueue;
import lake.catalog.model.PurgeJob;
import lake.catalog.model.Registration;
import lake.catalog.model.Table;
import lake.config.LifecycleSettings;
import lake.iceberg.IcebergCatalog;
import lake.iceberg.PurgeIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Deletes the files of dropped tables queued for purge, on the leader (docs/catalog.md, "The
 * life of a dropped table"). One {@link #pass} queues the tables whose retention ended, then
 * works through the queue: for each job it decides what it may delete — only the table's own
 * location (an Iceberg table's or view's location the catalog assigned it; a lake table's
 * incarnation directory), and nothing while another live table's location or metadata lies
 * there — then, batch by batch: lists the next files, <b>claims the batch</b> (a fenced
 * compare-and-set on the job that also checks the tombstone's exact bytes: a deposed leader's
 * claim fails at the lease guard, an undrop's at the job), deletes it through {@link PurgeIO},
 * and records its last file and count (the next leader lists after it, so no file is deleted
 * twice and none is left behind; a batch the store deleted only in part keeps the point where it
 * began, so its failed files are listed and retried). When nothing is left it deletes job and tombstone in one
 * transaction. Confined to the API verticle's context; listing and deleting run on its workers.
 */
public final class PurgeWorker {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PurgeWorker.class);
    static final int QUEUE_PAGE = 100;
    static final int TOMBSTONES_PER_PASS = 1000;
    static final int TABLE_PAGE = 1000;

    /** What the worker counts ({@code lake_purge_…}). */
    public interface Meters {
        void deleted(long files);

        void batch();

        void finished();

        void refused();

        void queueDepth(long jobs);

        /** A pass done (its queue read to the end, or its batches spent). */
        void pass();
    }

    /** What one pass did. */
    public record Pass(int queued, int batches, long deleted, int finished, int refused) {
        public static final Pass NONE = new Pass(0, 0, 0, 0, 0);
    }

    private final Context context;
    private final FileIO io;
    private final String root;
    private final LifecycleSettings settings;
    private final Meters meters;
    private String tombstonesFrom;
    /**
     * The files listed for the job in progress, kept between passes of one epoch so a large
     * table is listed once, not once per pass; a new epoch (or another job) lists again.
     */
    private Listed listed;

    private record Listed(String jobKey, long epoch, List<String> files) {}

    /**
     * @param io   the warehouse's FileIO (listing: {@link SupportsPrefixOperations})
     * @param root the catalog root, under which lake tables' incarnation directories are
     */
    public PurgeWorker(Context context, FileIO io, String root, LifecycleSettings settings, Meters meters) {
        this.context = context;
        this.io = io;
        this.root = root;
        this.settings = settings;
        this.meters = meters;
    }

    /**
     * One pass as the leader of {@code epoch} through {@code queue} (whose writes the node fences
     * with that epoch): expired tombstones queued, then at most {@code maxBatches} batches deleted.
     */
    public Future<Pass> pass(PurgeQueue queue, long epoch, int maxBatches) {
        return queue.enqueueExpired(settings.tableRetentionMs(), tombstonesFrom, TOMBSTONES_PER_PASS).compose(swept -> {
            tombstonesFrom = swept.continuation();
            Tally tally = new Tally(swept.queued());
            return jobs(queue, epoch, null, maxBatches, tally).map(v -> {
                meters.pass();
                return tally.pass();
            });
        });
    }

    private static final class Tally {
        final int queued;
        int batches;
        long deleted;
        int finished;
        int refused;
        long depth;

        Tally(int queued) { this.queued = queued; }

        Pass pass() { return new Pass(queued, batches, deleted, finished, refused); }
    }

    private Future<Void> jobs(PurgeQueue queue, long epoch, String from, int maxBatches, Tally tally) {
        return queue.page(from, QUEUE_PAGE).compose(page -> {
            tally.depth += page.entries().size();
            Future<Void> chain = Future.succeededFuture();
            for (PurgeQueue.Entry e : page.entries()) {
                chain = chain.compose(v -> tally.batches >= maxBatches || e.job().state() == PurgeJob.State.REFUSED
                        ? Future.succeededFuture() : job(queue, e, epoch, maxBatches, tally));
            }
            return chain.compose(v -> {
                if (page.continuation() != null && tally.batches < maxBatches) return jobs(queue, epoch, page.continuation(), maxBatches, tally);
                meters.queueDepth(tally.depth);
                return Future.succeededFuture();
            });
        });
    }

    private Future<Void> job(PurgeQueue queue, PurgeQueue.Entry e, long epoch, int maxBatches, Tally tally) {
        PurgeJob j = e.job();
        return queue.tombstone(j).compose(tomb -> {
            if (tomb.isEmpty()) return queue.discard(e).mapEmpty(); // purged by hand: nothing of the table is left to guard
            Registration reg = tomb.get().tombstone().registration();
            String location = ownLocation(reg);
            if (location == null) {
                return refuse(queue, e, "location " + reg.location() + " was not assigned to this table by the catalog (named at its"
                        + " creation, registered, or from before assignments): its files are not deleted with the node's rights;"
                        + " delete them with your own credentials, then purge the tombstone", tally);
            }
            return sharers(queue, location, null, new ArrayList<>()).compose(sharing -> {
                if (!sharing.isEmpty()) {
                    return refuse(queue, e, "location " + location + " is shared with live table(s) " + String.join(", ", sharing)
                            + " (registered there, or with files there): nothing was deleted; drop or move them, then request the purge again", tally);
                }
                PurgeIO confined = new PurgeIO(io, location);
                Listed kept = listed;
                Future<List<String>> files = kept != null && kept.jobKey().equals(j.key()) && kept.epoch() == epoch
                        ? Future.succeededFuture(after(kept.files(), j.after()))
                        : context.<List<String>>executeBlocking(() -> list(location, j.after()), false);
                return files.compose(f -> {
                    listed = new Listed(j.key(), epoch, f);
                    return batches(queue, e, tomb.get(), confined, f, 0, epoch, maxBatches, tally);
                });
            });
        });
    }

    private Future<Void> batches(PurgeQueue queue, PurgeQueue.Entry e, PurgeQueue.Dropped tomb, PurgeIO confined, List<String> files,
                                 int at, long epoch, int maxBatches, Tally tally) {
        if (at >= files.size()) {
            listed = null;
            JsonObject detail = new JsonObject().put("location", tomb.tombstone().registration().location());
            if (!confined.refused().isEmpty()) detail.put("files_left", confined.refused().size());
            return queue.finish(e, tomb, detail).map(done -> {
                if (done) {
                    tally.finished++;
                    meters.finished();
                    LOG.info("purged {}.{} (incarnation {}): {} file(s) deleted", e.job().namespace(), e.job().name(),
                            e.job().incarnation(), e.job().deleted());
                }
                return null;
            });
        }
        if (tally.batches >= maxBatches) return Future.succeededFuture();
        List<String> batch = files.subList(at, Math.min(files.size(), at + settings.purgeBatchFiles()));
        return queue.claim(e, tomb, epoch).compose(claimed -> {
            if (claimed.isEmpty()) {
                listed = null;
                LOG.info("purge of {}.{} stopped: its job or tombstone changed (undropped, or claimed by another leader)",
                        e.job().namespace(), e.job().name());
                return Future.succeededFuture();
            }
            int refusedBefore = confined.refused().size();
            return context.executeBlocking(() -> confined.delete(batch), false).compose(count -> {
                tally.batches++;
                tally.deleted += count;
                meters.batch();
                meters.deleted(count);
                // Files the store failed to delete (S3 answers DeleteObjects per key) are not behind
                // the resume point: the next listing starts after it and would never see them again,
                // and the purge would finish with them left. Such a batch keeps the point where it
                // began and ends this job's pass; the next pass lists again from there and finds only
                // those files of the batch (the others are gone), so none is deleted twice.
                long failed = batch.size() - (confined.refused().size() - refusedBefore) - count;
                if (failed > 0) {
                    listed = null; // list again: the batch's deleted files must not be sent twice
                    LOG.warn("purge of {}.{}: {} of {} file(s) in a batch were not deleted by the store; retried next pass",
                            e.job().namespace(), e.job().name(), failed, batch.size());
                    return queue.progress(claimed.get(), claimed.get().job().after(), count).map(next -> Optional.<PurgeQueue.Entry>empty());
                }
                return queue.progress(claimed.get(), batch.get(batch.size() - 1), count);
            }).compose(next -> next.isEmpty() ? Future.succeededFuture()
                    : batches(queue, next.get(), tomb, confined, files, at + batch.size(), epoch, maxBatches, tally));
        });
    }

    private Future<Void> refuse(PurgeQueue queue, PurgeQueue.Entry e, String why, Tally tally) {
        return queue.refuse(e, why).map(done -> {
            if (done.isPresent()) {
                tally.refused++;
                meters.refused();
                LOG.warn("purge of {}.{} refused: {}", e.job().namespace(), e.job().name(), why);
            }
            return null;
        });
    }

    /**
     * The location whose files are the table's alone, or {@code null}: an Iceberg table's or
     * view's assigned location; a lake table's incarnation directory under the root (only the
     * catalog names a directory by a fresh incarnation id).
     */
    String ownLocation(Registration reg) {
        if (IcebergCatalog.TABLE_ENGINE.equals(reg.engine()) || IcebergCatalog.VIEW_ENGINE.equals(reg.engine())) {
            return IcebergCatalog.assignedLocation(reg);
        }
        Optional<String> incarnation = reg.incarnationId();
        String l = reg.location();
        if (incarnation.isEmpty() || !l.startsWith(root + "/") || !l.endsWith("/" + incarnation.get())) return null;
        String[] seg = l.substring(root.length() + 1).split("/", -1);
        return seg.length == 3 ? l : null;
    }

    /** Live tables whose location or current metadata file lies under {@code location} (at most ten named). */
    private Future<List<String>> sharers(PurgeQueue queue, String location, String from, List<String> found) {
        PurgeIO under = new PurgeIO(io, location);
        return queue.liveTables(from, TABLE_PAGE).compose(page -> {
            for (Table t : page.tables()) {
                Registration r = t.registration();
                boolean shares = under.inside(r.location() + "/x") || r.metadataLocation().map(under::inside).orElse(false);
                if (shares) found.add(t.namespace() + "." + t.name());
            }
            return page.continuation() == null || found.size() >= 10 ? Future.succeededFuture(found)
                    : sharers(queue, location, page.continuation(), found);
        });
    }

    /** The files of {@code sorted} after {@code after}. */
    private static List<String> after(List<String> sorted, String after) {
        if (after == null) return sorted;
        int i = java.util.Collections.binarySearch(sorted, after);
        return sorted.subList(i >= 0 ? i + 1 : -i - 1, sorted.size());
    }

    /** The files under {@code location} after {@code after} (the last file of the batches done), in order. */
    private List<String> list(String location, String after) {
        if (!(io instanceof SupportsPrefixOperations prefixes)) {
            throw new IllegalStateException("the warehouse's FileIO cannot list files: " + io.getClass().getName());
        }
        List<String> files = new ArrayList<>();
        for (FileInfo f : prefixes.listPrefix(location + "/")) {
            if (after == null || f.location().compareTo(after) > 0) files.add(f.location());
        }
        files.sort(null);
        return files;
    }
}
