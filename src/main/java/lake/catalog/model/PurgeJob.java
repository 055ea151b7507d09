package lake.catalog.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A dropped table's purge, queued at {@code __lake_internal/purge-queue/<ns>/<name>/<incarnation>}
 * (beside its tombstone's key): {@code {"reason","queued_ms","state","epoch","phase","batches","deleted","outside","after","message","batch_files"}}.
 * <ul>
 *   <li>{@code queued}: nothing deleted yet; an undrop deletes the job with the tombstone's restore;</li>
 *   <li>{@code purging}: a batch was claimed (by the leader of {@code epoch}, in a fenced
 *       transaction that also checked the tombstone): files may be gone, so undrop is refused;
 *       {@code phase} is the kind of file being deleted and {@code after} the last file of the
 *       phase's batches done, {@code deleted} how many files all batches deleted, {@code outside} how
 *       many files the metadata named outside the table's location (left in place, never deleted),
 *       {@code batch_files} the size of the batches its last claimer sent (absent before sizes were
 *       recorded: then the largest a node may be set to);</li>
 *   <li>{@code refused}: the worker will not delete these files ({@code message} says why: a location
 *       the catalog did not assign, or one another live table uses); nothing more is deleted. A job
 *       refused after a claim ({@code batches} above zero) may have deleted files, so an undrop stays
 *       refused.</li>
 * </ul>
 * Every change is a compare-and-set on the exact bytes read, so two leaders never both move it.
 */
public record PurgeJob(String namespace, String name, String incarnation, Reason reason, long queuedMs, State state,
                       Long epoch, Phase phase, long batches, long deleted, long outside, String after, String message, int batchFiles) {

    public enum Reason { REQUESTED, RETENTION }

    public enum State { QUEUED, PURGING, REFUSED }

    /**
     * What a purge deletes, in this order, each phase's files named by what the next phases keep:
     * data and delete files (named by the manifests), manifests (by the manifest lists), manifest
     * lists (by the metadata file), statistics and earlier metadata files (by the metadata file),
     * then whatever a listing of the location still finds (the metadata file itself, files no
     * metadata names, files a batch failed to delete). A lake table's or a view's purge lists only.
     * A table whose metadata disables garbage collection ({@code gc.enabled=false}) keeps its data
     * and delete files, as Iceberg's own {@code dropTableData} does: its data phase names nothing,
     * and its last phase lists only the {@code metadata/} directory ({@link #METADATA_LISTING});
     * which of the two listings a job does is recorded with its first claim, while the metadata
     * file that says it still exists. Jobs stored before phases existed resume by listing once a
     * batch was claimed.
     */
    public enum Phase {
        DATA, MANIFESTS, MANIFEST_LISTS, METADATA, LISTING, METADATA_LISTING;

        public String wire() { return name().toLowerCase(java.util.Locale.ROOT); }

        /** Whether this phase lists what is left rather than naming files: the last phase of a job. */
        public boolean lists() { return this == LISTING || this == METADATA_LISTING; }
    }

    public PurgeJob {
        if (namespace == null || name == null || incarnation == null) throw new IllegalArgumentException("a purge job names its table's incarnation");
        if (reason == null || state == null) throw new IllegalArgumentException("a purge job has a reason and a state");
        if (state == State.PURGING && epoch == null) throw new IllegalArgumentException("a purge in progress names the epoch that claimed it");
        if (batches < 0 || deleted < 0 || outside < 0) throw new IllegalArgumentException("purge counts are not negative");
        if (phase == null) throw new IllegalArgumentException("a purge job has a phase");
        if (batchFiles < 0) throw new IllegalArgumentException("a purge batch's size is not negative");
    }

    /** A new job for a table's dropped incarnation. */
    public static PurgeJob queued(String ns, String name, String incarnation, Reason reason, long nowMs) {
        return new PurgeJob(ns, name, incarnation, reason, nowMs, State.QUEUED, null, Phase.DATA, 0, 0, 0, null, null, 0);
    }

    public String key() {
        return CatalogKeys.purgeJob(namespace, name, incarnation);
    }

    /**
     * This job with one more batch, of at most {@code files} files, claimed by the leader of
     * {@code claimEpoch}, in {@code batchPhase} after {@code from} (a new phase starts from
     * {@code null}). The size is what a next leader looks in for files deleted but not recorded.
     */
    public PurgeJob claimed(long claimEpoch, Phase batchPhase, String from, int files) {
        if (files < 1) throw new IllegalArgumentException("a claimed batch has at least one file");
        return new PurgeJob(namespace, name, incarnation, reason, queuedMs, State.PURGING, claimEpoch, batchPhase, batches + 1, deleted, outside,
                from, null, files);
    }

    /**
     * This job with a batch done: {@code last} its last file, {@code count} the files it deleted,
     * {@code left} the files it named outside the location and did not delete.
     */
    public PurgeJob progressed(String last, long count, long left) {
        return new PurgeJob(namespace, name, incarnation, reason, queuedMs, state, epoch, phase, batches, deleted + count, outside + left,
                last, message, batchFiles);
    }

    public PurgeJob refused(String why) {
        return new PurgeJob(namespace, name, incarnation, reason, queuedMs, State.REFUSED, epoch, phase, batches, deleted, outside, after, why, batchFiles);
    }

    public byte[] encode() {
        ObjectNode o = CatalogJson.JSON.createObjectNode();
        o.put("reason", reason.name().toLowerCase(java.util.Locale.ROOT)).put("queued_ms", queuedMs)
                .put("state", state.name().toLowerCase(java.util.Locale.ROOT));
        if (epoch != null) o.set("epoch", CatalogJson.unsigned64Node(epoch));
        o.put("phase", phase.wire());
        o.put("batches", batches).put("deleted", deleted);
        if (outside > 0) o.put("outside", outside);
        if (batchFiles > 0) o.put("batch_files", batchFiles);
        if (after != null) o.put("after", after);
        if (message != null) o.put("message", message);
        return CatalogJson.write(o);
    }

    public static PurgeJob parse(String key, byte[] stored) {
        String what = "purge job " + key;
        String[] seg = CatalogKeys.segments(CatalogKeys.PURGE_QUEUE, key);
        if (seg.length != 3) throw CatalogJson.corrupt(what, "is not keyed " + CatalogKeys.PURGE_QUEUE + "<ns>/<name>/<incarnation>");
        ObjectNode json = CatalogJson.parseObject(what, stored);
        Reason reason = enumOf(Reason.class, what, json.get("reason"));
        State state = enumOf(State.class, what, json.get("state"));
        Long queued = CatalogJson.unsigned64(json.get("queued_ms"));
        Long batches = CatalogJson.unsigned64(json.get("batches"));
        Long deleted = CatalogJson.unsigned64(json.get("deleted"));
        if (queued == null || batches == null || deleted == null) throw CatalogJson.corrupt(what, "lacks queued_ms, batches or deleted");
        Long epoch = json.get("epoch") == null ? null : CatalogJson.unsigned64(json.get("epoch"));
        if (json.get("epoch") != null && epoch == null) throw CatalogJson.corrupt(what, "has an epoch that is not an unsigned 64-bit integer");
        Long outside = json.get("outside") == null ? Long.valueOf(0) : CatalogJson.unsigned64(json.get("outside"));
        if (outside == null) throw CatalogJson.corrupt(what, "has an outside count that is not an unsigned 64-bit integer");
        String after = CatalogJson.text(json.get("after"));
        Long batchFiles = json.get("batch_files") == null ? Long.valueOf(0) : CatalogJson.unsigned64(json.get("batch_files"));
        if (batchFiles == null || batchFiles > Integer.MAX_VALUE) throw CatalogJson.corrupt(what, "has a batch_files that is not a batch size");
        // A job from before phases resumes by listing once a batch was claimed: exact, whatever it deleted.
        Phase phase = json.get("phase") != null ? enumOf(Phase.class, what, json.get("phase"))
                : after != null || state == State.PURGING ? Phase.LISTING : Phase.DATA;
        try {
            return new PurgeJob(seg[0], seg[1], seg[2], reason, queued, state, epoch, phase, batches, deleted,
                    outside, after, CatalogJson.text(json.get("message")), batchFiles.intValue());
        } catch (IllegalArgumentException e) {
            throw CatalogJson.corrupt(what, e.getMessage());
        }
    }

    private static <E extends Enum<E>> E enumOf(Class<E> type, String what, JsonNode node) {
        String text = CatalogJson.text(node);
        try {
            if (text != null) return Enum.valueOf(type, text.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            // reported below
        }
        throw CatalogJson.corrupt(what, "has no valid " + type.getSimpleName().toLowerCase(java.util.Locale.ROOT) + " (" + node + ")");
    }
}
