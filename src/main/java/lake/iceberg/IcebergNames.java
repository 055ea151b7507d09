package lake.iceberg;

import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

import java.nio.charset.StandardCharsets;

/**
 * How Iceberg's names map onto the catalog's single-segment names, without ambiguity.
 *
 * <p>A namespace of levels {@code [l1, …, ln]} is the catalog namespace {@code e(l1).….e(ln)}:
 * levels joined by {@code .}, each level escaped by {@code e}, which writes {@code ~XX} (two
 * upper-case hex digits of the UTF-8 byte) for {@code ~ . / \ ? # %} and every control character
 * and keeps every other character. A level therefore never contains a bare {@code .}, so
 * splitting at {@code .} and unescaping gives back exactly the levels: {@code ["new.db"]} is
 * {@code new~2Edb}, {@code ["new","db"]} is {@code new.db}. Table and view names are escaped the
 * same way except that {@code .} is kept ({@code "a.b"} stays {@code a.b}): a table name is one
 * segment already. Names a user writes without those characters appear unchanged in lake.
 */
public final class IcebergNames {
    private static final String SPECIAL = "~./\\?#%";
    private static final String SPECIAL_IN_NAME = "~/\\?#%";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private IcebergNames() {}

    /** The catalog namespace of {@code ns}; {@link IllegalArgumentException} for the empty namespace or an empty level. */
    public static String namespace(Namespace ns) {
        if (ns == null || ns.isEmpty()) throw new IllegalArgumentException("Invalid namespace: the empty namespace holds no tables");
        StringBuilder out = new StringBuilder();
        for (String level : ns.levels()) {
            if (level == null || level.isEmpty()) throw new IllegalArgumentException("Invalid namespace " + ns + ": a level is empty");
            if (out.length() > 0) out.append('.');
            escape(level, SPECIAL, out);
        }
        return out.toString();
    }

    /** The Iceberg namespace of catalog namespace {@code name} (the inverse of {@link #namespace(Namespace)}). */
    public static Namespace fromCatalog(String name) {
        String[] parts = name.split("\\.", -1);
        String[] levels = new String[parts.length];
        for (int i = 0; i < parts.length; i++) levels[i] = unescape(parts[i]);
        return Namespace.of(levels);
    }

    /** The catalog name of a table or view. */
    public static String name(String name) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("Invalid table name: empty");
        StringBuilder out = new StringBuilder();
        escape(name, SPECIAL_IN_NAME, out);
        String escaped = out.toString();
        // "." and ".." are not names in the catalog; "~2E" / "~2E~2E" are theirs.
        return escaped.equals(".") ? "~2E" : escaped.equals("..") ? "~2E~2E" : escaped;
    }

    /** The Iceberg name of catalog table name {@code name}. */
    public static String nameFromCatalog(String name) {
        return unescape(name);
    }

    public static TableIdentifier identifier(String catalogNamespace, String catalogName) {
        return TableIdentifier.of(fromCatalog(catalogNamespace), nameFromCatalog(catalogName));
    }

    private static void escape(String s, String special, StringBuilder out) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (special.indexOf(c) >= 0 || Character.isISOControl(c)) {
                for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                    out.append('~').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
                }
            } else {
                out.append(c);
            }
        }
    }

    /**
     * Whether catalog namespace {@code name} is one an Iceberg namespace maps to. A namespace made
     * through lake's own API may hold a {@code ~} that is no escape of ours ({@code tmp~old}) or a
     * non-canonical one ({@code a~41}); the Iceberg API cannot address it, so its listings leave
     * it out rather than show a name that would lead elsewhere.
     */
    public static boolean addressable(String name) {
        try {
            return namespace(fromCatalog(name)).equals(name);
        } catch (IllegalArgumentException notOurs) {
            return false;
        }
    }

    /** Whether catalog table name {@code name} is one an Iceberg name maps to (as {@link #addressable}). */
    public static boolean addressableName(String name) {
        try {
            return name(nameFromCatalog(name)).equals(name);
        } catch (IllegalArgumentException notOurs) {
            return false;
        }
    }

    private static boolean hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
    }

    /** {@code ~XX} with two hex digits is one byte; any other {@code ~} is itself (never a failure). */
    private static String unescape(String s) {
        if (s.indexOf('~') < 0) return s;
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '~' && i + 2 < s.length() && hex(s.charAt(i + 1)) && hex(s.charAt(i + 2))) {
                bytes.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 3;
            } else {
                if (bytes.size() > 0) {
                    out.append(bytes.toString(StandardCharsets.UTF_8));
                    bytes.reset();
                }
                out.append(c);
                i++;
            }
        }
        if (bytes.size() > 0) out.append(bytes.toString(StandardCharsets.UTF_8));
        return out.toString();
    }
}
