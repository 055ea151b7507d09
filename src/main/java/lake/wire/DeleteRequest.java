package lake.wire;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * {@code POST /v1/kv/delete}, {@code {"key","expected","epoch"?}}: delete the key only if it
 * holds exactly {@code expected} (base64; copied in and out). {@code epoch} as in {@link CasRequest}.
 */
public record DeleteRequest(String key, byte[] expected, Long epoch) {
    public DeleteRequest {
        expected = expected.clone();
    }

    @Override public byte[] expected() { return expected.clone(); }

    public static DeleteRequest from(Map<String, Object> o) {
        return new DeleteRequest(Fields.string(o, "key"), Fields.bytes(o, "expected"), Fields.u64OrNull(o, "epoch"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("key", key, "expected", Fields.base64(expected));
        if (epoch != null) o.put("epoch", Fields.u64Value(epoch));
        return o;
    }

    @Override public boolean equals(Object o) {
        return o instanceof DeleteRequest r && key.equals(r.key) && Arrays.equals(expected, r.expected) && Objects.equals(epoch, r.epoch);
    }
    @Override public int hashCode() { return Objects.hash(key, Arrays.hashCode(expected), epoch); }
    @Override public String toString() { return "DeleteRequest[" + key + "]"; }
}
