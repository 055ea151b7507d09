package lake.wire.catalog;

import lake.wire.Fields;

import java.util.List;
import java.util.Map;

/** A page of tombstones, {@code {"tombstones":[…],"continuation"}}; the continuation of the next is {@code null} on the last. */
public record TombstonePage(List<Tombstone> tombstones, String continuation) {
    public TombstonePage {
        tombstones = List.copyOf(tombstones);
    }

    public static TombstonePage from(Map<String, Object> o) {
        return new TombstonePage(Fields.records(o, "tombstones", Tombstone::from), Fields.stringOrNull(o, "continuation"));
    }

    public Map<String, Object> toMap() {
        return Fields.of("tombstones", Fields.maps(tombstones, Tombstone::toMap), "continuation", continuation);
    }
}
