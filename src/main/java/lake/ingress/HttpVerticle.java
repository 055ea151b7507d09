package lake.ingress;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import lake.api.AccessControl;
import lake.api.IcebergWire;
import lake.api.NodeApi;
import lake.bus.Bus;
import lake.catalogapi.CatalogRoutes;
import lake.metrics.NodeMetrics;
import lake.protocol.ApiError;
import lake.protocol.ApiRequests;
import lake.protocol.HttpInput;
import lake.protocol.Ops;
import lake.protocol.StrictJson;
import lake.security.ReloadableTls;
import lake.security.TlsMaterial;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP ingress of one node: parses requests, serves them with this instance's own
 * {@link NodeApi} on the same event loop, and renders replies. Several instances share the port,
 * each on its own event loop; a request crosses threads only to reach the store verticle.
 * The API is documented in docs/http-api.md.
 */
public final class HttpVerticle extends VerticleBase {
    /**
     * Body limits per route, each the largest valid request it can take plus room for JSON
     * whitespace: a key of 1,024 bytes escaped ({@code \\u0001} is 6 characters a byte), and
     * base64 values of 256 KiB (349,528 characters each).
     */
    public static final int CAS_BODY_BYTES = 768 * 1024;
    public static final int DELETE_BODY_BYTES = 384 * 1024;
    public static final int RESIGN_BODY_BYTES = 1024;
    /** A grant: a principal's name, a namespace and a name of 1,024 characters each escaped 6-to-1, five privileges. */
    public static final int GRANT_BODY_BYTES = 16 * 1024;
    /** Catalog writes: a table's columns and a namespace's properties, with room to spare. */
    public static final int CATALOG_BODY_BYTES = 256 * 1024;
    /**
     * A transaction of 4 MiB of keys and values is 5.6 MB in base64; 99 keys escaped 6-to-1 add
     * 0.6 MB, and each operation's JSON about 60 bytes.
     */
    public static final int TXN_BODY_BYTES = 8 * 1024 * 1024;
    /** Fits a 1,024-byte key or prefix percent-encoded (3,072 characters) plus its continuation. */
    public static final int MAX_REQUEST_LINE = 16 * 1024;
    public static final int MAX_HEADER_BYTES = 16 * 1024;
    private static final String KV_PATH = "/v1/kv/";
    /** The raw paths of the routes the router serves (key reads and the catalog are matched before it). */
    private static final Set<String> EXACT_ROUTES = Set.of("/metrics", "/health", "/ready", "/v1/leader", "/v1/cluster",
            "/v1/leader/resign", "/v1/kv/cas", "/v1/kv/delete", "/v1/txn", "/v1/kv", KV_PATH, "/v1/watch", "/v1/revision",
            "/v1/grants", "/v1/grants/revoke");
    private static final Set<String> WATCH_PARAMETERS = Set.of("prefix", "after", "limit", "wait_ms");
    private static final Set<String> EVENTS_PARAMETERS = Set.of("after", "limit", "wait_ms");
    /** The catalog's typed events, served as a watch of the feed's catalog records. */
    private static final String CATALOG_EVENTS = "/v1/catalog/events";
    /** Bytes an SSE watcher may leave unread before it is cut off (with the revision to resume after). */
    public static final int WATCH_MAX_PENDING_BYTES = 1024 * 1024;
    /** How often an idle SSE stream gets a comment line, so proxies keep it and dead clients are noticed. */
    static final long WATCH_KEEPALIVE_MS = 15_000;
    private static final Set<String> SCAN_PARAMETERS = Set.of("prefix", "limit", "continuation", "hide_system");
    private static final String JSON = "application/json";
    /** Where the Iceberg REST catalog is mounted: a client's {@code uri} is {@code http://host:port/iceberg}. */
    public static final String ICEBERG = "/iceberg/";
    /** An Iceberg request body: table metadata updates and view definitions can be large. */
    public static final int ICEBERG_BODY_BYTES = 16 * 1024 * 1024;

    private final NodeApi.Config config;
    private final String nodeId;
    private final String host;
    private final int port;
    private final long requestTimeoutMs;
    private final AccessControl access;
    private final NodeMetrics metrics;
    private final long drainMs;
    private final ReloadableTls tls;
    private volatile HttpServer server;
    private NodeApi api;
    private Runnable stopRotating = () -> {};
    /**
     * Each record's SSE event, rendered once for every stream of this instance that is shown the
     * whole record (a record shown in part is a copy, rendered for its watcher alone).
     */
    private final SseEvents sseEvents = new SseEvents(4_096, 16L * 1024 * 1024);

