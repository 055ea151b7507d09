package lake.wire.catalog;

import lake.wire.Fields;

import java.util.List;
import java.util.Map;

/**
 * A dropped table's purge as queued ({@code GET /v1/catalog/purges}):
 * {@code {"namespace","name","incarnation_id","reason","state","phase","queued_ms","epoch","batches","deleted","message"}}.
 * {@code reason}: {@code requested} or {@code retention}; {@code state}: {@code queued} (an undrop
 * still cancels it), {@code purging} (batches claimed by the leader of {@code epoch}; undrop
 * refused) or {@code refused} ({@code message} says why; nothing deleted). {@code phase} (while purging): what is
 * being deleted ({@code data}, {@code manifests}, {@code manifest_lists}, {@code metadata}, then
 * {@code listing}: whatever a listing of the location still finds); {@code null} while queued or
 * refused, and from a node that did not report phases.
 */
public record Purge(String namespace, String name, String incarnationId, String reason, String state, String phase, long queuedMs,
                    Long epoch, long batches, long deleted, String message) {
    public static Purge from(Map<String, Object> o) {
        return new Purge(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.string(o, "incarnation_id"),
                Fields.string(o, "reason"), Fields.string(o, "state"), Fields.stringOrNull(o, "phase"), Fields.u64(o, "queued_ms"), Fields.u64OrNull(o, "epoch"),
                Fields.u64(o, "batches"), Fields.u64(o, "deleted"), Fields.stringOrNull(o, "message"));
    }

    public Map<String, Object> toMap() {
        return Fields.of("namespace", namespace, "name", name, "incarnation_id", incarnationId, "reason", reason, "state", state, "phase", phase,
                "queued_ms", queuedMs, "epoch", epoch == null ? null : Fields.u64Value(epoch), "batches", batches, "deleted", deleted, "message", message);
    }

    /** One page of the queue, {@code {"purges":[…],"continuation"}}. */
    public record Page(List<Purge> purges, String continuation) {
        public Page { purges = List.copyOf(purges); }

        public static Page from(Map<String, Object> o) {
            return new Page(Fields.records(o, "purges", Purge::from), Fields.stringOrNull(o, "continuation"));
        }

        public Map<String, Object> toMap() {
            return Fields.of("purges", Fields.maps(purges, Purge::toMap), "continuation", continuation);
        }
    }
}
