package lake.purge;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import lake.catalog.PurgeQueue;
import lake.catalog.model.PurgeJob;
import lake.catalog.model.PurgeJob.Phase;
import lake.catalog.model.Registration;
import lake.config.LifecycleSettings;
import lake.iceberg.IcebergCatalog;
import lake.iceberg.Sharers;
import lake.iceberg.files.PurgeIO;
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
 * there — then, phase by phase ({@link Phase}: an Iceberg table's data and delete files, manifests,
 * manifest lists, statistics and earlier metadata files, each named by its metadata rather than
 * listed; then whatever a listing of the location still finds), batch by batch: <b>claims the
 * batch</b> (a fenced compare-and-set on the job, recording its phase, that also checks the
 * tombstone's exact bytes: a deposed leader's claim fails at the lease guard, an undrop's at the
 * job), deletes it through {@link PurgeIO}, and records its last file and count. A next leader
 * names the phase's files again and starts after that file, first looking for the files of the
 * one batch a lost leader may have deleted unrecorded, so no file is deleted twice and none is
 * left behind. A file the store failed to delete is found by the final listing (a listing batch
 * with one keeps the point where it began). When nothing is left it deletes job and tombstone in one
 * transaction. Confined to the API verticle's context; listing and deleting run on its workers.
 */