    /** The newest records' SSE text, keyed by the record object the tail holds. */
    private static final class SseEvents {
        private final int capacity;
        private final long maxBytes;
        private final java.util.IdentityHashMap<lake.feed.ChangeRecord, Buffer> byRecord = new java.util.IdentityHashMap<>();
        private final java.util.ArrayDeque<lake.feed.ChangeRecord> order = new java.util.ArrayDeque<>();
        private long bytes;

        /** At most {@code capacity} records and about {@code maxBytes} of text. */
        SseEvents(int capacity, long maxBytes) {
            this.capacity = capacity;
            this.maxBytes = maxBytes;
        }

        Buffer of(lake.feed.ChangeRecord r) {
            Buffer cached = byRecord.get(r);
            if (cached != null) return cached;
            byte[] utf8 = ("id: " + Long.toUnsignedString(r.revision()) + "\ndata: "
                    + new JsonObject(lake.watch.Watches.render(r)).encode() + "\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            // Direct, and written as it is to every stream (slices, never copied or released): a heap
            // buffer would be copied into a direct one by each socket's write, a thousand times per record.
            java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(utf8.length).put(utf8).flip();
            Buffer text = io.vertx.core.internal.buffer.BufferInternal.buffer(io.netty.buffer.Unpooled.wrappedBuffer(direct));
            byRecord.put(r, text);
            order.addLast(r);
            bytes += text.length();
            while (order.size() > capacity || (bytes > maxBytes && order.size() > 1)) bytes -= byRecord.remove(order.removeFirst()).length();
            return text;
        }
    }

    /** Open SSE streams on this instance: each is ended (with where to resume) when the instance stops. */
    private final java.util.Map<HttpServerResponse, lake.watch.Watches.Watch> streams = new java.util.HashMap<>();
    private long keepalive = -1;

    /**
     * @param drainMs on stop, how long requests in flight may take to finish before connections close
     * @param tls     with material, the port serves TLS only (TLS 1.2+; client certificates required
     *                when it has a CA), and takes each rotation without a restart; {@code null}: plain HTTP
     */
    public HttpVerticle(NodeApi.Config config, String host, int port, AccessControl access, long drainMs, ReloadableTls tls) {
        this.config = config;
        this.nodeId = config.settings().nodeId();
        this.host = host;
        this.port = port;
        this.requestTimeoutMs = config.requestTimeoutMs();
        this.access = access;
        this.metrics = config.metrics();
        this.drainMs = drainMs;
        this.tls = tls;
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
        // Before anything else, on the raw path (the router matches a normalised one, in which
        // "/v1/kv/../../x" is "/x"): /v1 needs a token, and a key read is decided by its raw path,
        // so every key (one made of slashes, one with dot segments) can be read as it is written.
        router.route().handler(ctx -> {
            String path = ctx.request().path();
            if (path.startsWith("/v1/") || ctx.normalizedPath().startsWith("/v1/")
                    || path.startsWith(ICEBERG) || ctx.normalizedPath().startsWith(ICEBERG)) access.http(ctx);
            else ctx.next();
        });
        router.route().handler(this::iceberg);
        router.route().handler(this::keyRead);
        router.route().handler(this::catalog);
        // The operator's console (/ui/ and its read-only views), matched on exact raw paths too.
        new lake.console.ConsoleRoutes(vertx, new lake.console.ConsoleRoutes.Config(nodeId, Bus.timeline(nodeId),
                metrics.registry(), config.clock(), Bus.TOKEN_HEADER, access.required(), access::mayWrite,
                requestTimeoutMs)).mount(router);
        // Every other route is matched on its exact raw path: "//v1/kv/cas", "/v1/kv/%63as",
        // "/v1/kv/./cas" or "/v1/txn/" name no route, though the router would normalise them to one.
        router.route().handler(ctx -> {
            String raw = ctx.request().path();
            if (EXACT_ROUTES.contains(raw)) ctx.next();
            else if (raw.startsWith(KV_PATH)) ctx.fail(405);
            else ctx.fail(404);
        });
        router.get("/metrics").handler(ctx -> withoutQueryOrBody(ctx, "GET /metrics", () -> ctx.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape())));
        router.get("/health").handler(ctx -> withoutQueryOrBody(ctx, "GET /health", () -> ctx.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, JSON)
                .end(new JsonObject(new lake.wire.Health(lake.wire.Health.UP, nodeId).toMap()).encode())));
        router.get("/ready").handler(ctx -> withoutQueryOrBody(ctx, "GET /ready", () -> call(ctx, Ops.READY, null)));
        router.get("/v1/leader").handler(ctx -> withoutQueryOrBody(ctx, "GET /v1/leader", () -> call(ctx, Ops.LEADER, null)));
        router.get("/v1/cluster").handler(ctx -> withoutQueryOrBody(ctx, "GET /v1/cluster", () -> call(ctx, Ops.CLUSTER, null)));
        post(router, "/v1/leader/resign", Ops.RESIGN, RESIGN_BODY_BYTES);
        post(router, "/v1/kv/cas", Ops.CAS, CAS_BODY_BYTES);
        post(router, "/v1/kv/delete", Ops.DELETE, DELETE_BODY_BYTES);
        post(router, "/v1/txn", Ops.TXN, TXN_BODY_BYTES);
        router.get("/v1/kv").handler(this::scan);
        router.get("/v1/watch").handler(ctx -> watch(ctx, false));
        router.get("/v1/revision").handler(ctx -> withoutQueryOrBody(ctx, "GET /v1/revision", () -> call(ctx, Ops.REVISION, null)));
        router.get("/v1/grants").handler(this::grants);
        post(router, "/v1/grants", Ops.GRANT, GRANT_BODY_BYTES);
        post(router, "/v1/grants/revoke", Ops.REVOKE, GRANT_BODY_BYTES);
        // "/v1/kv/" (the scan) with another method: 405 rather than 404. Other raw paths under
        // /v1/kv/ never get here: key reads are served above, other methods refused above.
        router.route("/v1/kv/*").handler(ctx -> ctx.fail(405));

