package lake.console;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;
import lake.metasrv.NodeClock;

import java.util.function.Predicate;

/**
 * The operator's console on a node's HTTP port: the page and its assets under {@code /ui/}
 * (from the jar, {@code src/main/resources/console}), and its read-only JSON views
 * {@code GET /v1/timeline}, {@code GET /v1/meters} and {@code GET /v1/access} (docs/http-api.md).
 * Everything else the page shows comes from the existing API. The views live under {@code /v1},
 * so the HTTP ingress checks the token before they run (a read: any valid token).
 *
 * <p>Each handler decides by the exact raw path, like the rest of the API: {@code /v1/./timeline}
 * is no route. Nothing here blocks: the timeline is one local message to its owner
 * ({@link TimelineVerticle}), the meters are read from the registry in memory.
 */
public final class ConsoleRoutes {
    public static final String TIMELINE = "/v1/timeline";
    public static final String METERS = "/v1/meters";
    public static final String ACCESS = "/v1/access";
    /** Nothing the page loads may come from anywhere but this node (no CDN, no inline script). */
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    /**
     * @param tokenKey         where the ingress's access check left the presented token in the routing context
     * @param tokensRequired   whether the node has tokens configured
     * @param mayWrite         whether a presented token (or {@code null}) may write, e.g. resign
     */
    public record Config(String nodeId, String timelineAddress, MeterRegistry registry, NodeClock clock,
                         String tokenKey, boolean tokensRequired, Predicate<String> mayWrite, long timeoutMs) {}

    private final Vertx vertx;
    private final Config config;

    public ConsoleRoutes(Vertx vertx, Config config) {
        this.vertx = vertx;
        this.config = config;
    }

    /** Adds the console's routes; call before any catch-all route. */
    public void mount(Router router) {
        StaticHandler assets = StaticHandler.create("console").setCachingEnabled(false).setDirectoryListing(false)
                .setIndexPage("index.html");
        router.route("/ui").handler(ctx -> {
            if (!ctx.request().path().equals("/ui")) {
                ctx.next();
                return;
            }
            ctx.response().setStatusCode(301).putHeader(HttpHeaders.LOCATION, "/ui/").end();
        });
        router.route("/ui/*").handler(ctx -> {
            if (ctx.request().method() != HttpMethod.GET && ctx.request().method() != HttpMethod.HEAD) {
                error(ctx, 405, "method_not_allowed", "method " + ctx.request().method() + " is not allowed on " + ctx.request().path());
                return;
            }
            ctx.response().putHeader("Content-Security-Policy", CSP).putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Referrer-Policy", "no-referrer");
            ctx.next();
        }).handler(assets);
        view(router, TIMELINE, this::timeline);
        view(router, METERS, ctx -> json(ctx, MeterView.of(config.registry(), config.nodeId(), config.clock().wallMillis())));
        view(router, ACCESS, ctx -> json(ctx, new JsonObject().put("node_id", config.nodeId())
                .put("tokens_required", config.tokensRequired())
                .put("may_write", config.mayWrite().test(ctx.get(config.tokenKey())))));
    }

    /** A read-only view: GET only, on the exact raw path, with neither a query string nor a body. */
    private void view(Router router, String path, io.vertx.core.Handler<RoutingContext> then) {
        router.route(path).handler(ctx -> {
            if (!ctx.request().path().equals(path)) {
                ctx.next();
                return;
            }
            if (ctx.request().method() != HttpMethod.GET) {
                error(ctx, 405, "method_not_allowed", "method " + ctx.request().method() + " is not allowed on " + path);
                return;
            }
            if (ctx.request().query() != null) {
                error(ctx, 400, "invalid_argument", "GET " + path + " takes no query parameters");
                return;
            }
            String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            if ((length != null && !length.equals("0")) || ctx.request().getHeader(HttpHeaders.TRANSFER_ENCODING) != null) {
                error(ctx, 400, "invalid_argument", "GET " + path + " takes no request body");
                return;
            }
            then.handle(ctx);
        });
    }

    private void timeline(RoutingContext ctx) {
        vertx.eventBus().<JsonObject>request(config.timelineAddress(), null, new DeliveryOptions().setSendTimeout(config.timeoutMs()))
                .onSuccess(reply -> json(ctx, reply.body()))
                .onFailure(t -> error(ctx, 503, "unavailable", "the epoch timeline did not answer: " + t.getMessage()));
    }

    private static void json(RoutingContext ctx, JsonObject body) {
        if (ctx.response().ended()) return;
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                .end(body.encode());
    }

    /** The API's error envelope ({@code {"error":{"code","message"}}}, docs/http-api.md). */
    private static void error(RoutingContext ctx, int status, String code, String message) {
        if (ctx.response().ended()) return;
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(new JsonObject().put("error", new JsonObject().put("code", code).put("message", message)).encode());
    }
}
