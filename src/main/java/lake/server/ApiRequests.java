package lake.server;

import io.vertx.core.json.JsonObject;
import lake.meta.Keys;
import lake.metasrv.ClientMutation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Base64;
import java.util.Set;

/**
 * Strict parsing of API request bodies, shared by HTTP and the event bus: unknown fields, missing
 * fields, wrong types and bad base64 are refused with a message naming the field.
 */
public final class ApiRequests {
    private ApiRequests() {}

    public static final int MAX_SCAN_LIMIT = 1000;
    public static final int DEFAULT_SCAN_LIMIT = 100;
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    public static ClientMutation cas(JsonObject body, Long headerEpoch) {
        body = object(body);
        allowOnly(body, Set.of("key", "expected", "value", "epoch"));
        String key = string(body, "key");
        if (!body.containsKey("expected")) throw ApiError.invalid("missing field 'expected' (null means the key must be absent)");
        byte[] expected = body.getValue("expected") == null ? null : bytes(body, "expected");
        byte[] value = bytes(body, "value");
        return ClientMutation.cas(key, expected, value, epoch(body, headerEpoch));
    }

    public static ClientMutation delete(JsonObject body, Long headerEpoch) {
        body = object(body);
        allowOnly(body, Set.of("key", "expected", "epoch"));
        return ClientMutation.delete(string(body, "key"), bytes(body, "expected"), epoch(body, headerEpoch));
    }

    public static String key(JsonObject body) {
        body = object(body);
        allowOnly(body, Set.of("key"));
        String key = string(body, "key");
        Keys.validateKey(key);
        return key;
    }

    public record Scan(String prefix, String continuation, int limit) {}

    public static Scan scan(JsonObject body) {
        body = object(body);
        allowOnly(body, Set.of("prefix", "continuation", "limit"));
        String prefix = body.getValue("prefix") == null ? "" : string(body, "prefix");
        String continuation = body.getValue("continuation") == null ? null : string(body, "continuation");
        int limit = DEFAULT_SCAN_LIMIT;
        if (body.getValue("limit") != null) {
            Object l = body.getValue("limit");
            if (!(l instanceof Integer || l instanceof Long)) throw ApiError.invalid("field 'limit' must be an integer");
            long v = ((Number) l).longValue();
            if (v < 1 || v > MAX_SCAN_LIMIT) {
                throw ApiError.invalid("field 'limit' must be between 1 and " + MAX_SCAN_LIMIT + ", got " + v);
            }
            limit = (int) v;
        }
        return new Scan(prefix, continuation, limit);
    }

    /** An unsigned 64-bit value as a JSON number: a Long below 2^63, a BigInteger above. */
    public static Object u64(long v) {
        return v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
    }

    /** Parses an unsigned 64-bit epoch as sent in a header. */
    public static Long headerEpoch(String header) {
        if (header == null) return null;
        try {
            return Long.parseUnsignedLong(header.trim());
        } catch (NumberFormatException e) {
            throw ApiError.invalid("header " + Bus.EPOCH_HEADER + " must be an unsigned 64-bit integer, got '" + header + "'");
        }
    }

    private static JsonObject object(JsonObject body) {
        if (body == null) throw ApiError.invalid("request body must be a JSON object");
        return body;
    }

    private static void allowOnly(JsonObject body, Set<String> allowed) {
        for (String field : body.fieldNames()) {
            if (!allowed.contains(field)) throw ApiError.invalid("unknown field '" + field + "'; allowed: " + allowed);
        }
    }

    private static String string(JsonObject body, String field) {
        Object v = body.getValue(field);
        if (v == null) throw ApiError.invalid("missing field '" + field + "'");
        if (!(v instanceof String s)) throw ApiError.invalid("field '" + field + "' must be a string");
        return s;
    }

    private static byte[] bytes(JsonObject body, String field) {
        String s = string(body, field);
        // base64 expands 3 bytes to 4 characters: refuse oversized values before decoding them.
        if ((long) s.length() * 3 / 4 > Keys.MAX_VALUE_BYTES + 2) {
            throw ApiError.tooLarge("field '" + field + "' exceeds " + Keys.MAX_VALUE_BYTES + " bytes");
        }
        byte[] out;
        try {
            out = Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("field '" + field + "' is not valid base64: " + e.getMessage());
        }
        if (out.length > Keys.MAX_VALUE_BYTES) {
            throw ApiError.tooLarge("field '" + field + "' is " + out.length + " bytes; the maximum is " + Keys.MAX_VALUE_BYTES);
        }
        return out;
    }

    private static Long epoch(JsonObject body, Long headerEpoch) {
        Object v = body.getValue("epoch");
        if (v == null) return headerEpoch;
        BigInteger e;
        if (v instanceof Integer || v instanceof Long) e = BigInteger.valueOf(((Number) v).longValue());
        else if (v instanceof BigInteger b) e = b;
        else if (v instanceof BigDecimal d && d.scale() <= 0) e = d.toBigInteger();
        else throw ApiError.invalid("field 'epoch' must be an unsigned integer");
        if (e.signum() < 0 || e.compareTo(U64_MAX) > 0) throw ApiError.invalid("field 'epoch' must be an unsigned 64-bit integer");
        long epoch = e.longValue();
        if (headerEpoch != null && headerEpoch != epoch) {
            throw ApiError.invalid("field 'epoch' and header " + Bus.EPOCH_HEADER + " disagree");
        }
        return epoch;
    }
}
