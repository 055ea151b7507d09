package lake.meta;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/** The input rules every backend enforces identically, before touching its store. */
public final class Keys {
    public static final int MAX_KEY_BYTES = 1024;
    public static final int MAX_VALUE_BYTES = 256 * 1024;

    /** The order every scan returns keys in: ascending unsigned UTF-8 bytes (RocksDB's and DynamoDB's). */
    public static final Comparator<String> UTF8_ORDER = (a, b) -> Arrays.compareUnsigned(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    private Keys() {}

    /** Returns the key's UTF-8 bytes after checking it is non-empty, at most 1,024 bytes, without NUL. */
    public static byte[] validateKey(String key) {
        return validateKey("key", key);
    }

    static byte[] validateKey(String what, String key) {
        if (key == null) throw new MetaException.InvalidArgument(what + " must not be null");
        if (key.isEmpty()) throw new MetaException.InvalidArgument(what + " must not be empty");
        return checkedBytes(what, key);
    }

    /** A scan prefix follows the key rules except that it may be empty (scan everything). */
    public static byte[] validatePrefix(String prefix) {
        if (prefix == null) throw new MetaException.InvalidArgument("prefix must not be null");
        return checkedBytes("prefix", prefix);
    }

    /** Checks a value to store (non-null, at most 256 KiB); an empty value is allowed. */
    public static void validateValue(String what, byte[] value) {
        if (value == null) throw new MetaException.InvalidArgument(what + " must not be null");
        if (value.length > MAX_VALUE_BYTES) {
            throw new MetaException.InvalidArgument(what + " is " + value.length
                    + " bytes; the maximum is " + MAX_VALUE_BYTES);
        }
    }

    /** Checks an expected value, where {@code null} means "absent". */
    public static void validateExpected(String what, byte[] expected) {
        if (expected != null) validateValue(what, expected);
    }

    /**
     * {@code length} bytes from {@code offset} as a string, or {@code null} when they are not
     * valid UTF-8: malformed or truncated sequences are refused, never replaced by U+FFFD.
     */
    public static String strictUtf8(byte[] bytes, int offset, int length) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes, offset, length)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    public static void validateLimit(int limit) {
        if (limit < 1) throw new MetaException.InvalidArgument("limit must be at least 1, got " + limit);
    }

    private static byte[] checkedBytes(String what, String s) {
        if (s.indexOf('\0') >= 0) throw new MetaException.InvalidArgument(what + " must not contain NUL");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) { i++; continue; }
                throw new MetaException.InvalidArgument(what + " is not valid UTF-8 (unpaired surrogate at " + i + ")");
            }
            if (Character.isLowSurrogate(c)) {
                throw new MetaException.InvalidArgument(what + " is not valid UTF-8 (unpaired surrogate at " + i + ")");
            }
        }
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_KEY_BYTES) {
            throw new MetaException.InvalidArgument(what + " is " + bytes.length
                    + " UTF-8 bytes; the maximum is " + MAX_KEY_BYTES);
        }
        return bytes;
    }
}