        router.errorHandler(404, ctx -> fail(ctx, new ApiError(404, "not_found", "no route " + ctx.request().method()
                + " " + ctx.request().path(), null)));
        router.errorHandler(405, ctx -> fail(ctx, new ApiError(405, "method_not_allowed", "method "
                + ctx.request().method() + " is not allowed on " + ctx.request().path(), null)));
        router.errorHandler(400, ctx -> fail(ctx, ctx.failure() instanceof ApiError e ? e
                : ApiError.invalid("malformed HTTP request" + (ctx.failure() == null ? "" : ": " + ctx.failure().getMessage()))));
        router.errorHandler(500, ctx -> fail(ctx, ctx.failure() instanceof ApiError e ? e : ApiError.from(ctx.failure())));

        api = new NodeApi(context, config);
        HttpServerOptions options = new HttpServerOptions()
                .setMaxInitialLineLength(MAX_REQUEST_LINE).setMaxHeaderSize(MAX_HEADER_BYTES);
        if (tls != null) {
            TlsMaterial m = tls.current();
            options.setSsl(true).setKeyCertOptions(m.keyCertOptions()).setEnabledSecureTransportProtocols(TlsMaterial.PROTOCOLS);
            if (m.trustOptions() != null) options.setTrustOptions(m.trustOptions()).setClientAuth(ClientAuth.REQUIRED);
            // A rotation reaches every instance's server on its own event loop; connections already
            // open keep their session, new handshakes present the new certificate.
            stopRotating = tls.onChange(next -> context.runOnContext(v -> {
                if (server != null) {
                    server.updateSSLOptions(next.serverOptions(), false).onFailure(t ->
                            org.slf4j.LoggerFactory.getLogger(HttpVerticle.class).warn("TLS rotation not applied: {}", t.toString()));
                }
            }));
        }
        return api.start().compose(v -> vertx.createHttpServer(options)
                        .invalidRequestHandler(HttpVerticle::invalidRequest)
                        .requestHandler(router).listen(port, host))
                .onSuccess(s -> server = s);
    }

    /**
     * What the HTTP layer refuses before any route (request line or headers too long, a request
     * it cannot parse) gets the same JSON error envelope as every other refusal.
     */
    private static void invalidRequest(HttpServerRequest request) {
        DecoderResult result = request.decoderResult();
        Throwable cause = result == null ? null : result.cause();
        ApiError error;
        if (cause instanceof TooLongHttpLineException) {
            error = new ApiError(414, "uri_too_long", "request line exceeds " + MAX_REQUEST_LINE + " bytes", null);
        } else if (cause instanceof TooLongHttpHeaderException) {
            error = new ApiError(431, "headers_too_large", "request headers exceed " + MAX_HEADER_BYTES + " bytes", null);
        } else {
            error = ApiError.invalid("malformed HTTP request" + (cause == null ? "" : ": " + cause.getMessage()));
        }
        request.response().setStatusCode(error.status()).putHeader(HttpHeaders.CONTENT_TYPE, JSON)
                .putHeader(HttpHeaders.CONNECTION, "close").end(error.toJson().encode());
    }

    private void post(Router router, String path, String op, int maxBody) {
        router.post(path).handler(ctx -> {
            try {
                HttpInput.noQuery(ctx.request().uri(), "POST " + path);
            } catch (ApiError e) {
                fail(ctx, e);
                return;
            }
            readBody(ctx, maxBody, body -> call(ctx, op, body.length() == 0 && op.equals(Ops.RESIGN) ? null : body));
        });
    }

    /**
     * Reads the whole body, at most {@code limit} bytes, whatever the Content-Type says: the API
     * speaks JSON only, so a body is never decoded as a form (curl's default type) or anything else.
     */
    private void readBody(RoutingContext ctx, int limit, Handler<Buffer> then) {
        HttpServerRequest request = ctx.request();
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null && length.length() < 12 && length.chars().allMatch(Character::isDigit)
                && Long.parseLong(length) > limit) {
            tooLarge(ctx, limit);
            return;
        }
        Buffer body = Buffer.buffer();
        request.handler(chunk -> {
            if (ctx.response().ended()) return;
            if (body.length() + chunk.length() > limit) tooLarge(ctx, limit);
            else body.appendBuffer(chunk);
        });
        request.endHandler(v -> {
            if (!ctx.response().ended()) then.handle(body);
        });
        request.exceptionHandler(t -> fail(ctx, ApiError.invalid("request body could not be read: " + t.getMessage())));
        request.resume();
    }

    private static void tooLarge(RoutingContext ctx, int limit) {
        ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
        fail(ctx, ApiError.tooLarge("request body exceeds " + limit + " bytes, the most this route's largest valid request needs"));
    }

    /** Routes that take neither a query string nor a body. */
    private static void withoutQueryOrBody(RoutingContext ctx, String route, Runnable then) {
        try {
            HttpInput.noQuery(ctx.request().uri(), route);
            noBody(ctx, route);
        } catch (ApiError e) {
            fail(ctx, e);
            return;
        }
        then.run();
    }

    private static void noBody(RoutingContext ctx, String route) {
        String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if ((length != null && !length.equals("0")) || ctx.request().getHeader(HttpHeaders.TRANSFER_ENCODING) != null) {
            throw ApiError.invalid(route + " takes no request body");
        }
    }

    /** Stops accepting connections at once; requests in flight get up to {@code drainMs} to finish. */
    @Override
    public Future<?> stop() {
        stopRotating.run();
        vertx.cancelTimer(keepalive);
        for (var open : new java.util.ArrayList<>(streams.entrySet())) {
            open.getValue().cancel();
            endStream(open.getKey(), "cutoff", new JsonObject().put("resume_after", ApiRequests.u64(open.getValue().cursor()))
                    .put("reason", "the node is stopping"));
        }
        Future<Void> drained = server == null ? Future.succeededFuture() : server.shutdown(drainMs, TimeUnit.MILLISECONDS);
        return drained.eventually(() -> api == null ? Future.succeededFuture() : api.stop());
    }

    /**
     * {@code GET /v1/kv/{key}}: the key is everything after {@code /v1/kv/} in the raw path,
     * percent-decoded strictly. {@code /v1/kv/} alone is the scan of every key.
     */
    private void keyRead(RoutingContext ctx) {
        String path = ctx.request().path();
        if (ctx.request().method() != HttpMethod.GET || !path.startsWith(KV_PATH) || path.length() == KV_PATH.length()) {
            ctx.next();
            return;
        }
        String key;
        try {
            HttpInput.noQuery(ctx.request().uri(), "GET /v1/kv/{key}");
            noBody(ctx, "GET /v1/kv/{key}");
            key = HttpInput.pathSegment(path.substring(KV_PATH.length()), "key in the path");
            try {
                lake.meta.Keys.validateKey(key);
            } catch (lake.meta.MetaException.InvalidArgument e) {
                throw ApiError.invalid("key in the path: " + e.getMessage());
            }
        } catch (ApiError e) {
            fail(ctx, e);
            return;
        }
        call(ctx, Ops.GET, new JsonObject().put("key", key));
    }

    /** The catalog's routes ({@link CatalogRoutes}), decided on the raw path like key reads. */
    private void catalog(RoutingContext ctx) {
        String path = ctx.request().path();
        if (path.equals(CATALOG_EVENTS)) {
            if (ctx.request().method() == HttpMethod.GET) watch(ctx, true);
            else fail(ctx, new ApiError(405, "method_not_allowed", "method " + ctx.request().method() + " is not allowed on " + path, null));
            return;
        }
        if (!CatalogRoutes.handles(path)) {
            ctx.next();
            return;
        }
        CatalogRoutes.Route route;
        try {
            route = CatalogRoutes.resolve(ctx.request().method(), path, ctx.request().uri(), ctx.request().query());
            if (!route.readsBody()) noBody(ctx, ctx.request().method() + " " + path);
        } catch (ApiError e) {
            fail(ctx, e);
            return;
        }
        long waitMs = route.fromPath().getLong("wait_ms", 0L);
        if (!route.readsBody()) {
            call(ctx, route.op(), route.fromPath(), waitMs);
            return;
        }
        readBody(ctx, CATALOG_BODY_BYTES, body -> {
            JsonObject merged;
            try {
                merged = CatalogRoutes.merge(route, StrictJson.object(body));
            } catch (ApiError e) {
                fail(ctx, e);
                return;
            }
            call(ctx, route.op(), merged, 0);
        });
    }

    /**
     * {@code /iceberg/...}: Iceberg's REST catalog (lake.iceberg). The body is read here, the
     * request runs on the service's bounded worker threads (Iceberg's API blocks), and the answer
     * is written back on this event loop.
     */
    private void iceberg(RoutingContext ctx) {
        String path = ctx.request().path();
        if (!path.startsWith(ICEBERG)) {
            ctx.next();
            return;
        }
        if (config.iceberg() == null) {
            ctx.fail(404);
            return;
        }
        long start = System.nanoTime();
        readBody(ctx, ICEBERG_BODY_BYTES, body -> {
            java.util.Map<String, String> query = new java.util.HashMap<>();
            ctx.queryParams().forEach(e -> query.putIfAbsent(e.getKey(), e.getValue()));
            lake.iceberg.rest.IcebergRequest request = new lake.iceberg.rest.IcebergRequest(ctx.request().method().name(),
                    java.util.Arrays.asList(path.substring(ICEBERG.length()).split("/", -1)), query,
                    ctx.request().getHeader(HttpHeaders.IF_NONE_MATCH), ctx.request().getHeader("Idempotency-Key"),
                    ctx.request().getHeader(HttpHeaders.ACCEPT), body.getBytes(), ctx.request().getHeader("X-Iceberg-Access-Delegation"));
            MultiMap headers = HttpHeaders.headers();
            String token = ctx.get(Bus.TOKEN_HEADER);
            if (token != null) headers.add(Bus.TOKEN_HEADER, token);
            // No answer within the request timeout: a mutation may or may not have applied, which
            // Iceberg's client must hear as commit-state-unknown (504), never as a failure.
            long timer = vertx.setTimer(requestTimeoutMs, id -> icebergReply(ctx, request, start, lake.iceberg.rest.IcebergRouter.error(request.mutation()
                    ? new org.apache.iceberg.exceptions.CommitStateUnknownException(new RuntimeException("no answer within the request timeout"))
                    : new org.apache.iceberg.exceptions.ServiceUnavailableException("no answer within the request timeout")), 504));
            lake.security.Caller caller = ctx.get(AccessControl.CALLER);
            if (caller == null && access.required()) {
                // /iceberg always passes the ingress's access check first; never serve it unchecked.
                vertx.cancelTimer(timer);
                icebergReply(ctx, request, start, lake.iceberg.rest.IcebergRouter.error(
                        new org.apache.iceberg.exceptions.NotAuthorizedException("the request was not authenticated")), 0);
                return;
            }
            if (caller == null) caller = new lake.security.Caller("http", null);
            api.serve(Ops.ICEBERG, IcebergWire.encode(request), headers, caller).onComplete(ar -> {
                vertx.cancelTimer(timer);
                if (ar.succeeded()) {
                    icebergReply(ctx, request, start, IcebergWire.decodeResponse(ar.result()), 0);
                    return;
                }
                ApiError e = ApiError.from(ar.cause());
                RuntimeException iceberg = switch (e.status()) {
                    case 401 -> new org.apache.iceberg.exceptions.NotAuthorizedException("%s", e.getMessage());
                    case 403 -> new org.apache.iceberg.exceptions.ForbiddenException("%s", e.getMessage());
                    case 400 -> new org.apache.iceberg.exceptions.BadRequestException("%s", e.getMessage());
                    case 504 -> new org.apache.iceberg.exceptions.CommitStateUnknownException(new RuntimeException(e.getMessage()));
                    default -> new org.apache.iceberg.exceptions.ServiceUnavailableException("%s", e.getMessage());
                };
                icebergReply(ctx, request, start, lake.iceberg.rest.IcebergRouter.error(iceberg), e.status() == 504 ? 504 : 0);
            });
        });
    }

    private void icebergReply(RoutingContext ctx, lake.iceberg.rest.IcebergRequest request, long start, lake.iceberg.rest.IcebergResponse r, int status) {
        if (ctx.response().ended()) return;
        int code = status != 0 ? status : r.status();
        metrics.icebergRequest(lake.iceberg.rest.IcebergRouter.routeName(request), code, System.nanoTime() - start);
        ctx.response().setStatusCode(code);
        r.headers().forEach((k, val) -> ctx.response().putHeader(k, val));
        if (r.body() == null) ctx.response().end();
        else if (r.headers().containsKey("Content-Type")) ctx.response().end(r.body());
        else ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(r.body());
    }

    /** {@code GET /v1/kv?prefix=P&limit=N&continuation=C&hide_system=B} (and {@code GET /v1/kv/?...}). */
    private void scan(RoutingContext ctx) {
        JsonObject body = new JsonObject();
        try {
            noBody(ctx, "GET /v1/kv");
            Map<String, String> params = HttpInput.query(ctx.request().query(), SCAN_PARAMETERS);
            if (params.containsKey("prefix")) body.put("prefix", params.get("prefix"));
            if (params.containsKey("continuation")) body.put("continuation", params.get("continuation"));
            if (params.containsKey("limit")) {
                body.put("limit", (long) HttpInput.count(params.get("limit"), "query parameter 'limit'", 1, ApiRequests.MAX_SCAN_LIMIT));
            }
            if (params.containsKey("hide_system")) body.put("hide_system", HttpInput.bool(params.get("hide_system"), "query parameter 'hide_system'"));
        } catch (ApiError e) {
            fail(ctx, e);
            return;
        }
        call(ctx, Ops.SCAN, body);
    }

    /** {@code GET /v1/grants[?principal=P][&namespace=NS]}: the stored grants. */
    private void grants(RoutingContext ctx) {
        JsonObject body = new JsonObject();
        try {
            noBody(ctx, "GET /v1/grants");
            Map<String, String> params = HttpInput.query(ctx.request().query(), Set.of("principal", "namespace"));
            if (params.containsKey("principal")) body.put("principal", params.get("principal"));
            if (params.containsKey("namespace")) body.put("namespace", params.get("namespace"));
        } catch (ApiError e) {
            fail(ctx, e);
            return;
        }
        call(ctx, Ops.GRANTS, body);
    }

    /**
     * {@code GET /v1/watch}: with {@code Accept: text/event-stream}, a Server-Sent Events stream
     * ({@code id:} = revision; {@code Last-Event-ID} resumes after it); otherwise one JSON page,
     * waiting up to {@code wait_ms} for a change.
     */
    private void watch(RoutingContext ctx, boolean catalogEvents) {
        String route = "GET " + (catalogEvents ? CATALOG_EVENTS : "/v1/watch");
        JsonObject body = new JsonObject();
        String accept = ctx.request().getHeader(HttpHeaders.ACCEPT);
        boolean sse = accept != null && accept.contains("text/event-stream");
        long waitMs = 0;
        ApiRequests.Watch w;
        try {
            noBody(ctx, route);
            Map<String, String> params = HttpInput.query(ctx.request().query(), catalogEvents ? EVENTS_PARAMETERS : WATCH_PARAMETERS);
            if (params.containsKey("prefix")) body.put("prefix", params.get("prefix"));
            if (params.containsKey("after")) body.put("after", ApiRequests.u64(HttpInput.u64(params.get("after"), "query parameter 'after'")));
            String lastEventId = ctx.request().getHeader("Last-Event-ID");
            if (sse && lastEventId != null) {
                // An EventSource reconnecting says where it stopped; that wins over the URL it was opened with.
                body.put("after", ApiRequests.u64(HttpInput.u64(lastEventId.trim(), "header 'Last-Event-ID'")));
            }
            if (params.containsKey("limit")) {
                if (sse) throw ApiError.invalid("query parameter 'limit' is for the long poll; a stream sends every change");
                body.put("limit", (long) HttpInput.count(params.get("limit"), "query parameter 'limit'", 1, ApiRequests.MAX_WATCH_LIMIT));
            }
            if (params.containsKey("wait_ms")) {
                if (sse) throw ApiError.invalid("query parameter 'wait_ms' is for the long poll; a stream waits on its own");
                waitMs = HttpInput.count(params.get("wait_ms"), "query parameter 'wait_ms'", 0, Ops.MAX_WAIT_MS);
                body.put("wait_ms", waitMs);
            }
            w = catalogEvents ? ApiRequests.catalogEvents(body) : ApiRequests.watch(body);
        } catch (ApiError e) {
            fail(ctx, e);
            return;
        }
        if (!sse) {
            call(ctx, catalogEvents ? Ops.CATALOG_EVENTS : Ops.WATCH, body, waitMs);
            return;
        }
        lake.security.Caller caller = ctx.get(AccessControl.CALLER);
        if (caller == null) {
            fail(ctx, new ApiError(401, "unauthorized", "the request was not authenticated", null));
            return;
        }
        String prefix = catalogEvents ? null : w.prefix();
        // Without `after` (nor Last-Event-ID), changes from now on: on a node that has not yet heard
        // where the feed stands (just started, or just led), once it has, within the request timeout.
        try {
            // Refused at once, not after waiting for the feed's position.
            api.authorizeWatch(caller, catalogEvents);
        } catch (ApiError refused) {
            fail(ctx, refused);
            return;
        }
        currentRevision(ctx, w.after(), System.nanoTime() + requestTimeoutMs * 1_000_000L, after -> {
            if (after == null) {
                fail(ctx, new ApiError(503, "feed_not_ready", "this node has not yet heard the change feed's position from a leader", 1));
                return;
            }
            openStream(ctx, caller, prefix, after);
        });
    }

    /** {@code given}, or the node's current revision once it knows it (polled every 50 ms until {@code deadlineNanos}; then null). */
    private void currentRevision(RoutingContext ctx, Long given, long deadlineNanos, Handler<Long> then) {
        if (ctx.response().closed()) return;
        Long known = given != null ? given : api.currentRevision();
        if (known != null || System.nanoTime() - deadlineNanos >= 0) {
            then.handle(known);
            return;
        }
        vertx.setTimer(50, id -> currentRevision(ctx, null, deadlineNanos, then));
    }

    private void openStream(RoutingContext ctx, lake.security.Caller caller, String prefix, long after) {
        api.openStream(caller, prefix, after).onComplete(opened -> {
            if (ctx.response().ended() || ctx.response().closed()) return;
            if (opened.failed()) {
                fail(ctx, ApiError.from(opened.cause()));
                return;
            }
            stream(ctx.response(), caller, prefix, after);
        });
    }

    /** Serves one SSE stream until the client leaves, falls too far behind, or the node stops. */
    private void stream(HttpServerResponse res, lake.security.Caller caller, String prefix, long after) {
        res.setChunked(true).setWriteQueueMaxSize(WATCH_MAX_PENDING_BYTES)
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
                .putHeader("X-Accel-Buffering", "no");
        // The reconnection delay an EventSource uses, and where it stands: an `id:` without data sets
        // its last event id without an event, so a stream that drops before its first event still
        // resumes where it began (not at a later "current" revision).
        res.write("retry: 1000\nid: " + Long.toUnsignedString(after) + "\n: watching after " + Long.toUnsignedString(after) + "\n\n");
        lake.watch.Watches.Watch[] watch = new lake.watch.Watches.Watch[1];
        watch[0] = api.stream(caller, prefix, after, new lake.watch.Watches.Receiver() {
            @Override public lake.watch.Watches.Flow deliver(lake.watch.Watches.Page page) {
                if (res.ended() || res.closed()) return lake.watch.Watches.Flow.STOP;
                // The page's cached events, joined without copying (one write, one system call).
                java.util.List<lake.feed.ChangeRecord> records = page.records();
                if (records.size() == 1) {
                    res.write(sseEvents.of(records.get(0)));
                } else {
                    io.netty.buffer.ByteBuf[] parts = new io.netty.buffer.ByteBuf[records.size()];
                    for (int i = 0; i < parts.length; i++) parts[i] = ((io.vertx.core.internal.buffer.BufferInternal) sseEvents.of(records.get(i))).getByteBuf();
                    res.write(io.vertx.core.internal.buffer.BufferInternal.buffer(io.netty.buffer.Unpooled.wrappedUnmodifiableBuffer(parts)));
                }
                if (!res.writeQueueFull()) return lake.watch.Watches.Flow.MORE;
                // A watcher whose client does not read waits with at most this node's write queue
                // and one page unsent; it resumes when its queue drains.
                res.drainHandler(v -> {
                    if (watch[0] != null) watch[0].resume();
                });
                return lake.watch.Watches.Flow.PAUSE;
            }

            @Override public void fail(Throwable cause) {
                endStream(res, "error", NodeApi.watchError(cause).toJson());
            }

            @Override public void fellBehind(long cursor) {
                // Neither writers nor other watchers wait for it: once the tail has moved past what
                // it was sent, it is cut off with the revision to resume after.
                metrics.watchersCutOff();
                endStream(res, "cutoff", new JsonObject().put("resume_after", ApiRequests.u64(cursor))
                        .put("reason", "the watcher fell behind this node's tail of the feed while reading nothing"));
            }
        });
        if (res.ended()) return;
        streams.put(res, watch[0]);
        res.closeHandler(v -> {
            lake.watch.Watches.Watch open = streams.remove(res);
            if (open != null) open.cancel();
        });
        // Closed before the handler was set: it would never run.
        if (res.closed()) {
            streams.remove(res);
            watch[0].cancel();
            return;
        }
        if (keepalive == -1) {
            keepalive = vertx.setPeriodic(WATCH_KEEPALIVE_MS, id -> {
                for (HttpServerResponse r : streams.keySet()) if (!r.writeQueueFull()) r.write(": keepalive\n\n");
            });
        }
    }

    /** Ends an SSE stream with a last event naming why (and, when cut off, where to resume). */
    private void endStream(HttpServerResponse res, String event, JsonObject data) {
        lake.watch.Watches.Watch open = streams.remove(res);
        if (open != null) open.cancel();
        if (res.ended() || res.closed()) return;
        res.end("event: " + event + "\ndata: " + data.encode() + "\n\n");
    }

    /**
     * Answers with whatever {@link NodeApi} decides, or with {@code 504 outcome_unknown} if it has
     * not decided within the request timeout (a write may still apply after that).
     */
    private void call(RoutingContext ctx, String op, Object body) {
        call(ctx, op, body, 0);
    }

    /** As {@link #call(RoutingContext, String, Object)}, for a long poll that may wait {@code waitMs} before answering. */
    private void call(RoutingContext ctx, String op, Object body, long waitMs) {
        MultiMap headers = HttpHeaders.headers();
        String token = ctx.get(Bus.TOKEN_HEADER);
        if (token != null) headers.add(Bus.TOKEN_HEADER, token);
        // The epoch a write expects (every write, catalog ones included), as on the bus; the decoder
        // refuses it given twice, malformed, or disagreeing with a body's "epoch".
        for (String epoch : ctx.request().headers().getAll(Bus.EPOCH_HEADER)) headers.add(Bus.EPOCH_HEADER, epoch);
        long timer = vertx.setTimer(requestTimeoutMs + waitMs, id -> fail(ctx, new ApiError(504, "outcome_unknown",
                "no answer within the request timeout; a write may or may not have applied", null)));
        // A long poll whose client hangs up stops waiting at once: it holds one of the node's bounded slots.
        Promise<Void> abandoned = Promise.promise();
        if (waitMs > 0) ctx.response().closeHandler(v -> abandoned.tryComplete());
        lake.security.Caller caller = ctx.get(AccessControl.CALLER);
        if (caller == null) {
            // Only /ready reaches here without the ingress's access check (it serves no principal's
            // data); any other route that did would fail closed, never run unchecked.
            if (!op.equals(Ops.READY) && access.required()) {
                vertx.cancelTimer(timer);
                fail(ctx, new ApiError(401, "unauthorized", "the request was not authenticated", null));
                return;
            }
            caller = new lake.security.Caller("http", null);
        }
        api.serve(op, body, headers, abandoned.future(), caller).onComplete(ar -> {
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
