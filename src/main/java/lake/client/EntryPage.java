package lake.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One page of a prefix scan: entries in ascending UTF-8 byte order of their keys, and the opaque
 * continuation of the next page ({@code null} on the last), valid only with the same prefix.
 */
public record EntryPage(List<Entry> entries, String continuation) {
    public EntryPage {
        entries = List.copyOf(entries);
    }

    /** Whether another page follows. */
    public boolean hasMore() { return continuation != null; }

    /** The API's JSON: {@code {"entries":[…],"continuation"}}. */
    public String toJson() {
        List<Object> a = new ArrayList<>();
        for (Entry e : entries) a.add(e.toMap());
        return Json.write(Json.object("entries", a, "continuation", continuation));
    }

    static EntryPage from(Map<String, Object> o) {
        List<Entry> entries = new ArrayList<>();
        for (Map<String, Object> e : Json.objects(o, "entries")) entries.add(Entry.from(e));
        return new EntryPage(entries, Json.stringOrNull(o, "continuation"));
    }
}
