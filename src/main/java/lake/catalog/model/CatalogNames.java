package lake.catalog.model;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The catalog's input rules, checked before anything reaches the store. Every refusal names its field. */
public final class CatalogNames {
    public static final int MAX_NAME_BYTES = 255;

    private CatalogNames() {}

    /**
     * Lake's rule for namespace and table names (and other key segments): one path segment of 1 to
     * 255 UTF-8 bytes, not {@code .} or {@code ..}, none of {@code / \ ? # %}, no control characters.
     */
    public static String checkName(String field, String name) {
        if (name == null) throw invalid(field + " must be given");
        if (name.isEmpty()) throw invalid(field + " must not be empty");
        if (name.equals(".") || name.equals("..")) throw invalid(field + " must not be '" + name + "'");
        for (char c : new char[] {'/', '\\', '?', '#', '%'}) {
            if (name.indexOf(c) >= 0) throw invalid(field + " '" + name + "' must not contain '" + c + "'");
        }
        if (name.codePoints().anyMatch(CatalogNames::isControlOrSurrogate)) {
            throw invalid(field + " must not contain control characters or unpaired surrogates");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw invalid(field + " is " + bytes + " UTF-8 bytes; the maximum is " + MAX_NAME_BYTES);
        }
        return name;
    }

    public static boolean isControlOrSurrogate(int codePoint) {
        return Character.isISOControl(codePoint) || (codePoint >= 0xD800 && codePoint <= 0xDFFF);
    }

    /** Parses every {@code "name:type"}, refusing a missing list and duplicate names. */
    public static List<Column> checkColumns(List<String> specs) {
        if (specs == null) throw invalid("columns must be given (a list of \"name:type\")");
        List<Column> columns = new ArrayList<>(specs.size());
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            Column c = Column.parse(i, specs.get(i));
            Integer earlier = seen.putIfAbsent(c.name(), i);
            if (earlier != null) {
                throw invalid("columns " + earlier + " and " + i + " are both named '" + c.name() + "'; column names must be unique");
            }
            columns.add(c);
        }
        return List.copyOf(columns);
    }

    /** The engine, {@code "lance"} when not given; otherwise a name by {@link #checkName}. */
    public static String checkEngine(String engine) {
        return engine == null ? Registration.DEFAULT_ENGINE : checkName("engine", engine);
    }

    public static Map<String, String> checkProperties(String ns, Map<String, String> properties) {
        Map<String, String> copy = new LinkedHashMap<>();
        if (properties == null) return copy;
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (e.getKey() == null || e.getKey().isEmpty()) throw invalid("namespace '" + ns + "': a property name must not be empty");
            if (e.getValue() == null) throw invalid("namespace '" + ns + "': property '" + e.getKey() + "' has no value");
            if (e.getKey().equals(RETENTION_PROPERTY)) retentionMs(ns, e.getValue());
            copy.put(e.getKey(), e.getValue());
        }
        return copy;
    }

    /** The namespace property that overrides the node's {@code table_retention_ms} for the tables dropped from it. */
    public static final String RETENTION_PROPERTY = "lake.dropped-table-retention-ms";

    /** The retention a namespace's {@value #RETENTION_PROPERTY} gives: milliseconds, a decimal integer from 0. */
    public static long retentionMs(String ns, String value) {
        try {
            long ms = Long.parseLong(value);
            if (ms >= 0) return ms;
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw invalid("namespace '" + ns + "': property '" + RETENTION_PROPERTY + "' must be a whole number of milliseconds from 0, got '" + value + "'");
    }

    public static int checkLimit(int limit, int max) {
        if (limit < 1 || limit > max) throw invalid("limit must be 1 to " + max + ", got " + limit);
        return limit;
    }

    public static CatalogException.InvalidArgument invalid(String message) {
        return new CatalogException.InvalidArgument(message);
    }
}
