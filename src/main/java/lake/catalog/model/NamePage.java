package lake.catalog.model;

import java.util.List;

/** One page of names (namespaces or tables, not keys), with the continuation of the next page, {@code null} at the end. */
public record NamePage(List<String> names, String continuation) {
    public NamePage {
        names = List.copyOf(names);
    }
}
