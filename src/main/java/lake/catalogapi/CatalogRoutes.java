package lake.catalogapi;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import lake.protocol.ApiError;
import lake.protocol.ApiRequests;
import lake.protocol.Ops;
import lake.protocol.HttpInput;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The catalog's HTTP routes as one table: a raw path and method become a catalog operation
 * ({@code Ops}) and the body it would have on the event bus, so both ingresses share one
 * decoder. Path segments are decoded strictly ({@link HttpInput}); a name given by the path may
 * not also appear in the body. Unknown paths are {@code 404}, known paths with another method
 * {@code 405}.
 */
public final class CatalogRoutes {
    private CatalogRoutes() {}

    /** A resolved route: the operation, the body fields its path and query give, and whether it reads a body. */
    public record Route(String op, JsonObject fromPath, boolean readsBody) {}

    private static final Set<String> PAGE = Set.of("limit", "continuation");

    public static boolean handles(String rawPath) {
        return rawPath.equals("/v1/namespaces") || rawPath.startsWith("/v1/namespaces/")
                || rawPath.equals("/v1/catalog") || rawPath.startsWith("/v1/catalog/");
    }

    /** The route for {@code method} on {@code rawPath} with {@code rawQuery}; throws {@link ApiError} (400, 404, 405). */
    public static Route resolve(HttpMethod method, String rawPath, String uri, String rawQuery) {
        List<String> s = List.of(rawPath.substring(1).split("/", -1));
        int n = s.size();
        if (s.get(1).equals("namespaces")) {
            if (n == 2) {
                return switch (method.name()) {
                    case "POST" -> noQuery(uri, "POST /v1/namespaces", new Route(Ops.CREATE_NAMESPACE, new JsonObject(), true));
                    case "GET" -> new Route(Ops.LIST_NAMESPACES, page(rawQuery), false);
                    default -> throw notAllowed(method, rawPath);
                };
            }
            String ns = HttpInput.pathSegment(s.get(2), "namespace in the path");
            if (n == 3) {
                JsonObject p = new JsonObject().put("namespace", ns);
                return switch (method.name()) {
                    case "GET" -> noQuery(uri, "GET /v1/namespaces/{ns}", new Route(Ops.GET_NAMESPACE, p, false));
                    case "DELETE" -> noQuery(uri, "DELETE /v1/namespaces/{ns}", new Route(Ops.DROP_NAMESPACE, p, false));
                    default -> throw notAllowed(method, rawPath);
                };
            }
            if (!s.get(3).equals("tables")) throw notFound(method, rawPath);
            JsonObject p = new JsonObject().put("namespace", ns);
            if (n == 4) {
                return switch (method.name()) {
                    case "POST" -> noQuery(uri, "POST /v1/namespaces/{ns}/tables", new Route(Ops.CREATE_TABLE, p, true));
                    case "GET" -> new Route(Ops.LIST_TABLES, page(rawQuery).mergeIn(p), false);
                    default -> throw notAllowed(method, rawPath);
                };
            }
            p.put("name", HttpInput.pathSegment(s.get(4), "table name in the path"));
            if (n == 5) {
                return switch (method.name()) {
                    case "GET" -> {
                        Map<String, String> q = HttpInput.query(rawQuery, Set.of("known_version", "wait_ms"));
                        if (q.containsKey("known_version")) {
                            p.put("known_version", ApiRequests.u64(ApiRequests.unsignedDecimal(q.get("known_version"), "query parameter 'known_version'")));
                        }
                        waitMs(q, p);
                        yield new Route(Ops.RESOLVE, p, false);
                    }
                    case "DELETE" -> {
                        Map<String, String> q = HttpInput.query(rawQuery, Set.of("purge"));
                        if (q.containsKey("purge")) p.put("purge", HttpInput.bool(q.get("purge"), "query parameter 'purge'"));
                        yield new Route(Ops.DROP_TABLE, p, false);
                    }
                    default -> throw notAllowed(method, rawPath);
                };
            }
            if (n == 6 && s.get(5).equals("versions")) {
                if (method != HttpMethod.POST) throw notAllowed(method, rawPath);
                return noQuery(uri, "POST /v1/namespaces/{ns}/tables/{name}/versions", new Route(Ops.COMMIT_VERSION, p, true));
            }
            if (n == 6 && s.get(5).equals("undrop")) {
                // The dropped table of that name: the body may name its incarnation and where it goes back ({} for its own name).
                if (method != HttpMethod.POST) throw notAllowed(method, rawPath);
                return noQuery(uri, "POST /v1/namespaces/{ns}/tables/{name}/undrop", new Route(Ops.UNDROP_TABLE, p, true));
            }
            throw notFound(method, rawPath);
        }
        if (n == 2) {
            if (method != HttpMethod.GET) throw notAllowed(method, rawPath);
            Map<String, String> q = HttpInput.query(rawQuery, Set.of("known_generation", "wait_ms"));
            JsonObject p = new JsonObject();
            if (q.containsKey("known_generation")) p.put("known_generation", q.get("known_generation"));
            waitMs(q, p);
            return new Route(Ops.SNAPSHOT, p, false);
        }
        if (s.get(2).equals("purges") && n == 3) {
            if (method != HttpMethod.GET) throw notAllowed(method, rawPath);
            return new Route(Ops.LIST_PURGES, page(rawQuery), false);
        }
        if (!s.get(2).equals("tombstones")) throw notFound(method, rawPath);
        if (n == 3) {
            if (method != HttpMethod.GET) throw notAllowed(method, rawPath);
            return new Route(Ops.LIST_TOMBSTONES, page(rawQuery), false);
        }
        if (n == 7 && s.get(6).equals("purge")) {
            // Its files deleted by the leader's purge worker now, its retention notwithstanding.
            if (method != HttpMethod.POST) throw notAllowed(method, rawPath);
            return noQuery(uri, "POST /v1/catalog/tombstones/{ns}/{name}/{incarnation_id}/purge", new Route(Ops.PURGE_TABLE, tombstone(s), false));
        }
        if (n == 6) {
            if (method != HttpMethod.DELETE) throw notAllowed(method, rawPath);
            return noQuery(uri, "DELETE /v1/catalog/tombstones/{ns}/{name}/{incarnation_id}", new Route(Ops.PURGE_TOMBSTONE, tombstone(s), false));
        }
        throw notFound(method, rawPath);
    }

