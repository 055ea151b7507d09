package lake.client.model;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import lake.wire.Fields;
import lake.wire.WireException;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON text for the client: plain maps and lists over jackson-core's streaming parser and
 * generator, the form {@code lake.wire}'s records decode from and render to ({@code toMap()};
 * {@code Json.write(result.toMap())} is the API's JSON of a result). Deliberately not Vert.x's
 * {@code JsonObject}: its first use builds a databind {@code ObjectMapper}, which costs a
 * command-line call hundreds of milliseconds. Objects are {@code LinkedHashMap}s (member order
 * kept), arrays {@code ArrayList}s, integers {@code Long} or {@code BigInteger}.
 */
public final class Json {
    private Json() {}

    private static final JsonFactory FACTORY = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** Parses JSON text that must be one object; throws {@link IllegalArgumentException} if it is not exactly that. */
    public static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (v instanceof Map<?, ?> m) return Fields.cast(m);
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
    public static String write(Object value) {
        return write(value, false);
    }

    /** JSON text, indented when {@code pretty}. */
    public static String write(Object value, boolean pretty) {
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

    /**
     * The client's error for a reply that is not the shape it should be: a {@code ServerError}
     * naming the field and showing the object that should hold it.
     */
    public static MetasrvException badReply(WireException e) {
        return new MetasrvException.ServerError("unexpected_reply", 0, "the reply has no valid '" + e.field() + "': " + write(e.object()));
    }
}