public final class PurgeWorker {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PurgeWorker.class);
    static final int QUEUE_PAGE = 100;
    static final int TOMBSTONES_PER_PASS = 1000;
    static final int TABLE_PAGE = 1000;
    /** Batches a leader may have deleted and not recorded: the one whose record is being written, and the one in flight. */
    static final int LOOK_UP_BATCHES = 2;

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
    /** The warehouse's FileIO; {@code null} when the node has none (a catalog root Iceberg cannot write): every job is refused. */
    private final FileIO io;
    private final Sharers sharers;
    private final String root;
    private final LifecycleSettings settings;
    private final Meters meters;
    private String tombstonesFrom;
    /** The files of the phase in progress (see {@link #files}); a new epoch, job or phase names them again. */
    private Named named;
    /** Each job's bytes as this worker last recorded its progress: while they are the job's, no batch of it is unaccounted. */
    private final java.util.Map<String, byte[]> recorded = new java.util.HashMap<>();

    private record Named(String jobKey, long epoch, Phase phase, List<String> files) {}

    /**
     * @param io   the warehouse's FileIO (listing: {@link SupportsPrefixOperations}); {@code null} when
     *             the node has none, and then every job is refused, saying why
     * @param root the catalog root, under which lake tables' incarnation directories are
     */
    public PurgeWorker(Context context, FileIO io, String root, LifecycleSettings settings, Meters meters) {
        this.context = context;
        this.io = io;
        this.sharers = io == null ? null : new Sharers(io);
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
                        ? Future.succeededFuture() : job(queue, e, epoch, maxBatches, tally).recover(t -> {
                            // One job's failure (a store outage, a file it cannot look for) must not stall the jobs behind it.
                            LOG.warn("purge of {}.{} failed this pass (retried next pass): {}", e.job().namespace(), e.job().name(), t.toString());
                            return Future.succeededFuture();
                        }));
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
            if (io == null) {
                return refuse(queue, e, "the catalog root " + root + " has no FileIO on this node (the node deletes files in file: and s3://"
                        + " warehouses only): delete " + reg.location() + " with your own credentials, then purge the tombstone", tally);
            }
            String location = ownLocation(reg);
            if (location == null) {
                return refuse(queue, e, "location " + reg.location() + " was not assigned to this table by the catalog (named at its"
                        + " creation, registered, or from before assignments): its files are not deleted with the node's rights;"
                        + " delete them with your own credentials, then purge the tombstone", tally);
            }
            return index(queue, sharers.index(), null).compose(live -> {
                List<String> sharing = live.under(location, null, null);
                if (!sharing.isEmpty()) {
                    return refuse(queue, e, "location " + location + " is shared with live table(s) " + String.join(", ", sharing)
                            + " (registered there, with files there, or with gc.enabled=false and files of this table in their"
                            + " metadata): nothing more is deleted; drop or move them, then request the purge again", tally);
                }
                Job job = new Job(queue, tomb.get(), new PurgeIO(io, location), location, reachableFrom(reg), epoch, maxBatches, tally);
                Phase phase = job.metadata == null ? Phase.LISTING : j.phase();
                return phase(job, e, phase, phase == j.phase() ? j.after() : null).recover(t -> t instanceof KeptUnknown unknown
                        ? refuse(queue, e, unknown.getMessage(), tally) : Future.failedFuture(t));
            });
        });
    }

    /** One job's pass: what it deletes from, as whom, and what it counts. */
    private record Job(PurgeQueue queue, PurgeQueue.Dropped tomb, PurgeIO confined, String location, String metadata,
                       long epoch, int maxBatches, Tally tally) {}

    /** The metadata file naming an Iceberg table's files phase by phase; {@code null} for a view or a lake table (listed only). */
    private static String reachableFrom(Registration reg) {
        return IcebergCatalog.TABLE_ENGINE.equals(reg.engine()) ? reg.metadataLocation().orElse(null) : null;
    }

    /**
     * The metadata file of an Iceberg table whose purge must choose its listing could not be read:
     * whether its data files are its own ({@code gc.enabled}) is unknown, so the job is refused.
     */
    private static final class KeptUnknown extends RuntimeException {
        KeptUnknown(String message) {
            super(message, null, false, false);
        }
    }

    /** The batches of {@code phase} after {@code from}, then the next phases'; the job finished after the listing's. */
    private Future<Void> phase(Job job, PurgeQueue.Entry e, Phase phase, String from) {
        if (job.tally.batches >= job.maxBatches) return Future.succeededFuture();
        return files(job, e.job(), phase).compose(named -> {
            String start = named.phase() == phase ? from : null; // a phase that fell back to listing lists from the start
            List<String> files = after(named.files(), start);
            if (!files.isEmpty()) {
                // Batches no record shows may have been claimed and (in part) deleted: by a leader
                // that lost its lease, or by this one before its record failed. They are at most
                // two batches of the size the last claim recorded, right after the recorded point
                // (one recorded while the next is deleted): those files are looked for before
                // they are sent, so none is sent or counted twice. A listing shows only what
                // exists anyway.
                boolean unsure = !named.phase().lists() && e.job().state() == PurgeJob.State.PURGING
                        && !java.util.Arrays.equals(e.bytes(), recorded.get(e.job().key()));
                int window = LOOK_UP_BATCHES * (e.job().batchFiles() > 0 ? e.job().batchFiles() : LifecycleSettings.MAX_BATCH_FILES);
                String checkThrough = unsure ? files.get(Math.min(files.size(), window) - 1) : null;
                return batches(job, e, named.phase(), files, 0, start, checkThrough);
            }
            if (named.phase().lists()) return finish(job, e, named.phase());
            return phase(job, e, Phase.values()[named.phase().ordinal() + 1], null);
        });
    }

    /**
     * The sorted files of {@code phase}, kept between passes of one epoch so a large table is read
     * once, not once per pass. A phase whose naming files cannot be read (a manifest gone, a
     * metadata file that does not parse) falls back to listing, which finds every file left. A job
     * entering its listing lists the whole location, or only its {@code metadata/} directory when
     * the table keeps its data ({@link #listing}); one already listing goes on as its claims recorded.
     */
    private Future<Named> files(Job job, PurgeJob j, Phase phase) {
        Named kept = named;
        if (kept != null && kept.jobKey().equals(j.key()) && kept.epoch() == job.epoch
                && (kept.phase() == phase || kept.phase().lists() && phase.lists())) {
            return Future.succeededFuture(kept);
        }
        return context.<Named>executeBlocking(() -> {
            if (!phase.lists()) {
                try {
                    return new Named(j.key(), job.epoch, phase, Reachable.files(io, job.metadata, phase));
                } catch (RuntimeException unreadable) {
                    if (transientStoreFailure(unreadable)) throw unreadable; // retried next pass, in the same phase
                    LOG.warn("purge of {}.{}: cannot name its {} from {} ({}); listing {} instead", j.namespace(), j.name(), phase.wire(),
                            job.metadata, unreadable.toString(), job.location);
                }
            }
            Phase listing = j.phase().lists() ? j.phase() : listing(job, j);
            return new Named(j.key(), job.epoch, listing, list(listing == Phase.METADATA_LISTING ? job.location + "/metadata" : job.location));
        }, false).onSuccess(n -> named = n);
    }

    /**
     * Which listing ends a job: {@link Phase#LISTING} (the whole location), or for an Iceberg table
     * whose metadata disables garbage collection {@link Phase#METADATA_LISTING}: its data and delete
     * files are left, as Iceberg's {@code dropTableData} leaves them. Read from the metadata file,
     * which only the listing deletes; one that cannot be read refuses the job ({@link KeptUnknown}).
     */
    private Phase listing(Job job, PurgeJob j) {
        if (job.metadata == null) return Phase.LISTING;
        try {
            return Sharers.gcEnabled(org.apache.iceberg.TableMetadataParser.read(io, job.metadata)) ? Phase.LISTING : Phase.METADATA_LISTING;
        } catch (RuntimeException unreadable) {
            if (transientStoreFailure(unreadable)) throw unreadable;
            throw new KeptUnknown("metadata file " + job.metadata + " cannot be read (" + unreadable.getMessage() + "), so whether the"
                    + " table's data files are its own (gc.enabled) is unknown: nothing more is deleted; delete " + job.location
                    + " with your own credentials, then purge the tombstone");
        }
    }

    /** A failure of the store's service (throttled, timed out, unavailable), not of the table's files: worth a retry, not a fallback. */
    private static boolean transientStoreFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof software.amazon.awssdk.core.exception.SdkException) return true;
        }
        return false;
    }

    private Future<Void> finish(Job job, PurgeQueue.Entry e, Phase listing) {
        named = null;
        recorded.remove(e.job().key());
        JsonObject detail = new JsonObject().put("location", job.tomb.tombstone().registration().location());
        if (listing == Phase.METADATA_LISTING) detail.put("kept", "data and delete files: the table's gc.enabled is false");
        // Files the metadata named outside the location, left in every pass (the job counts them: one pass sees only its own).
        if (e.job().outside() > 0) detail.put("files_left", e.job().outside());
        return job.queue.finish(e, job.tomb, detail).map(done -> {
            if (done) {
                job.tally.finished++;
                meters.finished();
                LOG.info("purged {}.{} (incarnation {}): {} file(s) deleted", e.job().namespace(), e.job().name(),
                        e.job().incarnation(), e.job().deleted());
            }
            return null;
        });
    }

    /**
     * The batches of {@code files} (of {@code phase}, after {@code from}) from {@code at} on; the
     * files up to {@code checkThrough} (none when {@code null}) are sent only if they still exist.
     * The first batch is claimed on its own; from then on one batch is deleted while the store
     * records the one before it and claims the one after it, in one fenced transaction
     * ({@link PurgeQueue#advance}), so neither waits for the other: at most two batches are
     * deleted and not yet recorded (the one just done, the one in flight), which is the window
     * a next leader looks in ({@link #LOOK_UP_BATCHES}).
     */
    private Future<Void> batches(Job job, PurgeQueue.Entry e, Phase phase, List<String> files, int at, String from, String checkThrough) {
        if (at >= files.size()) {
            return phase.lists() ? finish(job, e, phase) : phase(job, e, Phase.values()[phase.ordinal() + 1], null);
        }
        if (job.tally.batches >= job.maxBatches) return Future.succeededFuture();
        return job.queue.claim(e, job.tomb, job.epoch, phase, from, settings.purgeBatchFiles()).compose(claimed -> {
            if (claimed.isEmpty()) return stopped(e);
            return step(job, claimed.get(), phase, files, at, checkThrough, null);
        }).onFailure(t -> forget(e));
    }

    /** A batch deleted and not yet recorded: its last file, the files it deleted, those it named outside the location. */
    private record Done(String last, long count, long outside) {}

    /**
     * Deletes the batch at {@code at}, which {@code claimed} claims, while {@code previous} (the
     * batch before, deleted; {@code null} for none) is recorded and the next batch claimed; then
     * the next step, or the last record of the run.
     */
    private Future<Void> step(Job job, PurgeQueue.Entry claimed, Phase phase, List<String> files, int at, String checkThrough, Done previous) {
        List<String> batch = files.subList(at, Math.min(files.size(), at + settings.purgeBatchFiles()));
        int end = at + batch.size();
        boolean more = end < files.size() && job.tally.batches + 1 < job.maxBatches;
        Future<Sent> deleting = context.executeBlocking(() -> {
            // Files outside the location go through unlooked-for: PurgeIO refuses (and counts) them.
            List<String> send = checkThrough == null ? batch : batch.stream()
                    .filter(f -> f.compareTo(checkThrough) > 0 || !job.confined.inside(f) || exists(f)).toList();
            int refusedBefore = job.confined.refusedCount();
            long deleted = job.confined.delete(send);
            return new Sent(send.size(), deleted, job.confined.refusedCount() - refusedBefore);
        }, false).onSuccess(sent -> {
            // Counted as deleted when the store answers, whether or not the record that follows is written.
            job.tally.batches++;
            job.tally.deleted += sent.deleted();
            meters.batch();
            meters.deleted(sent.deleted());
        });
        Future<Optional<PurgeQueue.Entry>> written = previous == null && !more ? Future.succeededFuture(Optional.of(claimed))
                : job.queue.advance(claimed, job.tomb, previous == null ? null : previous.last(), previous == null ? 0 : previous.count(),
                        previous == null ? 0 : previous.outside(), more ? job.epoch : null, phase, settings.purgeBatchFiles()).map(next -> remember(claimed, next));
        // join, not all: after a failed delete the caller forgets the job only once the write in flight
        // has landed (landing after, it would mark the job as this worker's own record again).
        return Future.join(deleting, written).compose(both -> {
            Sent sent = deleting.result();
            Optional<PurgeQueue.Entry> next = written.result();
            if (next.isEmpty()) return stopped(claimed);
            long failed = sent.sent() - sent.outside() - sent.deleted();
            if (failed > 0 && phase.lists()) {
                // Files the store failed to delete (S3 answers DeleteObjects per key) must not be
                // behind the resume point: the next listing starts after it and would never see
                // them again. Such a batch keeps the point where it began and ends this job's
                // pass; the next pass lists again from there and finds only those files of the
                // batch (the others are gone), so none is deleted twice. A next batch claimed
                // meanwhile was not sent.
                named = null;
                LOG.warn("purge of {}.{}: {} of {} file(s) in a batch were not deleted by the store; retried next pass",
                        claimed.job().namespace(), claimed.job().name(), failed, batch.size());
                String start = at == 0 ? next.get().job().after() : files.get(at - 1);
                return record(job, next.get(), start, sent.deleted(), sent.outside()).mapEmpty();
            }
            if (failed > 0) {
                LOG.warn("purge of {}.{}: {} of {} {} file(s) in a batch were not deleted by the store; the listing at the end retries them",
                        claimed.job().namespace(), claimed.job().name(), failed, batch.size(), phase.wire());
            }
            Done done = new Done(last(batch), sent.deleted(), sent.outside());
            if (more) return step(job, next.get(), phase, files, end, checkThrough, done);
            return record(job, next.get(), done.last(), done.count(), done.outside()).compose(recorded -> recorded.isEmpty() ? stopped(claimed)
                    : batches(job, recorded.get(), phase, files, end, done.last(), checkThrough));
        });
    }

    /** The run of a job's batches stopped because its job or tombstone changed under it. */
    private Future<Void> stopped(PurgeQueue.Entry e) {
        forget(e);
        LOG.info("purge of {}.{} stopped: its job or tombstone changed (undropped, or claimed by another leader)",
                e.job().namespace(), e.job().name());
        return Future.succeededFuture();
    }

    /** After a failure or a stop: the job's files named again and its next batch looked for, next pass. */
    private void forget(PurgeQueue.Entry e) {
        named = null;
        recorded.remove(e.job().key());
    }

    /** A delete's answer: the files sent, those the store deleted, those refused as outside the location. */
    private record Sent(int sent, long deleted, long outside) {}

    private static String last(List<String> batch) {
        return batch.get(batch.size() - 1);
    }

    /** A batch's progress recorded; remembered as this worker's own record, so its next batch needs no looking. */
    private Future<Optional<PurgeQueue.Entry>> record(Job job, PurgeQueue.Entry claimed, String last, long count, long outside) {
        return job.queue.progress(claimed, last, count, outside).map(next -> remember(claimed, next));
    }

    /** {@code next}, the job as this worker wrote it over {@code was}, kept as its own; or, when the write failed, nothing kept. */
    private Optional<PurgeQueue.Entry> remember(PurgeQueue.Entry was, Optional<PurgeQueue.Entry> next) {
        next.ifPresentOrElse(n -> recorded.put(n.job().key(), n.bytes()), () -> recorded.remove(was.job().key()));
        return next;
    }

    /** Whether {@code file} exists; one that cannot be looked for (a store error) counts as there, and is sent. */
    private boolean exists(String file) {
        try {
            return io.newInputFile(file).exists();
        } catch (RuntimeException unknown) {
            return true;
        }
    }

    private Future<Void> refuse(PurgeQueue queue, PurgeQueue.Entry e, String why, Tally tally) {
        recorded.remove(e.job().key());
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

    /** {@code index} with every live table added, page by page (reading metadata files on a worker). */
    private Future<Sharers.Index> index(PurgeQueue queue, Sharers.Index index, String from) {
        return queue.liveTables(from, TABLE_PAGE).compose(page -> context.executeBlocking(() -> index.add(page.tables()), false)
                .compose(added -> page.continuation() == null ? Future.succeededFuture(added) : index(queue, added, page.continuation())));
    }

    /** Drops what this worker kept of a term as leader (the files of a phase can be a large table's every path). */
    public void forget() {
        named = null;
        recorded.clear();
    }

    /** The files of {@code sorted} after {@code after}. */
    private static List<String> after(List<String> sorted, String after) {
        if (after == null) return sorted;
        int i = java.util.Collections.binarySearch(sorted, after);
        return sorted.subList(i >= 0 ? i + 1 : -i - 1, sorted.size());
    }

    /** The files under {@code location}, in order. */
    private List<String> list(String location) {
        if (!(io instanceof SupportsPrefixOperations prefixes)) {
            throw new IllegalStateException("the warehouse's FileIO cannot list files: " + io.getClass().getName());
        }
        List<String> files = new ArrayList<>();
        for (FileInfo f : prefixes.listPrefix(location + "/")) {
            files.add(f.location());
        }
        files.sort(null);
        return files;
    }
}
