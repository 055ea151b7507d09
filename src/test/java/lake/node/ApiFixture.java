package lake.node;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/** What the API tests of every package share: the harness clock's start and lease TTL, request bodies, the error check. */
public final class ApiFixture {
    private ApiFixture() {}

    /** The wall clock every harness node starts at. */
    public static final long T0 = 1_700_000_000_000L;
    /** The lease TTL the fencing tests run with. */
    public static final long TTL = 10_000;

    /** {@code s} as the API's base64. */
    public static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A CAS body: {@code expected} {@code null} means "must be absent". */
    public static JsonObject cas(String key, String expected, String value) {
        return new JsonObject().put("key", key).put("expected", expected == null ? null : b64(expected)).put("value", b64(value));
    }

    /**
     * A write's reply without its {@code revision}, which must be there and positive: for replies
     * whose exact revision the test cannot know (a cluster whose earlier writes vary).
     */
    public static io.vertx.core.json.JsonObject withoutRevision(io.vertx.core.json.JsonObject reply) {
        assertThat(reply.getValue("revision")).as("the revision of %s", reply).isInstanceOf(Number.class);
        assertThat(reply.getLong("revision")).isPositive();
        io.vertx.core.json.JsonObject copy = reply.copy();
        copy.remove("revision");
        return copy;
    }

    /** {@code r} is the API's error envelope with this status and code, its message containing {@code messagePart}. */
    public static void expectError(HttpResponse<Buffer> r, int status, String code, String messagePart) {
        assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(status);
        assertThat(r.getHeader("Content-Type")).startsWith("application/json");
        JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
        assertThat(error.getString("code")).isEqualTo(code);
        assertThat(error.getString("message")).containsIgnoringCase(messagePart);
    }
}
