package lake.catalog.model;

import java.util.List;

/** One page of tombstones in key order, with the continuation of the next page, {@code null} at the end. */
public record TombstonePage(List<Tombstone> tombstones, String continuation) {
    public TombstonePage {
        tombstones = List.copyOf(tombstones);
    }
}
