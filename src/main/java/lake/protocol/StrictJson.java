package lake.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one JSON reader of every API request body, HTTP and event bus alike. Strict RFC 8259:
 * UTF-8 only, one top-level object and nothing after it, no comments, no single quotes, no
 * unquoted names, no NaN or leading zeros, no member named twice (at any depth). Vert.x's own
 * reader accepts comments and keeps the last of two equal members; this one refuses both, naming
 * what is wrong. Numbers stay exact: integers as {@code Long} or {@code BigInteger}, anything
 * with a fraction or exponent as {@code BigDecimal}, so no field reader can mistake {@code 1.0}
 * for {@code 1}.
 */
public final class StrictJson {
    private StrictJson() {}

    /** Nesting deeper than any request needs; a deeper body is refused before it costs stack. */
    private static final int MAX_DEPTH = 16;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .disable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .disable(JsonReadFeature.ALLOW_YAML_COMMENTS)
            .disable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
            .disable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .disable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS)
            .disable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .disable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    /** Parses an HTTP body (raw bytes): it must be UTF-8 and one JSON object. */
    public static JsonObject object(Buffer body) {
        if (body == null || body.length() == 0) throw ApiError.invalid("request body is empty; it must be a JSON object");
        byte[] bytes = body.getBytes();
        // ASCII without NUL (the common case) is valid UTF-8 as it stands: it becomes text by a
        // plain copy, skipping the strict decoder. Every body is then parsed as text by the same
        // parser, so a refusal reads the same whichever way its body came.
        if (plainAscii(bytes)) return object(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1));
        String text = lake.meta.Keys.strictUtf8(bytes, 0, bytes.length);
        if (text == null) throw ApiError.invalid("request body is not valid UTF-8");
        return object(text);
    }

    private static boolean plainAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b <= 0) return false;
        }
        return true;
    }

    /** Parses JSON text that must be exactly one object. */
    public static JsonObject object(String text) {
        try {
            return object(FACTORY.createParser(text));
        } catch (IOException e) {
            throw ApiError.invalid("request body is not valid JSON: " + e.getMessage());
        }
    }

    private static JsonObject object(JsonParser parser) {
        try (JsonParser p = parser) {
            JsonToken first = p.nextToken();
            if (first == null) throw ApiError.invalid("request body is empty; it must be a JSON object");
            if (first != JsonToken.START_OBJECT) {
                throw ApiError.invalid("request body must be a JSON object, got " + describe(first));
            }
            JsonObject out = new JsonObject(readObject(p, ""));
            JsonToken after = p.nextToken();
            if (after != null) throw ApiError.invalid("request body has data after its JSON object (at offset "
                    + p.currentTokenLocation().getCharOffset() + ")");
            return out;
        } catch (JsonParseException e) {
            throw ApiError.invalid("request body is not valid JSON: " + e.getOriginalMessage()
                    + " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
        } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
            throw ApiError.invalid("request body is nested deeper than " + MAX_DEPTH + " levels");
        } catch (IOException e) {
            throw ApiError.invalid("request body is not valid JSON: " + e.getMessage());
        }
    }

    /**
     * An event-bus request body: a {@link JsonObject} (a map already: a Vert.x sender cannot name
     * a member twice), or JSON text as a {@code String} or {@code Buffer}, parsed as strictly as
     * an HTTP body. Anything else is refused naming its type.
     */
    public static JsonObject busBody(Object body) {
        if (body instanceof JsonObject o) return o;
        if (body instanceof String s) return object(s);
        if (body instanceof Buffer b) return object(b);
        if (body == null) throw ApiError.invalid("message body is missing; it must be a JSON object");
        throw ApiError.invalid("message body must be a JSON object, got " + body.getClass().getSimpleName());
    }

    private static Map<String, Object> readObject(JsonParser p, String path) throws IOException {
        Map<String, Object> members = new LinkedHashMap<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            if (members.containsKey(name)) {
                throw ApiError.invalid("member '" + path + name + "' appears more than once in the request body");
            }
            p.nextToken();
            members.put(name, readValue(p, path, name, -1));
        }
        if (t != JsonToken.END_OBJECT) throw ApiError.invalid("request body is not valid JSON: unexpected " + describe(t));
        return members;
    }

    /**
     * The value at {@code parent + name} (and {@code [index]} when {@code index >= 0}); the path,
     * which only an error about a nested member names, is built only for containers.
     */
    private static Object readValue(JsonParser p, String parent, String name, int index) throws IOException {
        JsonToken t = p.currentToken();
        return switch (t) {
            case START_OBJECT -> new JsonObject(readObject(p, parent + name + (index >= 0 ? "[" + index + "]" : "") + "."));
            case START_ARRAY -> {
                String at = parent + name + (index >= 0 ? "[" + index + "]" : "");
                JsonArray a = new JsonArray();
                int i = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) a.add(readValue(p, at, "", i++));
                yield a;
            }
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue() : (Object) p.getLongValue();
            case VALUE_NUMBER_FLOAT -> p.getDecimalValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw ApiError.invalid("request body is not valid JSON: unexpected " + describe(t));
        };
    }

    private static String describe(JsonToken t) {
        if (t == null) return "end of input";
        return switch (t) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
        };
    }
}
