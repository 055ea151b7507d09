package lake.client.transport;

import lake.client.model.Json;
import lake.client.model.MetasrvException;
import lake.wire.Fields;
import lake.wire.Health;
import lake.wire.WireException;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** What both HTTP transports share: how paths are encoded and how an answer is read. */
public final class HttpReplies {
    private HttpReplies() {}

    /** One HTTP answer as a transport received it: status, {@code Retry-After} header, body text. */
    record Answer(int status, String retryAfter, String body) {}

    /** {@link #interpret} of an answer that arrived; a failure to get one passes through as it is. */
    static io.vertx.core.Future<Map<String, Object>> reply(io.vertx.core.Future<Answer> answer) {
        return answer.compose(a -> {
            try {
                return io.vertx.core.Future.succeededFuture(interpret(a.status(), a.retryAfter(), a.body()));
            } catch (MetasrvException e) {
                return io.vertx.core.Future.failedFuture(e);
            } catch (Transport.Lost e) {
                return io.vertx.core.Future.failedFuture(e);
            }
        });
    }

    /**
     * The reply body of a 200, or the typed error of any other status: the envelope's code and
     * message, with {@code Retry-After} (seconds) kept on the exception.
     *
     * <p>An answer that is not Metasrv's envelope came from something in between (a proxy, a load
     * balancer) or from a node failing outside the API. With a 5xx status it is {@link Transport.Lost}:
     * a gateway's 502/504 may follow a write that reached the node, so a write surfaces as
     * {@code OutcomeUnknown} and a read goes on to the next endpoint. Any other status is a
     * {@link MetasrvException.ServerError} naming it (nothing in between applies a request it refuses).
     */
    static Map<String, Object> interpret(int status, String retryAfter, String body) throws MetasrvException, Transport.Lost {
        if (status == 200) {
            try {
                return Json.parseObject(body);
            } catch (IllegalArgumentException e) {
                throw new MetasrvException.ServerError("unexpected_reply", status, "the reply is not a JSON object: " + e.getMessage());
            }
        }
        MetasrvException error = envelope(status, body);
        if (error != null) throw withRetryAfter(error, retryAfter);
        String what = "HTTP " + status + (body == null || body.isBlank() ? "" : ": " + snippet(body));
        if (status >= 500) throw new Transport.Lost(what + " (not Metasrv's error envelope)", null);
        throw new MetasrvException.ServerError("http_" + status, status, what);
    }

    /** The typed error a Metasrv error envelope ({@code {"error":{"code","message"}}}) names; null if {@code body} is not one. */
    static MetasrvException envelope(int status, String body) {
        try {
            Map<String, Object> e = Fields.object(Json.parseObject(body), "error");
            return MetasrvException.of(status, Fields.string(e, "code"), Fields.stringOrNull(e, "message"), e);
        } catch (IllegalArgumentException | WireException notTheEnvelope) {
            return null;
        }
    }

    /** The node id a {@code /health} 200 names; {@link IllegalArgumentException} naming the reply when it is not Metasrv's. */
    static String healthNodeId(String body) {
        try {
            return Health.from(Json.parseObject(body)).nodeId();
        } catch (IllegalArgumentException | WireException e) {
            throw new IllegalArgumentException("HTTP 200 from /health is not Metasrv's: " + snippet(String.valueOf(body)));
        }
    }

    static String snippet(String body) {
        return body.length() > 200 ? body.substring(0, 200) + "…" : body;
    }

    /** {@code retryAfter} is the header's text: delta-seconds; an HTTP date counts as one second. */
    static MetasrvException withRetryAfter(MetasrvException e, String retryAfter) {
        if (retryAfter != null) {
            try {
                e.retryAfter(Math.max(0, Long.parseLong(retryAfter.strip())) * 1000);
            } catch (NumberFormatException httpDate) {
                e.retryAfter(1000);
            }
        }
        return e;
    }

    /**
     * A key or name as a raw path: every byte percent-encoded except unreserved characters and
     * (for keys) {@code /}; a segment of dots is encoded too, so no client or proxy can take it
     * for {@code .} or {@code ..} and normalise it away.
     */
    public static String path(String s, boolean keepSlash) {
        StringBuilder out = new StringBuilder();
        String[] segments = keepSlash ? s.split("/", -1) : new String[] {s};
        for (int i = 0; i < segments.length; i++) {
            if (i > 0) out.append('/');
            String seg = segments[i];
            boolean dots = !seg.isEmpty() && seg.chars().allMatch(c -> c == '.');
            for (byte b : seg.getBytes(StandardCharsets.UTF_8)) {
                int c = b & 0xff;
                boolean unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || c == '-' || c == '_' || c == '~' || (c == '.' && !dots);
                if (unreserved) out.append((char) c);
                else out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return out.toString();
    }

    /** A query string from alternating names and values; null values are left out. Form encoding (a space is {@code +}, a plus {@code %2B}). */
    public static String query(Object... namesAndValues) {
        StringBuilder q = new StringBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            Object v = namesAndValues[i + 1];
            if (v == null) continue;
            q.append(q.length() == 0 ? '?' : '&').append(namesAndValues[i]).append('=')
                    .append(URLEncoder.encode(String.valueOf(v), StandardCharsets.UTF_8));
        }
        return q.toString();
    }
}
