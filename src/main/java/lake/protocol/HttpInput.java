package lake.protocol;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Strict decoding of what only HTTP has: keys in paths and parameters in query strings
 * (docs/http-api.md, "Input rules"). Every refusal is an {@link ApiError#invalid} naming the
 * part of the request and what is wrong; nothing is guessed:
 * <ul>
 *   <li>percent escapes are {@code %} and two hex digits; the decoded bytes must be UTF-8
 *       (no replacement characters);</li>
 *   <li>in a path {@code +} is a plus; in a query string it is a space (form encoding), so a plus
 *       there is {@code %2B};</li>
 *   <li>query parameter names match exactly (case included), each at most once, each with
 *       {@code =}; a route without parameters refuses any query string, even an empty one.</li>
 * </ul>
 */
public final class HttpInput {
    private HttpInput() {}

    /** Decodes a key taken from a path; {@code what} names it in errors. */
    public static String pathSegment(String raw, String what) {
        return decode(raw, false, what);
    }

    /**
     * The parameters of a raw query string ({@code null} when the URI has no {@code ?}), each
     * decoded, checked against {@code allowed}.
     */
    public static Map<String, String> query(String rawQuery, Set<String> allowed) {
        Map<String, String> out = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) return out;
        for (String part : rawQuery.split("&", -1)) {
            if (part.isEmpty()) throw ApiError.invalid("query string has an empty parameter (a stray '&')");
            int eq = part.indexOf('=');
            String name = eq < 0 ? part : part.substring(0, eq);
            if (name.indexOf('%') >= 0 || name.indexOf('+') >= 0) {
                throw ApiError.invalid("query parameter name '" + name + "' is escaped; names are written literally");
            }
            if (!allowed.contains(name)) {
                String hint = allowed.stream().filter(a -> a.equalsIgnoreCase(name)).findFirst()
                        .map(a -> " (names are case-sensitive: did you mean '" + a + "'?)").orElse("");
                throw ApiError.invalid("unknown query parameter '" + name + "'" + hint + "; allowed: " + new TreeSet<>(allowed));
            }
            if (eq < 0) throw ApiError.invalid("query parameter '" + name + "' has no value (write '" + name + "=')");
            if (out.containsKey(name)) throw ApiError.invalid("query parameter '" + name + "' is given more than once");
            out.put(name, decode(part.substring(eq + 1), true, "query parameter '" + name + "'"));
        }
        return out;
    }

    /** Refuses any query string, even a bare {@code ?}: on these routes it is a key's unencoded '?'. */
    public static void noQuery(String uri, String route) {
        if (uri.indexOf('?') >= 0) {
            throw ApiError.invalid(route + " takes no query string" + (route.contains("{") ? "; a '?' in a name must be sent as %3F" : ""));
        }
    }

    /**
     * A decimal count: ASCII digits only (no sign, no other script's digits, no spaces), at most
     * {@code max}.
     */
    public static int count(String text, String what, int min, int max) {
        if (text.isEmpty() || text.length() > 9) {
            throw ApiError.invalid(what + " must be an integer from " + min + " to " + max + ", got '" + text + "'");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw ApiError.invalid(what + " must be ASCII digits only (an integer from " + min + " to " + max
                        + "), got '" + text + "'");
            }
        }
        if (text.length() > 1 && text.charAt(0) == '0') {
            throw ApiError.invalid(what + " must be written without leading zeros, got '" + text + "'");
        }
        int v = Integer.parseInt(text);
        if (v < min || v > max) throw ApiError.invalid(what + " must be between " + min + " and " + max + ", got " + v);
        return v;
    }

    /** An unsigned 64-bit decimal (ASCII digits, no leading zeros), as a revision is written. */
    public static long u64(String text, String what) {
        if (text.isEmpty() || text.length() > 20 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw ApiError.invalid(what + " must be an unsigned integer (ASCII digits), got '" + text + "'");
        }
        if (text.length() > 1 && text.charAt(0) == '0') throw ApiError.invalid(what + " must be written without leading zeros, got '" + text + "'");
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException beyond) {
            throw ApiError.invalid(what + " must be an unsigned 64-bit integer, got '" + text + "'");
        }
    }

    /** {@code true} or {@code false}, exactly. */
    public static boolean bool(String text, String what) {
        return switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiError.invalid(what + " must be true or false, got '" + text + "'");
        };
    }

    private static String decode(String raw, boolean plusIsSpace, String what) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 1 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0 || raw.charAt(i + 1) > 0x7f || raw.charAt(i + 2) > 0x7f) {
                    String seen = raw.substring(i, Math.min(raw.length(), i + 3));
                    throw ApiError.invalid(what + ": '" + seen + "' at offset " + i
                            + " is not a percent escape (% and two hex digits; a literal % is %25)");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c == '+' && plusIsSpace) {
                bytes.write(' ');
            } else if (c > 0xff) {
                throw ApiError.invalid(what + ": character at offset " + i + " is not a byte; percent-encode its UTF-8");
            } else {
                // The HTTP layer hands raw request-line bytes over as ISO-8859-1 characters.
                bytes.write(c);
            }
        }
        String decoded = lake.meta.Keys.strictUtf8(bytes.toByteArray(), 0, bytes.size());
        if (decoded == null) throw ApiError.invalid(what + " is not valid UTF-8 once percent-decoded");
        return decoded;
    }
}
