package lake.storage;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Which object keys (or file paths) under a table's location name only what they seem to, for
 * the signer and the purge: no backslash or control character, no empty, {@code .} or {@code ..}
 * segment — read as S3 reads the key, and read once more as if some layer decoded its
 * percent-escapes again. A {@code %} alone is an ordinary character in a key (Iceberg's
 * partition paths hold them: {@code city=M%C3%BCnchen}); an escape that a second decoding turns
 * into a separator or a dot segment is refused.
 */
public final class ObjectKeys {
    private ObjectKeys() {}

    /**
     * Why {@code rest} (a key or path below a location, after the location's '/') is refused, or
     * empty when it is not. It may end in '/' (a listing's prefix).
     */
    public static Optional<String> problem(String rest) {
        Optional<String> asIs = segments(rest);
        if (asIs.isPresent()) return asIs;
        if (rest.indexOf('%') < 0) return Optional.empty();
        return segments(decodedAgain(rest)).map(p -> p + " if decoded again (encoded twice)");
    }

    private static Optional<String> segments(String rest) {
        if (rest.indexOf('\\') >= 0 || rest.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) return Optional.of("has a backslash or control character");
        String[] segments = rest.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            if (s.equals(".") || s.equals("..") || (s.isEmpty() && i < segments.length - 1)) return Optional.of("has an empty or dot segment");
        }
        return Optional.empty();
    }

    /** {@code s} with each well-formed {@code %XX} decoded (UTF-8), the rest as it is. */
    static String decodedAgain(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); ) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length() && hex(s.charAt(i + 1)) >= 0 && hex(s.charAt(i + 2)) >= 0) {
                out.write(hex(s.charAt(i + 1)) * 16 + hex(s.charAt(i + 2)));
                i += 3;
            } else {
                int cp = s.codePointAt(i);
                byte[] b = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
                i += Character.charCount(cp);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
