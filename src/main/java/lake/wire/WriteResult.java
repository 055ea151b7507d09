package lake.wire;

import java.util.List;
import java.util.Map;

/**
 * The answer to a CAS, delete or transaction, {@code {"applied","failed"?,"epoch","revision"?}}.
 * {@code applied == false} means the condition did not hold and nothing was written; for a
 * transaction, {@link #failed()} names every operation whose condition failed (ascending indexes
 * into its operations; absent from the JSON when empty). {@link #epoch()} is the unsigned 64-bit
 * fencing epoch the write was decided under. {@link #revision()} is an applied write's revision in
 * the change feed (unsigned 64-bit; absent from the JSON, and 0 here, when the write did not apply,
 * changed nothing, or came from a server older than the feed).
 */
public record WriteResult(boolean applied, long epoch, List<Integer> failed, long revision) {
    public WriteResult {
        failed = List.copyOf(failed);
    }

    public static WriteResult from(Map<String, Object> o) {
        List<Integer> failed = o.get("failed") == null ? List.of() : Fields.int32s(o, "failed");
        Long revision = Fields.u64OrNull(o, "revision");
        return new WriteResult(Fields.bool(o, "applied"), Fields.u64(o, "epoch"), failed, revision == null ? 0 : revision);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("applied", applied);
        if (!failed.isEmpty()) o.put("failed", failed);
        o.put("epoch", Fields.u64Value(epoch));
        if (revision != 0) o.put("revision", Fields.u64Value(revision));
        return o;
    }
}
