package lake.iceberg.rest;

import lake.iceberg.IcebergNames;
import lake.security.CatalogAccess;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.responses.ListNamespacesResponse;
import org.apache.iceberg.rest.responses.ListTablesResponse;

import java.util.ArrayList;
import java.util.List;

/**
 * Listings as a caller with grants may see them: filtered, never refused, decided in memory per
 * entry. A page keeps its continuation token, so a filtered page may be short or empty while more
 * follow (the spec's clients page on until there is no token).
 */
final class Listings {
    private Listings() {}

    static ListNamespacesResponse namespaces(ListNamespacesResponse page, CatalogAccess access) {
        if (access.unrestricted()) return page;
        List<Namespace> seen = new ArrayList<>();
        for (Namespace ns : page.namespaces()) if (access.seesNamespace(IcebergNames.namespace(ns))) seen.add(ns);
        return ListNamespacesResponse.builder().addAll(seen).nextPageToken(page.nextPageToken()).build();
    }

    /** Tables or views of namespace {@code ns}: all of them when a grant covers the namespace, else those granted one by one. */
    static ListTablesResponse tables(ListTablesResponse page, Namespace ns, CatalogAccess access) {
        String catalogNs = IcebergNames.namespace(ns);
        if (access.seesAllIn(catalogNs)) return page;
        List<TableIdentifier> seen = new ArrayList<>();
        for (TableIdentifier id : page.identifiers()) if (access.sees(catalogNs, IcebergNames.name(id.name()))) seen.add(id);
        return ListTablesResponse.builder().addAll(seen).nextPageToken(page.nextPageToken()).build();
    }
}
