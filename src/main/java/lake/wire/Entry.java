package lake.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * A key and its value, exact bytes (copied in and out): {@code {"key","value": base64}}, the
 * answer to a get and one entry of a scan page. {@link #valueUtf8()} reads the value as text.
 */
public record Entry(String key, byte[] value) {
    public Entry {
        if (key == null) throw new IllegalArgumentException("an entry has a key");
        value = value.clone();
    }

    @Override public byte[] value() { return value.clone(); }

    /** The value as UTF-8 text (malformed bytes become U+FFFD; use {@link #value()} for binary values). */
    public String valueUtf8() { return new String(value, StandardCharsets.UTF_8); }

    public static Entry from(Map<String, Object> o) {
        return new Entry(Fields.string(o, "key"), Fields.bytes(o, "value"));
    }

    public Map<String, Object> toMap() { return toMap(key, value); }

    /**
     * The JSON of an entry without making one: a reply built per request needs no defensive copy
     * of bytes it only encodes ({@code value} is read, not kept).
     */
    public static Map<String, Object> toMap(String key, byte[] value) {
        return Fields.of("key", key, "value", Fields.base64(value));
    }

    @Override public boolean equals(Object o) { return o instanceof Entry e && key.equals(e.key) && Arrays.equals(value, e.value); }
    @Override public int hashCode() { return key.hashCode() * 31 + Arrays.hashCode(value); }
    @Override public String toString() { return "Entry[" + key + ", " + value.length + " bytes]"; }
}
