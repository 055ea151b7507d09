package lake.election;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The lease record stored at the election key, in the original implementation's JSON format:
 * {@code {"holder":"<node id>","expires_at_ms":<u64>,"epoch":<u64>}}.
 *
 * <p>Compatibility rules: a record without {@code epoch} reads as epoch 0 (legacy); unknown fields
 * are ignored on read and not carried into records this node writes. {@code expires_at_ms} and
 * {@code epoch} are unsigned 64-bit values held in {@code long}s (see {@link Epochs}). Anything
 * else (not a JSON object, a missing or non-string holder, a negative, fractional, oversized or
 * null number, duplicate fields, trailing data) is {@link ElectionException.LeaseRecordCorrupt}:
 * guessing a holder or epoch from damaged bytes could hand out an epoch twice.
 */
public record LeaseRecord(String holder, long expiresAtMs, long epoch) {

    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);

    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    public LeaseRecord {
        if (holder == null || holder.isEmpty()) {
            throw new IllegalArgumentException("a lease record's holder must be a non-empty node id");
        }
    }

    /**
     * Reads a stored record.
     *
     * @throws ElectionException.LeaseRecordCorrupt when the bytes are not a lease record
     */
    public static LeaseRecord decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (IOException e) {
            throw corrupt("is not JSON: " + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
        if (root == null || !root.isObject()) throw corrupt("is not a JSON object", null);
        JsonNode holder = root.get("holder");
        if (holder == null || !holder.isTextual() || holder.textValue().isEmpty()) {
            throw corrupt("has no non-empty string 'holder'", null);
        }
        JsonNode expires = root.get("expires_at_ms");
        if (expires == null) throw corrupt("has no 'expires_at_ms'", null);
        JsonNode epoch = root.get("epoch");
        return new LeaseRecord(holder.textValue(), u64(expires, "expires_at_ms"),
                epoch == null ? Epochs.LEGACY : u64(epoch, "epoch"));
    }

    /** The canonical encoding; always carries {@code epoch}, so it never reads back as legacy unless it is 0. */
    public byte[] encode() {
        String quotedHolder;
        try {
            quotedHolder = JSON.writeValueAsString(holder);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a String always serialises", e);
        }
        return ("{\"holder\":" + quotedHolder
                + ",\"expires_at_ms\":" + Long.toUnsignedString(expiresAtMs)
                + ",\"epoch\":" + Epochs.toString(epoch) + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** True when the lease no longer protects its holder: {@code expires_at_ms <= nowMs}, compared unsigned. */
    public boolean expiredAt(long nowMs) {
        return Long.compareUnsigned(expiresAtMs, nowMs) <= 0;
    }

    @Override
    public String toString() {
        return "LeaseRecord[holder=" + holder + ", expires_at_ms=" + Long.toUnsignedString(expiresAtMs)
                + ", epoch=" + Epochs.toString(epoch) + "]";
    }

    private static long u64(JsonNode node, String field) {
        if (!node.isIntegralNumber()) throw corrupt("field '" + field + "' is not an unsigned integer: " + node, null);
        BigInteger value = node.bigIntegerValue();
        if (value.signum() < 0 || value.compareTo(U64_LIMIT) >= 0) {
            throw corrupt("field '" + field + "' is outside 0..2^64-1: " + value, null);
        }
        return value.longValue(); // the low 64 bits: the unsigned value's bit pattern
    }

    private static ElectionException.LeaseRecordCorrupt corrupt(String why, Throwable cause) {
        return new ElectionException.LeaseRecordCorrupt("lease record " + why, cause);
    }
}
