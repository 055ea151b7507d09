package lake.wire.catalog;

import lake.wire.Fields;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A page of tombstones, {@code {"tombstones":[…],"continuation"}}; the continuation of the next is {@code null} on the last. */
public record TombstonePage(List<Tombstone> tombstones, String continuation) {
    public TombstonePage {
        tombstones = List.copyOf(tombstones);
    }

    public static TombstonePage from(Map<String, Object> o) {
        List<Tombstone> ts = new ArrayList<>();
        for (Map<String, Object> t : Fields.objects(o, "tombstones")) ts.add(Tombstone.from(t));
        return new TombstonePage(ts, Fields.stringOrNull(o, "continuation"));
    }

    public Map<String, Object> toMap() {
        List<Object> a = new ArrayList<>(tombstones.size());
        for (Tombstone t : tombstones) a.add(t.toMap());
        return Fields.of("tombstones", a, "continuation", continuation);
    }
}
