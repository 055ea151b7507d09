package lake.iceberg.rest;

import lake.iceberg.IcebergNames;
import lake.security.CatalogAccess;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.responses.ListNamespacesResponse;
import org.apache.iceberg.rest.responses.ListTablesResponse;

import java.util.List;
import java.util.Map;

/**
 * Listings as a caller with grants may see them: filtered, never refused, decided in memory per
 * entry, and paged over what the caller sees (never over the whole listing, whose positions would
 * reveal how many hidden objects lie between two visible ones). A page token is the offset into
 * the caller's own filtered listing.
 */
final class Listings {
    private Listings() {}

    /** The child namespaces of a listing the caller may see: those that hold or lie above something granted to it. */
    static ListNamespacesResponse namespaces(List<Namespace> all, CatalogAccess access, Map<String, String> query) {
        List<Namespace> seen = all.stream().filter(ns -> access.seesNamespace(IcebergNames.namespace(ns))).toList();
        Page p = page(seen.size(), query);
        return ListNamespacesResponse.builder().addAll(seen.subList(p.from(), p.to())).nextPageToken(p.next()).build();
    }

    /** The tables or views of namespace {@code ns} the caller may read. */
    static ListTablesResponse tables(List<TableIdentifier> all, Namespace ns, CatalogAccess access, Map<String, String> query) {
        String catalogNs = IcebergNames.namespace(ns);
        List<TableIdentifier> seen = all.stream().filter(id -> access.reads(catalogNs, IcebergNames.name(id.name()))).toList();
        Page p = page(seen.size(), query);
        return ListTablesResponse.builder().addAll(seen.subList(p.from(), p.to())).nextPageToken(p.next()).build();
    }

    private record Page(int from, int to, String next) {}

    /** The page {@code pageToken}/{@code pageSize} asks for, of {@code size} entries; every entry without {@code pageSize}. */
    private static Page page(int size, Map<String, String> query) {
        String sizeParam = query.get("pageSize");
        if (sizeParam == null) return new Page(0, size, null);
        int pageSize = Integer.parseInt(sizeParam); // checked positive by the router
        int from = 0;
        String token = query.get("pageToken");
        if (token != null && !token.isEmpty()) {
            try {
                from = Integer.parseInt(token);
                if (from < 0 || from > size) throw new NumberFormatException();
            } catch (NumberFormatException e) {
                throw new org.apache.iceberg.exceptions.BadRequestException("Invalid pageToken: %s", token);
            }
        }
        int to = (int) Math.min(size, (long) from + pageSize);
        return new Page(from, to, to < size ? Integer.toString(to) : null);
    }
}
