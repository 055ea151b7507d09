package lake.client;

import java.util.ArrayList;
import java.util.List;

/** A page of tombstones and the continuation of the next ({@code null} on the last). */
public record TombstonePage(List<Tombstone> tombstones, String continuation) {
    public TombstonePage {
        tombstones = List.copyOf(tombstones);
    }

    /** The API's JSON. */
    public String toJson() {
        List<Object> a = new ArrayList<>();
        for (Tombstone t : tombstones) a.add(t.toMap());
        return Json.write(Json.object("tombstones", a, "continuation", continuation));
    }
}
