package lake.console;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import lake.metasrv.NodeClock;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
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
        router.route("/ui").handler(ctx -> {
            if (!ctx.request().path().equals("/ui")) {
                ctx.next();
                return;
            }
            ctx.response().setStatusCode(301).putHeader(HttpHeaders.LOCATION, "/ui/").end();
        });
        // A browser pointed at the node's address lands on the console. 302, not 301: the root is
        // not promised to the console for ever, and browsers cache a 301 indefinitely.
        router.route("/").handler(ctx -> {
            HttpMethod m = ctx.request().method();
            if (!ctx.request().path().equals("/") || (m != HttpMethod.GET && m != HttpMethod.HEAD)) {
                ctx.next();
                return;
            }
            ctx.response().setStatusCode(302).putHeader(HttpHeaders.LOCATION, "/ui/").end();
        });
        router.route("/ui/*").handler(this::asset);
        view(router, TIMELINE, this::timeline);
        view(router, METERS, ctx -> json(ctx, MeterView.of(config.registry(), config.nodeId(), config.clock().wallMillis())));
        view(router, ACCESS, ctx -> json(ctx, new JsonObject().put("node_id", config.nodeId())
                .put("tokens_required", config.tokensRequired())
                .put("may_write", config.mayWrite().test(ctx.get(config.tokenKey())))));
    }

    /**
     * Serves one of {@link #ASSETS}, from memory. Only those names are served: the assets are read
     * from the jar's class path, never from the file system (a directory named like the webroot
     * in the working directory must not become servable), and nothing else under {@code /ui/} exists.
     */
    private void asset(RoutingContext ctx) {
        HttpMethod method = ctx.request().method();
        if (method != HttpMethod.GET && method != HttpMethod.HEAD) {
            error(ctx, 405, "method_not_allowed", "method " + method + " is not allowed on " + ctx.request().path());
            return;
        }
        String name = ctx.request().path().substring("/ui/".length());
        Asset asset = ASSETS.get(name.isEmpty() ? "index.html" : name);
        if (asset == null) {
            error(ctx, 404, "not_found", "no console asset " + ctx.request().path());
            return;
        }
        assets(vertx).onComplete(ar -> {
            if (ctx.response().ended()) return;
            if (ar.failed()) {
                error(ctx, 500, "internal", "console assets could not be read: " + ar.cause().getMessage());
                return;
            }
            ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, asset.type())
                    .putHeader("Content-Security-Policy", CSP).putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Referrer-Policy", "no-referrer").putHeader(HttpHeaders.CACHE_CONTROL, "no-cache");
            if (method == HttpMethod.HEAD) ctx.response().putHeader(HttpHeaders.CONTENT_LENGTH,
                    String.valueOf(ar.result().get(asset.resource()).length())).end();
            else ctx.response().end(ar.result().get(asset.resource()));
        });
    }

    private record Asset(String resource, String type) {}

    /** Everything the page loads: its name under /ui/ → the class-path resource and its type. */
    private static final Map<String, Asset> ASSETS = Map.of(
            "index.html", new Asset("/console/index.html", "text/html; charset=utf-8"),
            "console.js", new Asset("/console/console.js", "text/javascript; charset=utf-8"),
            "console.css", new Asset("/console/console.css", "text/css; charset=utf-8"));

    /**
     * The assets' bytes, read once per process off the event loop (class-path reads are blocking
     * I/O). The bytes are kept, not the future: a future belongs to the Vert.x instance that
     * completed it, and a process (a test JVM) may run several instances one after another.
     */
    private static volatile Map<String, Buffer> loaded;

    private static Future<Map<String, Buffer>> assets(Vertx vertx) {
        Map<String, Buffer> bytes = loaded;
        if (bytes != null) return Future.succeededFuture(bytes);
        // Racing first requests may each read once; they all read the same bytes.
        return vertx.executeBlocking(() -> {
            Map<String, Buffer> out = new HashMap<>();
            for (Asset a : ASSETS.values()) {
                try (InputStream in = ConsoleRoutes.class.getResourceAsStream(a.resource())) {
                    if (in == null) throw new IllegalStateException("missing from the jar: " + a.resource());
                    out.put(a.resource(), Buffer.buffer(in.readAllBytes()));
                }
            }
            loaded = Map.copyOf(out);
            return loaded;
        }, false);
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
