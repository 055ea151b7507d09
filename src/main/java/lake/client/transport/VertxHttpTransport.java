package lake.client.transport;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import lake.client.model.ClientOptions;
import lake.client.model.Json;
import lake.client.model.NodeHealth;

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
public final class VertxHttpTransport implements Transport {
    private final Vertx vertx;
    private final boolean ownsVertx;
    private final List<URI> endpoints;
    private final String token;
    /** Connections per endpoint for calls (Vert.x's default, 5, would queue a busy application's calls). */
    public static final int CALL_POOL = 32;
    /** Connections per endpoint for long polls, which hold theirs for up to their wait. */
    static final int POLL_POOL = 64;

    private final HttpClientAgent http;
    /** Long polls have their own pool: polls in progress never make a call wait for a connection. */
    private final HttpClientAgent polls;

    public VertxHttpTransport(Vertx vertx, boolean ownsVertx, ClientOptions options) {
        this.vertx = vertx;
        this.ownsVertx = ownsVertx;
        this.endpoints = options.endpoints();
        this.token = options.token();
        HttpClientOptions o = new HttpClientOptions()
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
                .setMaxInitialLineLength(16 * 1024);
        this.http = vertx.createHttpClient(o, new PoolOptions().setHttp1MaxSize(CALL_POOL));
        this.polls = vertx.createHttpClient(o, new PoolOptions().setHttp1MaxSize(POLL_POOL));
    }

    @Override public int endpoints() { return endpoints.size(); }

    @Override public String endpoint(int i) { return endpoints.get(i).toString(); }

    @Override
    public Future<Map<String, Object>> send(Call call, int endpoint, long timeoutMs, long minSendMs) {
        String body = call.httpBody() == null ? null : Json.write(call.httpBody());
        HttpClientAgent client = call.waitMs() > 0 ? polls : http;
        return HttpReplies.reply(exchange(client, endpoints.get(endpoint), call.method(), call.path(), body, call.epoch(), timeoutMs,
                minSendMs));
    }

    /**
     * One request. Getting a connection (from the pool, or a new one) may take up to the whole
     * budget and fails as {@link NotSent}: nothing was written. The time left after that is what
     * the answer may take before the attempt is {@link Lost}.
     */
    private Future<HttpReplies.Answer> exchange(HttpClientAgent client, URI base, HttpMethod method, String path, String body,
                                                Long epoch, long timeoutMs, long minSendMs) {
        int port = base.getPort() != -1 ? base.getPort() : "https".equals(base.getScheme()) ? 443 : 80;
        RequestOptions ro = new RequestOptions().setMethod(method).setHost(base.getHost()).setPort(port)
                .setSsl("https".equals(base.getScheme())).setURI(path).setFollowRedirects(false)
                .setConnectTimeout(Math.max(1, Math.min(timeoutMs, Integer.MAX_VALUE)));
        ro.putHeader("Accept", "application/json");
        if (token != null) ro.putHeader("Authorization", "Bearer " + token);
        if (epoch != null) ro.putHeader("Lake-Epoch", Long.toUnsignedString(epoch));
        if (body != null) ro.putHeader("Content-Type", "application/json");
        Promise<HttpReplies.Answer> answer = Promise.promise();
        long started = System.nanoTime();
        client.request(ro).onComplete(ar -> {
            if (ar.failed()) {
                answer.tryFail(new NotSent("cannot connect to " + base + ": " + ar.cause(), ar.cause()));
                return;
            }
            HttpClientRequest req = ar.result();
            long waitedMs = (System.nanoTime() - started) / 1_000_000L;
            long leftMs = timeoutMs - waitedMs;
            // A request that waited for a connection and would be sent with too little time left
            // is not sent: the deadline would cut it short and a write would become unknown.
            if (leftMs <= 0 || (waitedMs > 0 && leftMs < Math.max(Transport.sendFloorMs(timeoutMs), minSendMs))) {
                req.reset();
                answer.tryFail(new NotSent("no connection to " + base + " in time (waited " + waitedMs + " of "
                        + timeoutMs + " ms)", null));
                return;
            }
            // From here on the request may reach the node: every failure is Lost.
            long timer = vertx.setTimer(leftMs, id -> answer.tryFail(new Lost("no answer from " + base + " within "
                    + timeoutMs + " ms", null)));
            answer.future().onComplete(x -> vertx.cancelTimer(timer));
            answer.future().onFailure(t -> req.reset());
            (body == null ? req.send() : req.send(Buffer.buffer(body)))
                    .compose(resp -> resp.body().map(b -> new HttpReplies.Answer(resp.statusCode(), resp.getHeader("Retry-After"), b.toString())))
                    .onComplete(r -> {
                        if (r.succeeded()) answer.tryComplete(r.result());
                        else answer.tryFail(new Lost("no answer from " + base + ": " + r.cause(), r.cause()));
                    });
        });
        return answer.future();
    }

    @Override
    public Future<List<NodeHealth>> health(long timeoutMs) {
        List<Future<NodeHealth>> each = new ArrayList<>();
        for (URI e : endpoints) {
            each.add(exchange(http, e, HttpMethod.GET, "/health", null, null, timeoutMs, 0).compose(h -> {
                if (h.status() != 200) return Future.succeededFuture(new NodeHealth(e.toString(), false, null, false, "HTTP " + h.status()));
                String node;
                try {
                    node = HttpReplies.healthNodeId(h.body());
                } catch (IllegalArgumentException notMetasrv) {
                    return Future.succeededFuture(new NodeHealth(e.toString(), false, null, false, notMetasrv.getMessage()));
                }
                return exchange(http, e, HttpMethod.GET, "/ready", null, null, timeoutMs, 0)
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
        Future<Void> closed = Future.join(http.close(), polls.close()).mapEmpty();
        return ownsVertx ? closed.eventually(vertx::close) : closed;
    }
}
