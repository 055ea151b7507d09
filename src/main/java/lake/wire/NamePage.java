package lake.wire;

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

    /** The page, listing what its one member of names says. */
    public static NamePage from(Map<String, Object> o) {
        boolean namespaces = o.containsKey(Listing.NAMESPACES.field);
        if (namespaces == o.containsKey(Listing.TABLES.field)) throw new WireException("namespaces' or 'names", o);
        Listing l = namespaces ? Listing.NAMESPACES : Listing.TABLES;
        return new NamePage(l, Fields.strings(o, l.field), Fields.stringOrNull(o, "continuation"));
    }

    public Map<String, Object> toMap() { return Fields.of(listing.field, names, "continuation", continuation); }
}
