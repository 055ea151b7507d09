package lake.ingress;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.api.RecordedLeaderTest;
import lake.bus.Bus;
import lake.node.NodeHarness;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The input rules of docs/http-api.md ("Input rules"): every malformed request is refused with
 * {@code 400 invalid_argument} naming the problem, over HTTP and over the event bus alike, before
 * any call reaches the store; and the largest valid requests fit every limit.
 */
class StrictInputTest extends RecordedLeaderTest {
    /** One malformed request as HTTP sends it. */
    private record HttpCase(String why, HttpMethod method, String uri, String body, String messagePart) {}

    /** The same kind of mistake as a bus client makes it. */
    private record BusCase(String why, String address, Object body, MultiMap headers, String messagePart) {}

    private static HttpCase http(String why, HttpMethod method, String uri, String body, String messagePart) {
        return new HttpCase(why, method, uri, body, messagePart);
    }

    private static BusCase bus(String why, String address, Object body, String messagePart) {
        return new BusCase(why, address, body, MultiMap.caseInsensitiveMultiMap(), messagePart);
    }

    private static BusCase bus(String why, String address, Object body, String header, String value, String messagePart) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        for (String v : value.split(",")) headers.add(header, v);
        return new BusCase(why, address, body, headers, messagePart);
    }

    @Test
    void malformedRequestsAreRefusedBeforeTheStore() throws Exception {
        // A continuation issued for prefix "kv/ab" that a client then sends with prefix "kv/a".
        for (String k : List.of("kv/ab1", "kv/ab2")) {
            assertThat(h.post(node, "/v1/kv/cas", new JsonObject().put("key", k).putNull("expected").put("value", b64("v")))
                    .statusCode()).isEqualTo(200);
        }
        String continuation = h.get(node, "/v1/kv?prefix=kv/ab&limit=1").bodyAsJsonObject().getString("continuation");
        assertThat(continuation).isNotNull();

        String cas = "{\"key\":\"k\",\"expected\":null,\"value\":\"eA==\"}";
        List<HttpCase> httpCases = List.of(
                http("member named twice", HttpMethod.POST, "/v1/kv/cas",
                        "{\"key\":\"a\",\"key\":\"b\",\"expected\":null,\"value\":\"eA==\"}", "'key' appears more than once"),
                http("member named twice, nested under the same name", HttpMethod.POST, "/v1/kv/cas",
                        "{\"key\":\"a\",\"expected\":null,\"value\":\"eA==\",\"epoch\":1,\"epoch\":2}", "'epoch' appears more than once"),
                http("non-canonical base64 (padding bits set)", HttpMethod.POST, "/v1/kv/cas", cas.replace("eA==", "eB=="), "canonical"),
                http("unpadded base64", HttpMethod.POST, "/v1/kv/cas", cas.replace("eA==", "eA"), "padded"),
                http("base64 with a line break", HttpMethod.POST, "/v1/kv/cas", cas.replace("eA==", "eA\\n=="), "base64"),
                http("invalid UTF-8 in a key path", HttpMethod.GET, "/v1/kv/kv/%FF", null, "UTF-8"),
                http("truncated UTF-8 sequence in a key path", HttpMethod.GET, "/v1/kv/kv/%C3", null, "UTF-8"),
                http("invalid UTF-8 in a prefix", HttpMethod.GET, "/v1/kv?prefix=kv/%FF", null, "UTF-8"),
                http("bad percent escape in a path", HttpMethod.GET, "/v1/kv/kv/%G1", null, "'%G1' at offset 3 is not a percent escape"),
                http("percent escape cut short", HttpMethod.GET, "/v1/kv/kv/%4", null, "not a percent escape"),
                http("re-cased query parameter", HttpMethod.GET, "/v1/kv?Limit=5", null, "did you mean 'limit'"),
                http("re-cased query parameter", HttpMethod.GET, "/v1/kv?PREFIX=a", null, "did you mean 'prefix'"),
                http("repeated query parameter", HttpMethod.GET, "/v1/kv?limit=1&limit=2", null, "'limit' is given more than once"),
                http("parameter without a value", HttpMethod.GET, "/v1/kv?prefix", null, "has no value"),
                http("stray ampersand", HttpMethod.GET, "/v1/kv?prefix=a&&limit=2", null, "stray '&'"),
                http("continuation of another prefix", HttpMethod.GET, "/v1/kv?prefix=kv/a&continuation=" + continuation, null, "another prefix"),
                http("block comment", HttpMethod.POST, "/v1/kv/cas", "{/* c */\"key\":\"k\",\"expected\":null,\"value\":\"eA==\"}", "not valid JSON"),
                http("line comment", HttpMethod.POST, "/v1/kv/cas", "{\"key\":\"k\",//c\n\"expected\":null,\"value\":\"eA==\"}", "not valid JSON"),
                http("epoch null", HttpMethod.POST, "/v1/kv/cas", cas.replace("}", ",\"epoch\":null}"), "field 'epoch' must be an unsigned integer"),
                http("epoch with a fraction", HttpMethod.POST, "/v1/kv/cas", cas.replace("}", ",\"epoch\":1.0}"), "a number with a fraction or an exponent (1.0)"),
                http("limit in Arabic-Indic digits", HttpMethod.GET, "/v1/kv?limit=%D9%A5", null, "ASCII digits"),
                http("limit in full-width digits", HttpMethod.GET, "/v1/kv?limit=%EF%BC%95", null, "ASCII digits"),
                http("limit with a sign", HttpMethod.GET, "/v1/kv?limit=%2B5", null, "ASCII digits"),
                http("query on a key read", HttpMethod.GET, "/v1/kv/a?b=1", null, "takes no query string"),
                http("bare '?' on a key read", HttpMethod.GET, "/v1/kv/a?", null, "%3F"),
                http("query on a write", HttpMethod.POST, "/v1/kv/cas?x=1", cas, "takes no query string"),
                http("query on the leader route", HttpMethod.GET, "/v1/leader?verbose=1", null, "takes no query string"),
                http("body that is an array", HttpMethod.POST, "/v1/kv/cas", "[1,2]", "must be a JSON object, got an array"),
                http("body that is a string", HttpMethod.POST, "/v1/kv/cas", "\"k\"", "must be a JSON object, got a string"),
                http("data after the object", HttpMethod.POST, "/v1/kv/cas", cas + " {}", "data after its JSON object"),
                http("empty body", HttpMethod.POST, "/v1/kv/cas", "", "body is empty"),
                http("delete expecting null", HttpMethod.POST, "/v1/kv/delete", "{\"key\":\"k\",\"expected\":null}", "a delete needs the key's exact current value"),
                http("key of the wrong type", HttpMethod.POST, "/v1/kv/cas", cas.replace("\"k\"", "7"), "field 'key' must be a string, got a number"),
                http("unknown field", HttpMethod.POST, "/v1/kv/cas", cas.replace("}", ",\"ttl\":5}"), "unknown field 'ttl'"),
                http("single-quoted JSON", HttpMethod.POST, "/v1/kv/cas", "{'key':'k','expected':null,'value':'eA=='}", "not valid JSON"),
                http("a body on a read", HttpMethod.GET, "/v1/kv/kv/ab1", "{}", "takes no request body"),
                http("fields on resign", HttpMethod.POST, "/v1/leader/resign", "{\"force\":true}", "takes no fields"),
                http("limit with a leading zero", HttpMethod.GET, "/v1/kv?limit=05", null, "without leading zeros"),
                http("an escaped parameter name", HttpMethod.GET, "/v1/kv?li%6Dit=5", null, "names are written literally"),
                http("a query on the metrics route", HttpMethod.GET, "/metrics?name=x", null, "GET /metrics takes no query string"),
                http("a key in the path that breaks the key rules", HttpMethod.GET, "/v1/kv/a%00b", null, "key in the path: key must not contain NUL"));
        // Route names are matched exactly: no spelling the router would normalise names a route.
        for (String[] c : new String[][]{{"POST", "//v1/kv/cas", "404"}, {"POST", "/v1/kv/%63as", "405"}, {"POST", "/v1/kv/./cas", "405"},
                {"POST", "/v1/txn/", "404"}, {"GET", "/v1/leader/", "404"}, {"GET", "//v1/kv/kv/ab1", "404"}}) {
            int before = store.calls();
            HttpResponse<Buffer> r = h.send(node, HttpMethod.valueOf(c[0]), c[1], c[0].equals("POST") ? cas : null);
            assertThat(r.statusCode()).as("%s %s: %s", c[0], c[1], r.bodyAsString()).isEqualTo(Integer.parseInt(c[2]));
            assertThat(store.calls()).as("%s %s reached the store", c[0], c[1]).isEqualTo(before);
        }
        for (HttpCase c : httpCases) {
            int before = store.calls();
            HttpResponse<Buffer> r = h.send(node, c.method(), c.uri(), c.body());
            try {
                expectError(r, 400, "invalid_argument", c.messagePart());
            } catch (AssertionError e) {
                throw new AssertionError("HTTP case '" + c.why() + "': " + e.getMessage(), e);
            }
            assertThat(store.calls()).as("HTTP case '%s' reached the store", c.why()).isEqualTo(before);
        }
        HttpResponse<Buffer> badUtf8Body = h.sendBytes(node, HttpMethod.POST, "/v1/kv/cas",
                new byte[]{'{', '"', 'k', 'e', 'y', '"', ':', '"', (byte) 0xff, '"', '}'});
        expectError(badUtf8Body, 400, "invalid_argument", "not valid UTF-8");

        JsonObject casObject = new JsonObject().put("key", "k").putNull("expected").put("value", "eA==");
        List<BusCase> busCases = List.of(
                bus("member named twice, as JSON text", Bus.KV_CAS, "{\"key\":\"a\",\"key\":\"b\",\"expected\":null,\"value\":\"eA==\"}",
                        "'key' appears more than once"),
                bus("non-canonical base64", Bus.KV_CAS, casObject.copy().put("value", "eB=="), "canonical"),
                bus("unpadded base64", Bus.KV_CAS, casObject.copy().put("value", "eA"), "padded"),
                bus("key that is not UTF-8 (lone surrogate)", Bus.KV_GET, new JsonObject().put("key", "kv/\uD800"), "UTF-8"),
                bus("re-cased field", Bus.KV_SCAN, new JsonObject().put("Limit", 5), "unknown field 'Limit'"),
                bus("continuation of another prefix", Bus.KV_SCAN, new JsonObject().put("prefix", "kv/a").put("continuation", continuation),
                        "another prefix"),
                bus("comment, as JSON text", Bus.KV_CAS, "{/* c */\"key\":\"k\",\"expected\":null,\"value\":\"eA==\"}", "not valid JSON"),
                bus("epoch null", Bus.KV_CAS, casObject.copy().putNull("epoch"), "field 'epoch' must be an unsigned integer"),
                bus("limit as a string", Bus.KV_SCAN, new JsonObject().put("limit", "5"), "field 'limit' must be an integer"),
                bus("limit with a fraction", Bus.KV_SCAN, new JsonObject().put("limit", 5.0), "field 'limit' must be an integer"),
                bus("prefix null", Bus.KV_SCAN, new JsonObject().putNull("prefix"), "field 'prefix' must be a string"),
                bus("epoch header with a sign", Bus.KV_CAS, casObject, Bus.EPOCH_HEADER, "+1", "ASCII digits"),
                bus("epoch header in other digits", Bus.KV_CAS, casObject, Bus.EPOCH_HEADER, "\u0661", "ASCII digits"),
                bus("epoch header given twice", Bus.KV_CAS, casObject, Bus.EPOCH_HEADER, "1,1", "given 2 times"),
                bus("body that is an array", Bus.KV_CAS, new JsonArray().add(1), "must be a JSON object, got JsonArray"),
                bus("body that is array text", Bus.KV_CAS, "[1]", "must be a JSON object, got an array"),
                bus("delete expecting null", Bus.KV_DELETE, new JsonObject().put("key", "k").putNull("expected"),
                        "a delete needs the key's exact current value"),
                bus("key of the wrong type", Bus.KV_GET, new JsonObject().put("key", 7), "field 'key' must be a string"),
                bus("fields on the leader address", Bus.LEADER, new JsonObject().put("verbose", true), "takes no fields"));
        for (BusCase c : busCases) {
            int before = store.calls();
            DeliveryOptions opts = new DeliveryOptions().setHeaders(c.headers());
            try {
                NodeHarness.await(h.vertx.eventBus().request(c.address(), c.body(), opts));
                fail("bus case '" + c.why() + "' was served");
            } catch (ReplyException e) {
                assertThat(e.failureCode()).as("bus case '%s': %s", c.why(), e.getMessage()).isEqualTo(400);
                JsonObject error = new JsonObject(e.getMessage()).getJsonObject("error");
                assertThat(error.getString("code")).as(c.why()).isEqualTo("invalid_argument");
                assertThat(error.getString("message")).as(c.why()).contains(c.messagePart());
            }
            assertThat(store.calls()).as("bus case '%s' reached the store", c.why()).isEqualTo(before);
        }
        assertThat(store.guardedWrites()).as("no malformed request was written").isEqualTo(2);
    }

    @Test
    void largestValidRequestsAreServed() throws Exception {
        // The longest key: 1,024 UTF-8 bytes, every one of them percent-encoded in the path.
        String longKey = "é".repeat(512);
        assertThat(longKey.getBytes(StandardCharsets.UTF_8)).hasSize(1024);
        assertThat(h.post(node, "/v1/kv/cas", new JsonObject().put("key", longKey).putNull("expected").put("value", b64("v")))
                .bodyAsJsonObject().getBoolean("applied")).isTrue();
        HttpResponse<Buffer> read = h.get(node, "/v1/kv/" + percentEncodeAll(longKey));
        assertThat(read.statusCode()).as(read.bodyAsString()).isEqualTo(200);
        assertThat(read.bodyAsJsonObject().getString("key")).isEqualTo(longKey);

        // The longest prefix and its continuation, both on one request line.
        String prefix = "é".repeat(511);
        for (String suffix : List.of("1", "2")) {
            assertThat(h.post(node, "/v1/kv/cas", new JsonObject().put("key", prefix + suffix).putNull("expected")
                    .put("value", b64(suffix))).statusCode()).isEqualTo(200);
        }
        HttpResponse<Buffer> first = h.get(node, "/v1/kv?prefix=" + percentEncodeAll(prefix) + "&limit=1");
        assertThat(first.statusCode()).as(first.bodyAsString()).isEqualTo(200);
        String continuation = first.bodyAsJsonObject().getString("continuation");
        HttpResponse<Buffer> second = h.get(node, "/v1/kv?prefix=" + percentEncodeAll(prefix) + "&limit=1&continuation=" + continuation);
        assertThat(second.statusCode()).as(second.bodyAsString()).isEqualTo(200);
        assertThat(second.bodyAsJsonObject().getJsonArray("entries").getJsonObject(0).getString("key")).isEqualTo(prefix + "2");

        // A CAS of a 256 KiB value over a 256 KiB expected value, then a delete of it.
        Random random = new Random(17);
        byte[] v1 = new byte[256 * 1024];
        byte[] v2 = new byte[256 * 1024];
        random.nextBytes(v1);
        random.nextBytes(v2);
        String e1 = java.util.Base64.getEncoder().encodeToString(v1);
        String e2 = java.util.Base64.getEncoder().encodeToString(v2);
        assertThat(h.post(node, "/v1/kv/cas", new JsonObject().put("key", longKey.substring(1) + "x").putNull("expected").put("value", e1))
                .bodyAsJsonObject().getBoolean("applied")).isTrue();
        HttpResponse<Buffer> update = h.post(node, "/v1/kv/cas", new JsonObject().put("key", longKey.substring(1) + "x")
                .put("expected", e1).put("value", e2).put("epoch", 1));
        assertThat(update.statusCode()).as(update.bodyAsString()).isEqualTo(200);
        assertThat(update.bodyAsJsonObject().getBoolean("applied")).isTrue();
        HttpResponse<Buffer> delete = h.post(node, "/v1/kv/delete", new JsonObject().put("key", longKey.substring(1) + "x").put("expected", e2));
        assertThat(delete.bodyAsJsonObject().getBoolean("applied")).isTrue();

        // curl's default Content-Type, a body over 1 KiB and a '%' that is no escape: still JSON.
        String formKey = "kv/100%zz";
        HttpResponse<Buffer> form = h.sendWithType(node, "/v1/kv/cas", "application/x-www-form-urlencoded",
                new JsonObject().put("key", formKey).putNull("expected").put("value", b64("f".repeat(1500))).encode());
        assertThat(form.statusCode()).as(form.bodyAsString()).isEqualTo(200);
        assertThat(form.bodyAsJsonObject().getBoolean("applied")).isTrue();

        // Keys that only the raw path can name: slashes only, and dot segments.
        for (String key : List.of("/", "//", "x/./y/../z")) {
            assertThat(h.post(node, "/v1/kv/cas", new JsonObject().put("key", key).putNull("expected").put("value", b64(key)))
                    .bodyAsJsonObject().getBoolean("applied")).isTrue();
            HttpResponse<Buffer> raw = h.get(node, "/v1/kv/" + key);
            assertThat(raw.statusCode()).as(key + ": " + raw.bodyAsString()).isEqualTo(200);
            assertThat(raw.bodyAsJsonObject().getString("key")).isEqualTo(key);
        }
    }

    @Test
    void refusalsOfTheHttpLayerComeInTheJsonEnvelope() throws Exception {
        HttpResponse<Buffer> longLine = h.get(node, "/v1/kv/" + "a".repeat(HttpVerticle.MAX_REQUEST_LINE));
        expectError(longLine, 414, "uri_too_long", "request line");
        HttpResponse<Buffer> bigBody = h.send(node, HttpMethod.POST, "/v1/kv/delete", "{\"key\":\"" + "k".repeat(HttpVerticle.DELETE_BODY_BYTES) + "\"}");
        expectError(bigBody, 413, "payload_too_large", "exceeds");
        HttpResponse<Buffer> bigHeaders = NodeHarness.await(h.http.get(node.httpPort(), "127.0.0.1", "/health")
                .putHeader("X-Big", "h".repeat(HttpVerticle.MAX_HEADER_BYTES)).send());
        expectError(bigHeaders, 431, "headers_too_large", "request headers");
        expectError(rawRequest("GET /v1/kv/a HTTP/1.1\r\nHost x\r\n\r\n"), 400, "invalid_argument", "malformed HTTP request");
    }

    /** Sends bytes the HTTP client would never produce and parses the one response that comes back. */
    private HttpResponse<Buffer> rawRequest(String request) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", node.httpPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int status = Integer.parseInt(response.substring(9, 12));
            int bodyAt = response.indexOf("\r\n\r\n") + 4;
            io.vertx.core.MultiMap headers = io.vertx.core.MultiMap.caseInsensitiveMultiMap();
            for (String line : response.substring(0, bodyAt).split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0) headers.add(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
            return new io.vertx.ext.web.client.impl.HttpResponseImpl<>(io.vertx.core.http.HttpVersion.HTTP_1_1, status, "",
                    headers, io.vertx.core.MultiMap.caseInsensitiveMultiMap(), java.util.List.of(),
                    Buffer.buffer(response.substring(bodyAt)), java.util.List.of());
        }
    }

    static String percentEncodeAll(String s) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) out.append('%').append(String.format("%02X", b & 0xff));
        return out.toString();
    }
}
