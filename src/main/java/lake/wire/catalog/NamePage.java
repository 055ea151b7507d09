package lake.wire.catalog;

import lake.wire.Fields;

import java.util.List;
import java.util.Map;

/**
 * A page of namespace or table names in ascending order, {@code {"namespaces":[…],"continuation"}}
 * or {@code {"names":[…],"continuation"}} ({@link Listing}); the continuation of the next page is
 * {@code null} on the last.
 */
public record NamePage(Listing listing, List<String> names, String continuation) {
    /** What the page lists, and the member its names are under. */
    public enum Listing {
        NAMESPACES("namespaces"), TABLES("names");

        public final String field;

        Listing(String field) { this.field = field; }
    }

    public NamePage {
        if (listing == null) throw new IllegalArgumentException("a name page lists namespaces or tables");
        names = List.copyOf(names);
    }

    /** A page of namespaces when it has a {@code "namespaces"} member, else of tables ({@code "names"} required). */
    public static NamePage from(Map<String, Object> o) {
        return from(o, o.containsKey(Listing.NAMESPACES.field) ? Listing.NAMESPACES : Listing.TABLES);
    }

    /** A page of the {@code listing} asked for: its member is required, the other's is not read. */
    public static NamePage from(Map<String, Object> o, Listing listing) {
        return new NamePage(listing, Fields.strings(o, listing.field), Fields.stringOrNull(o, "continuation"));
    }

    public Map<String, Object> toMap() { return Fields.of(listing.field, names, "continuation", continuation); }
}
