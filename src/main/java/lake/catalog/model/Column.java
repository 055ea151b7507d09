package lake.catalog.model;

import java.util.Set;

/** One column of a table: a non-empty name and one of lake's types {@code i64 f64 utf8 bool file}. */
public record Column(String name, String type) {
    public static final Set<String> TYPES = Set.of("i64", "f64", "utf8", "bool", "file");

    public Column {
        if (name == null || type == null) throw new IllegalArgumentException("a column has a name and a type");
    }

    /**
     * Parses the input form {@code "name:type"} (split at the first {@code :}) of the column at
     * {@code index}, refusing an empty name, a name with control characters or an unknown type.
     */
    public static Column parse(int index, String spec) {
        String field = "column " + index;
        if (spec == null) throw new CatalogException.InvalidArgument(field + " must not be null");
        int colon = spec.indexOf(':');
        if (colon < 0) {
            throw new CatalogException.InvalidArgument(field + " '" + spec + "' is not of the form name:type");
        }
        String name = spec.substring(0, colon);
        String type = spec.substring(colon + 1);
        if (name.isEmpty()) throw new CatalogException.InvalidArgument(field + " '" + spec + "' has an empty name");
        if (name.codePoints().anyMatch(CatalogNames::isControlOrSurrogate)) {
            throw new CatalogException.InvalidArgument(field + " name contains a control character or an unpaired surrogate");
        }
        if (!TYPES.contains(type)) {
            throw new CatalogException.InvalidArgument(field + " '" + name + "' has unknown type '" + type
                    + "'; the types are i64, f64, utf8, bool, file");
        }
        return new Column(name, type);
    }
}
