package lake.server;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP ingress of one node: parses requests, serves them with this instance's own
 * {@link NodeApi} on the same event loop, and renders replies. Several instances share the port,
 * each on its own event loop; a request crosses threads only to reach the store verticle.
 * The API is documented in docs/http-api.md.
 */
public final class HttpVerticle extends VerticleBase {
    public static final int MAX_BODY_BYTES = 512 * 1024;
    private static final String JSON = "application/json";

    private final NodeApi.Config config;
    private final String nodeId;
    private final String host;
    private final int port;
    private final long requestTimeoutMs;
    private final AccessControl access;
    private final NodeMetrics metrics;
    private final long drainMs;
    private volatile HttpServer server;
    private NodeApi api;

    /** @param drainMs on stop, how long requests in flight may take to finish before connections close */
    public HttpVerticle(NodeApi.Config config, String host, int port, AccessControl access, long drainMs) {
        this.config = config;
        this.nodeId = config.settings().nodeId();
        this.host = host;
        this.port = port;
        this.requestTimeoutMs = config.requestTimeoutMs();
        this.access = access;
        this.metrics = config.metrics();
        this.drainMs = drainMs;
    }

    public boolean isBound() {
        return server != null;
    }

    /** The port actually bound (useful with port 0). */
    public int actualPort() {
        return server.actualPort();
    }

    @Override
    public Future<?> start() {
        Router router = Router.router(vertx);
        // Before the body is read: a refused request costs no buffering and reaches nothing.
        router.route("/v1/*").handler(access::http);
        router.route().handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES));
        router.get("/metrics").handler(ctx -> ctx.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape()));
        router.get("/health").handler(ctx -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, JSON)
                .end(new JsonObject().put("status", "up").put("node_id", nodeId).encode()));
        router.get("/ready").handler(ctx -> call(ctx, NodeApi.READY, new JsonObject()));
        router.get("/v1/leader").handler(ctx -> call(ctx, NodeApi.LEADER, new JsonObject()));
        router.get("/v1/cluster").handler(ctx -> call(ctx, NodeApi.CLUSTER, new JsonObject()));
        router.post("/v1/leader/resign").handler(ctx -> call(ctx, NodeApi.RESIGN, new JsonObject()));
        router.post("/v1/kv/cas").handler(ctx -> call(ctx, NodeApi.CAS, jsonBody(ctx)));
        router.post("/v1/kv/delete").handler(ctx -> call(ctx, NodeApi.DELETE, jsonBody(ctx)));
        router.get("/v1/kv").handler(this::scan);
        router.get("/v1/kv/*").handler(this::get);
        // Paths that exist for other methods only, so the router answers 405 rather than 404.
        router.route("/v1/kv/*").handler(ctx -> ctx.fail(405));

        router.errorHandler(404, ctx -> fail(ctx, new ApiError(404, "not_found", "no route " + ctx.request().method()
                + " " + ctx.request().path(), null)));
        router.errorHandler(405, ctx -> fail(ctx, new ApiError(405, "method_not_allowed", "method "
                + ctx.request().method() + " is not allowed on " + ctx.request().path(), null)));
        router.errorHandler(413, ctx -> fail(ctx, ApiError.tooLarge("request body exceeds " + MAX_BODY_BYTES + " bytes")));
        router.errorHandler(400, ctx -> fail(ctx, ctx.failure() instanceof ApiError e ? e
                : ApiError.invalid(ctx.failure() == null ? "bad request" : ctx.failure().getMessage())));
        router.errorHandler(500, ctx -> fail(ctx, ctx.failure() instanceof ApiError e ? e : ApiError.from(ctx.failure())));

        api = new NodeApi(context, config);
        return api.start().compose(v -> vertx.createHttpServer().requestHandler(router).listen(port, host))
                .onSuccess(s -> server = s);
    }

    /** Stops accepting connections at once; requests in flight get up to {@code drainMs} to finish. */
    @Override
    public Future<?> stop() {
        Future<Void> drained = server == null ? Future.succeededFuture() : server.shutdown(drainMs, TimeUnit.MILLISECONDS);
        return drained.eventually(() -> api == null ? Future.succeededFuture() : api.stop());
    }

    private void get(RoutingContext ctx) {
        String raw = ctx.request().path().substring("/v1/kv/".length());
        String key;
        try {
            key = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            fail(ctx, ApiError.invalid("key in the path is not valid percent-encoding"));
            return;
        }
        call(ctx, NodeApi.GET, new JsonObject().put("key", key));
    }

    private void scan(RoutingContext ctx) {
        JsonObject body = new JsonObject();
        for (String name : ctx.queryParams().names()) {
            if (!Set.of("prefix", "limit", "continuation").contains(name)) {
                fail(ctx, ApiError.invalid("unknown query parameter '" + name + "'"));
                return;
            }
        }
        String prefix = ctx.queryParams().get("prefix");
        body.put("prefix", prefix == null ? "" : prefix);
        String continuation = ctx.queryParams().get("continuation");
        if (continuation != null) body.put("continuation", continuation);
        String limit = ctx.queryParams().get("limit");
        if (limit != null) {
            try {
                body.put("limit", Long.parseLong(limit));
            } catch (NumberFormatException e) {
                fail(ctx, ApiError.invalid("query parameter 'limit' must be an integer, got '" + limit + "'"));
                return;
            }
        }
        call(ctx, NodeApi.SCAN, body);
    }

    private static JsonObject jsonBody(RoutingContext ctx) {
        if (ctx.body() == null || ctx.body().length() == 0) throw ApiError.invalid("request body must be a JSON object");
        try {
            return ctx.body().asJsonObject();
        } catch (DecodeException | ClassCastException e) {
            throw ApiError.invalid("request body is not a JSON object: " + e.getMessage());
        }
    }

    /**
     * Answers with whatever {@link NodeApi} decides, or with {@code 504 outcome_unknown} if it has
     * not decided within the request timeout (a write may still apply after that).
     */
    private void call(RoutingContext ctx, String op, JsonObject body) {
        MultiMap headers = HttpHeaders.headers();
        String token = ctx.get(AccessControl.TOKEN_HEADER);
        if (token != null) headers.add(AccessControl.TOKEN_HEADER, token);
        long timer = vertx.setTimer(requestTimeoutMs, id -> fail(ctx, new ApiError(504, "outcome_unknown",
                "no answer within the request timeout; a write may or may not have applied", null)));
        api.serve(op, body, headers).onComplete(ar -> {
            vertx.cancelTimer(timer);
            if (ctx.response().ended()) return;
            if (ar.succeeded()) {
                ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(ar.result().encode());
            } else {
                fail(ctx, ApiError.from(ar.cause()));
            }
        });
    }

    private static void fail(RoutingContext ctx, ApiError e) {
        if (ctx.response().ended()) return;
        ctx.response().setStatusCode(e.status()).putHeader(HttpHeaders.CONTENT_TYPE, JSON);
        if (e.retryAfterSeconds() != null) ctx.response().putHeader(HttpHeaders.RETRY_AFTER, String.valueOf(e.retryAfterSeconds()));
        ctx.response().end(e.toJson().encode());
    }
}
