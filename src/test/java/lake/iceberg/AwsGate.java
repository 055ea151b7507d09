package lake.iceberg;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A gate in front of moto that does what moto does not: it refuses an S3 request signed with a
 * session token whose STS expiry has passed ({@code 400 ExpiredToken}, as AWS answers), and it
 * records what the tests assert on — every {@code AssumeRole} asked (its session policy and
 * duration) with the credential STS gave, and which access key signed each S3 request.
 * Everything else passes through unchanged (the Host header too, so signatures still verify).
 */
public final class AwsGate implements AutoCloseable {
    /** One AssumeRole: what was asked, and the credential STS answered with. */
    public record Assumed(Map<String, String> params, String accessKeyId, String sessionToken, Instant expiration) {}

    /** One S3 request: its query (null without one), the access key that signed it, and whether the gate refused it as expired. */
    public record S3Request(String method, String path, String query, String accessKeyId, boolean expired) {
        /** Whether it deletes objects: a {@code DELETE} of one, or a {@code DeleteObjects} ({@code POST /<bucket>?delete}) of several. */
        public boolean deletes() {
            return method.equals("DELETE") || (method.equals("POST") && query != null
                    && java.util.Arrays.stream(query.split("&")).anyMatch(p -> p.equals("delete") || p.startsWith("delete=")));
        }
    }

    private static final Pattern CREDENTIAL = Pattern.compile("Credential=([A-Z0-9]+)/");

    final List<Assumed> assumed = new CopyOnWriteArrayList<>();
    final List<S3Request> s3 = new CopyOnWriteArrayList<>();
    private final Map<String, Instant> expiries = new ConcurrentHashMap<>();
    private final Vertx vertx = Vertx.vertx();
    private final HttpClient client = vertx.createHttpClient();
    private final URI target;
    private final HttpServer server;

    AwsGate(URI target) throws Exception {
        this.target = target;
        this.server = vertx.createHttpServer().requestHandler(this::pass).listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.actualPort());
    }

    private void pass(HttpServerRequest in) {
        in.body().onSuccess(body -> {
            String type = in.getHeader("Content-Type");
            boolean form = type != null && type.startsWith("application/x-www-form-urlencoded");
            Map<String, String> params = form ? formParams(body.toString(StandardCharsets.UTF_8)) : Map.of();
            boolean assume = "AssumeRole".equals(params.get("Action"));
            if (!form) {
                String token = in.getHeader("X-Amz-Security-Token");
                Instant expiry = token == null ? null : expiries.get(token);
                boolean expired = expiry != null && Instant.now().isAfter(expiry);
                String auth = in.getHeader("Authorization");
                Matcher m = auth == null ? null : CREDENTIAL.matcher(auth);
                s3.add(new S3Request(in.method().name(), in.path(), in.query(), m != null && m.find() ? m.group(1) : null, expired));
                if (expired) {
                    in.response().setStatusCode(400).putHeader("Content-Type", "application/xml")
                            .end("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>ExpiredToken</Code>"
                                    + "<Message>The provided token has expired.</Message></Error>");
                    return;
                }
            }
            RequestOptions out = new RequestOptions().setMethod(in.method()).setURI(in.uri())
                    .setServer(SocketAddress.inetSocketAddress(target.getPort(), target.getHost()));
            in.headers().forEach(h -> out.addHeader(h.getKey(), h.getValue()));
            client.request(out).compose(req -> req.send(body)).compose(res -> res.body().map(b -> {
                in.response().setStatusCode(res.statusCode());
                res.headers().forEach(h -> {
                    if (!h.getKey().equalsIgnoreCase("Transfer-Encoding")) in.response().putHeader(h.getKey(), h.getValue());
                });
                if (assume && res.statusCode() == 200) record(params, b.toString(StandardCharsets.UTF_8));
                in.response().end(b);
                return null;
            })).onFailure(e -> in.response().setStatusCode(502).end(String.valueOf(e)));
        });
    }

    private void record(Map<String, String> params, String xml) {
        String key = tag(xml, "AccessKeyId");
        String token = tag(xml, "SessionToken");
        Instant expiration = Instant.parse(tag(xml, "Expiration"));
        expiries.put(token, expiration);
        assumed.add(new Assumed(params, key, token, expiration));
    }

    private static String tag(String xml, String name) {
        int start = xml.indexOf("<" + name + ">");
        int end = xml.indexOf("</" + name + ">");
        if (start < 0 || end < 0) throw new IllegalStateException("no " + name + " in " + xml);
        return xml.substring(start + name.length() + 2, end);
    }

    private static Map<String, String> formParams(String body) {
        Map<String, String> out = new HashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq < 0) continue;
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }
}
