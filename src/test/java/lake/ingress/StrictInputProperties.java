package lake.ingress;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.node.RecordingStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Valid requests and single-point corruptions of them, generated: every valid request is served,
 * every corrupted one is refused with {@code 400 invalid_argument} before the store is called.
 * The corruptions are the ones a sloppy client or a proxy produces: a member named twice, a
 * flipped base64 padding bit, a byte that is not UTF-8 in a path, a re-cased parameter name.
 */
class StrictInputProperties {
    private static Path dir;
    private static NodeHarness h;
    private static MetasrvNode node;
    private static RecordingStore store;

    @BeforeContainer
    static void start() throws Exception {
        dir = Files.createTempDirectory("strict-input");
        h = new NodeHarness();
        node = h.recordedLeader(dir, new ManualClock(1_700_000_000_000L), r -> store = r);
    }

    @AfterContainer
    static void stop() throws Exception {
        h.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** One generated request: its valid form and one corruption of it. */
    sealed interface Request permits Create, Read, Scan {
        HttpResponse<Buffer> sendValid() throws Exception;
        HttpResponse<Buffer> sendCorrupted() throws Exception;
    }

    enum CreateCorruption { DUPLICATE_MEMBER, FLIPPED_PADDING_BIT }

    record Create(String key, byte[] value, CreateCorruption corruption) implements Request {
        String valid() {
            return new JsonObject().put("key", key).putNull("expected").put("value", Base64.getEncoder().encodeToString(value)).encode();
        }
        public HttpResponse<Buffer> sendValid() throws Exception {
            return h.send(node, HttpMethod.POST, "/v1/kv/cas", valid());
        }
        public HttpResponse<Buffer> sendCorrupted() throws Exception {
            String b64 = Base64.getEncoder().encodeToString(value);
            String body = switch (corruption) {
                case DUPLICATE_MEMBER -> "{\"key\":" + Json.encode(key + "x") + "," + valid().substring(1);
                case FLIPPED_PADDING_BIT -> valid().replace(b64, flipPaddingBit(b64));
            };
            return h.send(node, HttpMethod.POST, "/v1/kv/cas", body);
        }
    }

    enum PathCorruption { INVALID_BYTE, TRUNCATED_SEQUENCE }

    record Read(String key, PathCorruption corruption, int at) implements Request {
        public HttpResponse<Buffer> sendValid() throws Exception {
            return h.get(node, "/v1/kv/" + encode(key, true));
        }
        public HttpResponse<Buffer> sendCorrupted() throws Exception {
            String bad = corruption == PathCorruption.INVALID_BYTE ? "%FF" : "%E6%97";
            return h.get(node, "/v1/kv/" + insertAtCharBoundary(key, at, bad, true));
        }
    }

    record Scan(String prefix, int limit, boolean recaseLimit, int at) implements Request {
        public HttpResponse<Buffer> sendValid() throws Exception {
            return h.get(node, "/v1/kv?prefix=" + encode(prefix, false) + "&limit=" + limit);
        }
        public HttpResponse<Buffer> sendCorrupted() throws Exception {
            if (recaseLimit) {
                String name = "limit".substring(0, at % 5) + Character.toUpperCase("limit".charAt(at % 5)) + "limit".substring(at % 5 + 1);
                return h.get(node, "/v1/kv?prefix=" + encode(prefix, false) + "&" + name + "=" + limit);
            }
            return h.get(node, "/v1/kv?prefix=" + insertAtCharBoundary(prefix, at, "%C0%AF", false) + "&limit=" + limit);
        }
    }

    @Property(tries = 150)
    void validRequestsAreServedAndCorruptedOnesRefused(@ForAll("requests") Request request) throws Exception {
        HttpResponse<Buffer> valid = request.sendValid();
        assertThat(valid.statusCode()).as("valid %s: %s", request, valid.bodyAsString()).isIn(200, 404);
        if (valid.statusCode() == 404) assertThat(valid.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("not_found");

        int before = store.calls();
        HttpResponse<Buffer> corrupted = request.sendCorrupted();
        assertThat(corrupted.statusCode()).as("corrupted %s: %s", request, corrupted.bodyAsString()).isEqualTo(400);
        assertThat(corrupted.bodyAsJsonObject().getJsonObject("error").getString("code")).isEqualTo("invalid_argument");
        assertThat(store.calls()).as("a corrupted request reached the store").isEqualTo(before);
    }

    @Provide
    Arbitrary<Request> requests() {
        Arbitrary<String> keys = Arbitraries.strings()
                .withChars("abcxyz/%+?#&= .~-_")
                .withChars('é', '日', 'ß')
                .ofMinLength(1).ofMaxLength(24)
                .flatMap(s -> Arbitraries.of("", "\uD83D\uDE00").map(supplementary -> s + supplementary));
        // Lengths that are not a multiple of 3, so the base64 has padding bits to flip.
        Arbitrary<byte[]> values = Arbitraries.integers().between(0, 30).map(n -> 3 * n + 1 + (n % 2))
                .flatMap(n -> Arbitraries.bytes().array(byte[].class).ofSize(n));
        Arbitrary<Request> creates = Combinators.combine(keys, values, Arbitraries.of(CreateCorruption.class)).as(Create::new);
        Arbitrary<Request> reads = Combinators.combine(keys, Arbitraries.of(PathCorruption.class), Arbitraries.integers().between(0, 40))
                .as(Read::new);
        Arbitrary<Request> scans = Combinators.combine(keys, Arbitraries.integers().between(1, 1000),
                Arbitraries.of(true, false), Arbitraries.integers().between(0, 40)).as(Scan::new);
        return Arbitraries.oneOf(creates, reads, scans);
    }

    /** Flips the lowest bit of the last character that carries data: a padding bit, so no longer canonical. */
    static String flipPaddingBit(String b64) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        int last = b64.indexOf('=') - 1;
        char flipped = alphabet.charAt(alphabet.indexOf(b64.charAt(last)) ^ 1);
        return b64.substring(0, last) + flipped + b64.substring(last + 1);
    }

    /** Percent-encodes every byte but unreserved characters (and '/' in a path). */
    static String encode(String s, boolean path) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            boolean unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~' || (path && c == '/');
            if (unreserved) out.append(c);
            else out.append('%').append(String.format("%02X", b & 0xff));
        }
        return out.toString();
    }

    /** The encoded string with {@code bad} inserted between two whole characters. */
    static String insertAtCharBoundary(String s, int at, String bad, boolean path) {
        int cut = s.offsetByCodePoints(0, at % (s.codePointCount(0, s.length()) + 1));
        return encode(s.substring(0, cut), path) + bad + encode(s.substring(cut), path);
    }
}
