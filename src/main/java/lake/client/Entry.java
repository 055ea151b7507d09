package lake.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/** A key and its value, exact bytes (copied in and out). {@link #valueUtf8()} reads them as text. */
public record Entry(String key, byte[] value) {
    public Entry {
        value = value.clone();
    }

    @Override public byte[] value() { return value.clone(); }

    /** The value as UTF-8 text (malformed bytes become U+FFFD; use {@link #value()} for binary values). */
    public String valueUtf8() { return new String(value, StandardCharsets.UTF_8); }

    /** The API's JSON: {@code {"key","value": base64}}. */
    public String toJson() { return Json.write(toMap()); }

    Map<String, Object> toMap() { return Json.object("key", key, "value", Txn.b64(value)); }

    static Entry from(Map<String, Object> o) { return new Entry(Json.string(o, "key"), Json.bytes(o, "value")); }

    @Override public boolean equals(Object o) { return o instanceof Entry e && key.equals(e.key) && Arrays.equals(value, e.value); }
    @Override public int hashCode() { return key.hashCode() * 31 + Arrays.hashCode(value); }
    @Override public String toString() { return "Entry[" + key + ", " + value.length + " bytes]"; }
}
