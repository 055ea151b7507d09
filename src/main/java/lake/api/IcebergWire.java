package lake.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.iceberg.rest.IcebergRequest;
import lake.iceberg.rest.IcebergResponse;
import lake.protocol.ApiError;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An Iceberg REST request and its answer as JSON, so that the {@code iceberg} operation can cross
 * the event bus like every other write: a follower forwards a mutation whole to the leader, which
 * runs it and sends the answer back. Strict: anything else than what {@link #request} writes is
 * refused as {@link ApiError#invalid}.
 */
public final class IcebergWire {
    private IcebergWire() {}

    public static JsonObject encode(IcebergRequest r) {
        JsonObject q = new JsonObject();
        r.query().forEach(q::put);
        return new JsonObject().put("method", r.method()).put("path", new JsonArray(new ArrayList<>(r.segments())))
                .put("query", q).put("if_none_match", r.ifNoneMatch()).put("idempotency_key", r.idempotencyKey()).put("accept", r.accept())
                .put("body", Base64.getEncoder().encodeToString(r.body())).put("access_delegation", r.accessDelegation());
    }

    static IcebergRequest decode(JsonObject body) {
        try {
            String method = body.getString("method");
            JsonArray path = body.getJsonArray("path");
            JsonObject query = body.getJsonObject("query");
            if (method == null || path == null || query == null) throw ApiError.invalid("iceberg request needs method, path and query");
            List<String> segments = new ArrayList<>();
            for (Object o : path) segments.add((String) o);
            Map<String, String> q = new HashMap<>();
            for (Map.Entry<String, Object> e : query) q.put(e.getKey(), (String) e.getValue());
            String b = body.getString("body");
            return new IcebergRequest(method, segments, q, body.getString("if_none_match"), body.getString("idempotency_key"), body.getString("accept"),
                    b == null ? new byte[0] : Base64.getDecoder().decode(b), body.getString("access_delegation"));
        } catch (ClassCastException | IllegalArgumentException e) {
            throw ApiError.invalid("malformed iceberg request: " + e.getMessage());
        }
    }

    public static JsonObject encode(IcebergResponse r) {
        JsonObject h = new JsonObject();
        r.headers().forEach(h::put);
        return new JsonObject().put("status", r.status()).put("headers", h).put("body", r.body());
    }

    public static IcebergResponse decodeResponse(JsonObject json) {
        Map<String, String> h = new HashMap<>();
        JsonObject headers = json.getJsonObject("headers", new JsonObject());
        for (Map.Entry<String, Object> e : headers) h.put(e.getKey(), String.valueOf(e.getValue()));
        return new IcebergResponse(json.getInteger("status"), h, json.getString("body"));
    }
}
