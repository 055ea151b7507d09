package lake.catalog.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.math.BigInteger;

/**
 * The strict JSON of the catalog's records: duplicate members and trailing data are refused,
 * fractions are kept as written (big decimals, trailing zeroes kept), objects keep their member
 * order, output is compact.
 */
public final class CatalogJson {
    static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private static final BigInteger U64_LIMIT = BigInteger.ONE.shiftLeft(64);

    private CatalogJson() {}

    /** The JSON object in {@code bytes}, or {@link CatalogException.CorruptRecord} naming {@code what}. */
    public static ObjectNode parseObject(String what, byte[] bytes) {
        JsonNode node;
        try {
            node = JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw corrupt(what, "is not valid JSON (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            throw corrupt(what, "could not be read (" + e.getMessage() + ")");
        }
        if (!(node instanceof ObjectNode object)) throw corrupt(what, "is not a JSON object");
        return object;
    }

    public static byte[] write(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    /** An unsigned 64-bit integer held in a {@code long}, or {@code null} when {@code node} is not one. */
    public static Long unsigned64(JsonNode node) {
        if (node == null || !node.isIntegralNumber()) return null;
        BigInteger v = node.bigIntegerValue();
        if (v.signum() < 0 || v.compareTo(U64_LIMIT) >= 0) return null;
        return v.longValue();
    }

    public static JsonNode unsigned64Node(long value) {
        return value >= 0 ? JSON.getNodeFactory().numberNode(value)
                : BigIntegerNode.valueOf(new BigInteger(Long.toUnsignedString(value)));
    }

    public static String text(JsonNode node) {
        return node != null && node.isTextual() ? node.textValue() : null;
    }

    public static CatalogException.CorruptRecord corrupt(String what, String problem) {
        return new CatalogException.CorruptRecord(what + " " + problem);
    }
}
