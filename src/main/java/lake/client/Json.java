package lake.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON for the client: plain maps and lists over jackson-core's streaming parser and generator.
 * Deliberately not Vert.x's {@code JsonObject}: its first use builds a databind {@code ObjectMapper},
 * which costs a command-line call hundreds of milliseconds. Objects are {@code LinkedHashMap}s
 * (member order kept), arrays {@code ArrayList}s, integers {@code Long} or {@code BigInteger}.
 * Readers fail with {@link MetasrvException.ServerError} naming the field, never a raw NPE or
 * ClassCastException.
 */
final class Json {
    private Json() {}

    private static final JsonFactory FACTORY = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** Parses JSON text that must be one object. */
    static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (v instanceof Map<?, ?> m) return cast(m);
        throw new IllegalArgumentException("expected a JSON object");
    }

    /** Parses one JSON value; throws {@link IllegalArgumentException} if the text is not exactly that. */
    static Object parse(String text) {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) throw new IllegalArgumentException("empty JSON");
            Object v = read(p, t);
            if (p.nextToken() != null) throw new IllegalArgumentException("trailing data after the JSON value");
            return v;
        } catch (IOException e) {
            throw new IllegalArgumentException(e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage(), e);
        }
    }


    private static Object read(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    m.put(name, read(p, p.nextToken()));
                }
                return m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                JsonToken n;
                while ((n = p.nextToken()) != JsonToken.END_ARRAY) l.add(read(p, n));
                return l;
            }
            case VALUE_STRING -> { return p.getText(); }
            case VALUE_NUMBER_INT -> {
                return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue() : (Object) p.getLongValue();
            }
            case VALUE_NUMBER_FLOAT -> { return p.getDoubleValue(); }
            case VALUE_TRUE -> { return Boolean.TRUE; }
            case VALUE_FALSE -> { return Boolean.FALSE; }
            case VALUE_NULL -> { return null; }
            default -> throw new IllegalArgumentException("unexpected JSON token " + t);
        }
    }

    /** Compact JSON text of maps, lists, strings, numbers, booleans and nulls. */
    static String write(Object value) {
        return write(value, false);
    }

    /** JSON text, indented when {@code pretty}. */
    static String write(Object value, boolean pretty) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            if (pretty) g.useDefaultPrettyPrinter();
            write(g, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void write(JsonGenerator g, Object v) throws IOException {
        if (v == null) g.writeNull();
        else if (v instanceof String s) g.writeString(s);
        else if (v instanceof Boolean b) g.writeBoolean(b);
        else if (v instanceof Integer i) g.writeNumber(i);
        else if (v instanceof Long l) g.writeNumber(l);
        else if (v instanceof BigInteger b) g.writeNumber(b);
        else if (v instanceof Double d) g.writeNumber(d);
        else if (v instanceof Map<?, ?> m) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof List<?> l) {
            g.writeStartArray();
            for (Object o : l) write(g, o);
            g.writeEndArray();
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass().getName() + " as JSON");
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> cast(Map<?, ?> m) {
        return (Map<String, Object>) m;
    }

    /** A new ordered object from alternating names and values. */
    static Map<String, Object> object(Object... namesAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) m.put((String) namesAndValues[i], namesAndValues[i + 1]);
        return m;
    }

    /** {@code o} without its null members (optional request fields left out rather than sent as null). */
    static Map<String, Object> withoutNulls(Map<String, Object> o) {
        o.values().removeIf(java.util.Objects::isNull);
        return o;
    }

    static MetasrvException bad(String field, Map<String, Object> reply) {
        return new MetasrvException.ServerError("unexpected_reply", 0, "the reply has no valid '" + field + "': " + write(reply));
    }

    static String string(Map<String, Object> o, String field) {
        if (o.get(field) instanceof String s) return s;
        throw bad(field, o);
    }

    static String stringOrNull(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v == null || v instanceof String) return (String) v;
        throw bad(field, o);
    }

    static boolean bool(Map<String, Object> o, String field) {
        if (o.get(field) instanceof Boolean b) return b;
        throw bad(field, o);
    }

    /** An unsigned 64-bit number (a JSON integer from 0 to 2^64-1). */
    static long u64(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v instanceof Long || v instanceof BigInteger) {
            try {
                return Long.parseUnsignedLong(v.toString());
            } catch (NumberFormatException e) {
                throw bad(field, o);
            }
        }
        throw bad(field, o);
    }

    static Long u64OrNull(Map<String, Object> o, String field) {
        return o.get(field) == null ? null : u64(o, field);
    }

    /** The JSON value of an unsigned 64-bit number: a Long, or a BigInteger above 2^63-1. */
    static Object u64Value(long v) {
        return v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
    }

    static byte[] bytes(Map<String, Object> o, String field) {
        try {
            return Base64.getDecoder().decode(string(o, field));
        } catch (IllegalArgumentException e) {
            throw bad(field, o);
        }
    }

    static Map<String, Object> object(Map<String, Object> o, String field) {
        if (o.get(field) instanceof Map<?, ?> m) return cast(m);
        throw bad(field, o);
    }

    static List<?> array(Map<String, Object> o, String field) {
        if (o.get(field) instanceof List<?> l) return l;
        throw bad(field, o);
    }

    static List<Map<String, Object>> objects(Map<String, Object> o, String field) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object e : array(o, field)) {
            if (!(e instanceof Map<?, ?> m)) throw bad(field, o);
            out.add(cast(m));
        }
        return out;
    }

    static List<String> strings(Map<String, Object> o, String field) {
        List<String> out = new ArrayList<>();
        for (Object e : array(o, field)) {
            if (!(e instanceof String s)) throw bad(field, o);
            out.add(s);
        }
        return out;
    }
}
