package lake.catalog.model;

import java.util.List;

/** The answer to a snapshot request: nothing changed since the known generation, or the whole directory. */
public sealed interface CatalogSnapshot {
    /** The directory generation, {@code null} while the catalog has never seen a create or drop. */
    String generation();

    /** The known generation is still current: no table or namespace was created or dropped since. */
    record NotModified(String generation) implements CatalogSnapshot {}

    /** Every table that existed at {@code generation}, in key order (namespace, then name). */
    record Snapshot(String generation, List<Table> tables) implements CatalogSnapshot {
        public Snapshot {
            tables = List.copyOf(tables);
        }
    }
}
