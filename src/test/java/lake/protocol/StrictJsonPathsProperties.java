package lake.protocol;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import lake.meta.Keys;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ASCII shortcut of {@link StrictJson#object(Buffer)} (no strict UTF-8 decode for a body of
 * ASCII without NUL) is invisible: every such body gets exactly the answer the strict path gives
 * the same text — the same object, or a refusal with the same message.
 */
class StrictJsonPathsProperties {

    @Property(tries = 3000)
    void asciiBodiesAreAnsweredAsTheirStrictlyDecodedText(@ForAll("asciiBodies") String body) {
        byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
        Object viaBytes = outcome(() -> StrictJson.object(Buffer.buffer(bytes)));
        Object viaText = outcome(() -> StrictJson.object(Keys.strictUtf8(bytes, 0, bytes.length)));
        assertThat(viaBytes).isEqualTo(viaText);
    }

    /** JSON-shaped ASCII: tokens, control characters, DEL, escapes, near-misses. */
    @Provide
    Arbitrary<String> asciiBodies() {
        Arbitrary<String> pieces = Arbitraries.oneOf(
                Arbitraries.of("{", "}", "[", "]", ":", ",", "\"", "\"k\"", "\"key\"", "\"value\"", "\"eA==\"", "null", "true",
                        "tru", "false", "1", "01", "1.0", "-0", "1e5", "NaN", "//c", "/*c*/", "'s'", " ", "\t", "\n", "\r",
                        "\\u0000", "\\ud800", "\\\"", "\\n", "\\x", "{\"a\":1,\"a\":2}", "{\"k\":{\"k\":[1,{\"k\":2}]}}"),
                Arbitraries.chars().range((char) 1, (char) 127).map(String::valueOf));
        return pieces.list().ofMinSize(1).ofMaxSize(24).map(l -> String.join("", l));
    }

    private static Object outcome(java.util.function.Supplier<JsonObject> parse) {
        try {
            return parse.get();
        } catch (ApiError e) {
            return e.status() + " " + e.getMessage();
        }
    }
}
