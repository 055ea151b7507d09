package lake.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The answer to a CAS, delete or transaction. {@code applied == false} means the condition did not
 * hold and nothing was written; for a transaction, {@link #failed()} names every operation whose
 * condition failed (ascending indexes into {@link Txn#ops()}). {@link #epoch()} is the unsigned
 * 64-bit fencing epoch the write was decided under.
 */
public record WriteResult(boolean applied, long epoch, List<Integer> failed) {
    public WriteResult {
        failed = List.copyOf(failed);
    }

    /** The API's JSON: {@code {"applied","failed"?,"epoch"}}. */
    public String toJson() {
        Map<String, Object> o = Json.object("applied", applied);
        if (!failed.isEmpty()) o.put("failed", failed);
        o.put("epoch", Json.u64Value(epoch));
        return Json.write(o);
    }

    static WriteResult from(Map<String, Object> o) {
        List<Integer> failed = new ArrayList<>();
        if (o.get("failed") != null) {
            for (Object i : Json.array(o, "failed")) {
                if (!(i instanceof Long n)) throw Json.bad("failed", o);
                failed.add(n.intValue());
            }
        }
        return new WriteResult(Json.bool(o, "applied"), Json.u64(o, "epoch"), failed);
    }
}
