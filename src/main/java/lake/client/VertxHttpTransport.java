package lake.client;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * HTTP over Vert.x's non-blocking client, for applications that run Vert.x: futures complete on
 * the caller's context when it has one.
 *
 * <p>Invariant: a request whose connection could not be obtained ({@code request()} failed) is
 * {@link Transport.NotSent}; once the request may have been written, any failure (a reset, a
 * closed connection, the deadline) is {@link Transport.Lost}. Vert.x never re-sends a request.
 */
final class VertxHttpTransport implements Transport {
    private final Vertx vertx;
    private final boolean ownsVertx;
    private final List<URI> endpoints;
    private final String token;
    private final HttpClientAgent http;

    VertxHttpTransport(Vertx vertx, boolean ownsVertx, ClientOptions options) {
        this.vertx = vertx;
        this.ownsVertx = ownsVertx;
        this.endpoints = options.endpoints();
        this.token = options.token();
        this.http = vertx.createHttpClient(new HttpClientOptions()
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
                .setMaxInitialLineLength(16 * 1024));
    }

    @Override public int endpoints() { return endpoints.size(); }

    @Override public String endpoint(int i) { return endpoints.get(i).toString(); }

    @Override
    public Future<Map<String, Object>> send(Call call, int endpoint, long timeoutMs) {
        String body = call.httpBody() == null ? null : Json.write(call.httpBody());
        return HttpReplies.reply(exchange(endpoints.get(endpoint), call.method(), call.path(), body, call.epoch(), timeoutMs));
    }

    private Future<HttpReplies.Answer> exchange(URI base, HttpMethod method, String path, String body, Long epoch, long timeoutMs) {
        int port = base.getPort() != -1 ? base.getPort() : "https".equals(base.getScheme()) ? 443 : 80;
        RequestOptions ro = new RequestOptions().setMethod(method).setHost(base.getHost()).setPort(port)
                .setSsl("https".equals(base.getScheme())).setURI(path).setFollowRedirects(false)
                .setConnectTimeout(Math.max(1, Math.min(timeoutMs, Integer.MAX_VALUE)));
        ro.putHeader("Accept", "application/json");
        if (token != null) ro.putHeader("Authorization", "Bearer " + token);
        if (epoch != null) ro.putHeader("Lake-Epoch", Long.toUnsignedString(epoch));
        if (body != null) ro.putHeader("Content-Type", "application/json");
        Promise<HttpReplies.Answer> answer = Promise.promise();
        long timer = vertx.setTimer(Math.max(1, timeoutMs), id -> answer.tryFail(new Lost("no answer from " + base + " within "
                + timeoutMs + " ms", null)));
        http.request(ro).onComplete(ar -> {
            if (ar.failed()) {
                answer.tryFail(new NotSent("cannot connect to " + base + ": " + ar.cause(), ar.cause()));
                return;
            }
            HttpClientRequest req = ar.result();
            // From here on the request may reach the node: every failure is Lost.
            answer.future().onFailure(t -> req.reset());
            (body == null ? req.send() : req.send(Buffer.buffer(body)))
                    .compose(resp -> resp.body().map(b -> new HttpReplies.Answer(resp.statusCode(), resp.getHeader("Retry-After"), b.toString())))
                    .onComplete(r -> {
                        if (r.succeeded()) answer.tryComplete(r.result());
                        else answer.tryFail(new Lost("no answer from " + base + ": " + r.cause(), r.cause()));
                    });
        });
        return answer.future().onComplete(x -> vertx.cancelTimer(timer));
    }

    @Override
    public Future<List<NodeHealth>> health(long timeoutMs) {
        List<Future<NodeHealth>> each = new ArrayList<>();
        for (URI e : endpoints) {
            each.add(exchange(e, HttpMethod.GET, "/health", null, null, timeoutMs).compose(h -> {
                if (h.status() != 200) return Future.succeededFuture(new NodeHealth(e.toString(), false, null, false, "HTTP " + h.status()));
                String node;
                try {
                    node = HttpReplies.healthNodeId(h.body());
                } catch (IllegalArgumentException notMetasrv) {
                    return Future.succeededFuture(new NodeHealth(e.toString(), false, null, false, notMetasrv.getMessage()));
                }
                return exchange(e, HttpMethod.GET, "/ready", null, null, timeoutMs)
                        .map(r -> new NodeHealth(e.toString(), true, node, r.status() == 200, null))
                        .otherwise(t -> new NodeHealth(e.toString(), true, node, false, null));
            }).otherwise(t -> new NodeHealth(e.toString(), false, null, false, t.getMessage())));
        }
        return Future.all(each).map(cf -> {
            List<NodeHealth> out = new ArrayList<>();
            for (Future<NodeHealth> f : each) out.add(f.result());
            return out;
        });
    }

    @Override
    public Future<Void> delay(long ms) {
        return vertx.timer(Math.max(1, ms)).mapEmpty();
    }

    @Override
    public Future<Void> close() {
        Future<Void> closed = http.close();
        return ownsVertx ? closed.eventually(vertx::close) : closed;
    }
}