    /** The tombstone a {@code /v1/catalog/tombstones/{ns}/{name}/{incarnation_id}…} path names, each segment checked. */
    private static JsonObject tombstone(List<String> s) {
        return new JsonObject()
                .put("namespace", HttpInput.pathSegment(s.get(3), "namespace in the path"))
                .put("name", HttpInput.pathSegment(s.get(4), "table name in the path"))
                .put("incarnation_id", HttpInput.pathSegment(s.get(5), "incarnation id in the path"));
    }

    /** The body an operation gets: the path's fields, plus the request body's, none of them twice. */
    public static JsonObject merge(Route route, JsonObject body) {
        JsonObject out = route.fromPath().copy();
        if (body == null) return out;
        for (String field : body.fieldNames()) {
            if (out.containsKey(field)) throw ApiError.invalid("field '" + field + "' is given by the path; leave it out of the body");
            out.put(field, body.getValue(field));
        }
        return out;
    }

    private static Route noQuery(String uri, String route, Route r) {
        HttpInput.noQuery(uri, route);
        return r;
    }

    private static JsonObject page(String rawQuery) {
        Map<String, String> q = HttpInput.query(rawQuery, PAGE);
        JsonObject p = new JsonObject();
        if (q.containsKey("limit")) p.put("limit", (long) HttpInput.count(q.get("limit"), "query parameter 'limit'", 1, 1000));
        if (q.containsKey("continuation")) p.put("continuation", q.get("continuation"));
        return p;
    }

    private static void waitMs(Map<String, String> q, JsonObject p) {
        if (q.containsKey("wait_ms")) {
            p.put("wait_ms", (long) HttpInput.count(q.get("wait_ms"), "query parameter 'wait_ms'", 0, Ops.MAX_WAIT_MS));
        }
    }

    private static ApiError notFound(HttpMethod method, String path) {
        return new ApiError(404, "not_found", "no route " + method + " " + path, null);
    }

    private static ApiError notAllowed(HttpMethod method, String path) {
        return new ApiError(405, "method_not_allowed", "method " + method + " is not allowed on " + path, null);
    }
}
