package lake.catalog.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A dropped table's purge, queued at {@code __lake_internal/purge-queue/<ns>/<name>/<incarnation>}
 * (beside its tombstone's key): {@code {"reason","queued_ms","state","epoch","batches","deleted","after","message"}}.
 * <ul>
 *   <li>{@code queued}: nothing deleted yet; an undrop deletes the job with the tombstone's restore;</li>
 *   <li>{@code purging}: a batch was claimed (by the leader of {@code epoch}, in a fenced
 *       transaction that also checked the tombstone): files may be gone, so undrop is refused;
 *       {@code after} is the last file of the batches done, {@code deleted} how many files they deleted;</li>
 *   <li>{@code refused}: the worker will not delete these files ({@code message} says why: a location
 *       the catalog did not assign, or one another live table uses); nothing was deleted.</li>
 * </ul>
 * Every change is a compare-and-set on the exact bytes read, so two leaders never both move it.
 */
public record PurgeJob(String namespace, String name, String incarnation, Reason reason, long queuedMs, State state,
                       Long epoch, long batches, long deleted, String after, String message) {

    public enum Reason { REQUESTED, RETENTION }

    public enum State { QUEUED, PURGING, REFUSED }

    public PurgeJob {
        if (namespace == null || name == null || incarnation == null) throw new IllegalArgumentException("a purge job names its table's incarnation");
        if (reason == null || state == null) throw new IllegalArgumentException("a purge job has a reason and a state");
        if (state == State.PURGING && epoch == null) throw new IllegalArgumentException("a purge in progress names the epoch that claimed it");
        if (batches < 0 || deleted < 0) throw new IllegalArgumentException("purge counts are not negative");
    }

    /** A new job for a table's dropped incarnation. */
    public static PurgeJob queued(String ns, String name, String incarnation, Reason reason, long nowMs) {
        return new PurgeJob(ns, name, incarnation, reason, nowMs, State.QUEUED, null, 0, 0, null, null);
    }

    public String key() {
        return CatalogKeys.purgeJob(namespace, name, incarnation);
    }

    /** This job with one more batch claimed by the leader of {@code claimEpoch}. */
    public PurgeJob claimed(long claimEpoch) {
        return new PurgeJob(namespace, name, incarnation, reason, queuedMs, State.PURGING, claimEpoch, batches + 1, deleted, after, null);
    }

    /** This job with a batch done: {@code last} its last file, {@code count} the files it deleted. */
    public PurgeJob progressed(String last, long count) {
        return new PurgeJob(namespace, name, incarnation, reason, queuedMs, state, epoch, batches, deleted + count, last, message);
    }

    public PurgeJob refused(String why) {
        return new PurgeJob(namespace, name, incarnation, reason, queuedMs, State.REFUSED, epoch, batches, deleted, after, why);
    }

    public byte[] encode() {
        ObjectNode o = CatalogJson.JSON.createObjectNode();
        o.put("reason", reason.name().toLowerCase(java.util.Locale.ROOT)).put("queued_ms", queuedMs)
                .put("state", state.name().toLowerCase(java.util.Locale.ROOT));
        if (epoch != null) o.set("epoch", CatalogJson.unsigned64Node(epoch));
        o.put("batches", batches).put("deleted", deleted);
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
        try {
            return new PurgeJob(seg[0], seg[1], seg[2], reason, queued, state, epoch, batches, deleted,
                    CatalogJson.text(json.get("after")), CatalogJson.text(json.get("message")));
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
