package lake.wire;

import java.util.List;
import java.util.Map;

/**
 * The answer to a CAS, delete or transaction, {@code {"applied","failed"?,"epoch"}}.
 * {@code applied == false} means the condition did not hold and nothing was written; for a
 * transaction, {@link #failed()} names every operation whose condition failed (ascending indexes
 * into its operations; absent from the JSON when empty). {@link #epoch()} is the unsigned 64-bit
 * fencing epoch the write was decided under.
 */
public record WriteResult(boolean applied, long epoch, List<Integer> failed) {
    public WriteResult {
        failed = List.copyOf(failed);
    }

    public static WriteResult from(Map<String, Object> o) {
        List<Integer> failed = o.get("failed") == null ? List.of() : Fields.int32s(o, "failed");
        return new WriteResult(Fields.bool(o, "applied"), Fields.u64(o, "epoch"), failed);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("applied", applied);
        if (!failed.isEmpty()) o.put("failed", failed);
        o.put("epoch", Fields.u64Value(epoch));
        return o;
    }
}
