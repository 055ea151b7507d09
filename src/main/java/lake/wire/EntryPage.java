package lake.wire;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One page of a prefix scan, {@code {"entries":[{"key","value"}],"continuation"}}: entries in
 * ascending UTF-8 byte order of their keys, and the opaque continuation of the next page
 * ({@code null} on the last, always present), valid only with the same prefix.
 */
public record EntryPage(List<Entry> entries, String continuation) {
    public EntryPage {
        entries = List.copyOf(entries);
    }

    /** Whether another page follows. */
    public boolean hasMore() { return continuation != null; }

    public static EntryPage from(Map<String, Object> o) {
        return new EntryPage(Fields.records(o, "entries", Entry::from), Fields.stringOrNull(o, "continuation"));
    }

    public Map<String, Object> toMap() { return toMap(entries, Entry::toMap, continuation); }

    /**
     * The JSON of a page of any entries, each rendered by {@code entry} (the server's stored
     * entries with {@link Entry#toMap(String, byte[])}, whose bytes need no copy into an {@link Entry}).
     */
    public static <T> Map<String, Object> toMap(List<T> entries, Function<T, Map<String, Object>> entry, String continuation) {
        return Fields.of("entries", Fields.maps(entries, entry), "continuation", continuation);
    }
}
