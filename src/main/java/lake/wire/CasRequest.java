package lake.wire;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * {@code POST /v1/kv/cas}, {@code {"key","expected","value","epoch"?}}: write {@code value} if
 * the key holds exactly {@code expected} — {@code null}, sent as JSON {@code null}, means it must
 * be absent. {@code epoch} (unsigned 64-bit; {@code null}, left out: none) is the epoch the write
 * must be decided under. Bytes are base64 and copied in and out.
 */
public record CasRequest(String key, byte[] expected, byte[] value, Long epoch) {
    public CasRequest {
        expected = expected == null ? null : expected.clone();
        value = value.clone();
    }

    @Override public byte[] expected() { return expected == null ? null : expected.clone(); }
    @Override public byte[] value() { return value.clone(); }

    public static CasRequest from(Map<String, Object> o) {
        if (!o.containsKey("expected")) throw new WireException("expected", o);
        byte[] expected = o.get("expected") == null ? null : Fields.bytes(o, "expected");
        return new CasRequest(Fields.string(o, "key"), expected, Fields.bytes(o, "value"), Fields.u64OrNull(o, "epoch"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("key", key, "expected", expected == null ? null : Fields.base64(expected),
                "value", Fields.base64(value));
        if (epoch != null) o.put("epoch", Fields.u64Value(epoch));
        return o;
    }

    @Override public boolean equals(Object o) {
        return o instanceof CasRequest r && key.equals(r.key) && Arrays.equals(expected, r.expected) && Arrays.equals(value, r.value)
                && Objects.equals(epoch, r.epoch);
    }
    @Override public int hashCode() { return Objects.hash(key, Arrays.hashCode(expected), Arrays.hashCode(value), epoch); }
    @Override public String toString() { return "CasRequest[" + key + "]"; }
}
