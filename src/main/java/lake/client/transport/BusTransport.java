package lake.client.transport;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import lake.client.model.ClientOptions;
import lake.client.model.Json;
import lake.client.model.MetasrvException;
import lake.client.model.NodeHealth;
import lake.wire.LeaderInfo;

import java.util.List;
import java.util.Map;

/**
 * The public event-bus API ({@code lake.v1.*}, docs/event-bus.md) from the caller's own Vert.x
 * instance — clustered with Metasrv's nodes, or the node's own. The bus balances requests over the
 * nodes by itself, so there is one "endpoint".
 *
 * <p>Invariant: {@code NO_HANDLERS} (no node registered the address) is {@link Transport.NotSent};
 * {@code TIMEOUT} is {@link Transport.Lost}; a recipient failure is the error JSON the node sent,
 * its failure code the HTTP status of the same error.
 */
public final class BusTransport implements Transport {
    private static final String TOKEN_HEADER = "lake-token";
    private static final String EPOCH_HEADER = "lake-epoch";

    private final Vertx vertx;
    private final String token;

    public BusTransport(Vertx vertx, ClientOptions options) {
        this.vertx = vertx;
        this.token = options.token();
    }

    @Override public int endpoints() { return 1; }

    @Override public String endpoint(int i) { return "event bus"; }

    @Override
    public Future<Map<String, Object>> send(Call call, int endpoint, long timeoutMs, long minSendMs) {
        if (call.busBody() == null) {
            return Future.failedFuture(new UnsupportedOperationException(call.op() + " is served over HTTP only, not on the event bus"));
        }
        DeliveryOptions opts = new DeliveryOptions().setSendTimeout(Math.max(1, timeoutMs));
        if (token != null) opts.addHeader(TOKEN_HEADER, token);
        if (call.epoch() != null) opts.addHeader(EPOCH_HEADER, Long.toUnsignedString(call.epoch()));
        // JSON text: the node decodes it with its strict decoder, exactly as an HTTP body.
        return vertx.eventBus().<Object>request("lake.v1." + call.op(), Json.write(call.busBody()), opts)
                .transform(ar -> {
                    if (ar.succeeded()) {
                        Object body = ar.result().body();
                        String text = body instanceof JsonObject j ? j.encode() : String.valueOf(body);
                        try {
                            return Future.succeededFuture(Json.parseObject(text));
                        } catch (IllegalArgumentException e) {
                            return Future.failedFuture(new MetasrvException.ServerError("unexpected_reply", 0, "the reply is not a JSON object: " + text));
                        }
                    }
                    if (!(ar.cause() instanceof ReplyException re)) return Future.failedFuture(new Lost(String.valueOf(ar.cause()), ar.cause()));
                    return switch (re.failureType()) {
                        case NO_HANDLERS -> Future.failedFuture(new NotSent("no Metasrv node serves lake.v1." + call.op() + " on this bus", re));
                        case TIMEOUT -> Future.failedFuture(new Lost("no reply within " + timeoutMs + " ms", re));
                        default -> Future.failedFuture(recipientFailure(re));
                    };
                });
    }

    /**
     * A node's refusal carries the API's error envelope as its message and the HTTP status as its
     * failure code. The bus has no {@code Retry-After}: a 503 waits the one second the HTTP API's
     * 503s name. Anything else (a handler that failed outside the API, a code no API error has)
     * is {@link Lost}: nobody can say whether a write applied.
     */
    private static Throwable recipientFailure(ReplyException re) {
        MetasrvException e = HttpReplies.envelope(re.failureCode(), re.getMessage());
        if (e != null) return HttpReplies.withRetryAfter(e, re.failureCode() == 503 ? "1" : null);
        return new Lost("the node failed the request outside the API (failure code " + re.failureCode() + "): "
                + HttpReplies.snippet(String.valueOf(re.getMessage())), re);
    }

    @Override
    public Future<List<NodeHealth>> health(long timeoutMs) {
        return send(Call.read("leader", "/v1/leader", Map.of()), 0, timeoutMs, 0)
                .map(o -> LeaderInfo.from(o))
                .map(l -> List.of(new NodeHealth("event bus", true, l.nodeId(), "leader".equals(l.role()), null)))
                .otherwise(t -> List.of(new NodeHealth("event bus", false, null, false, t.getMessage())));
    }

    @Override
    public Future<Void> delay(long ms) {
        return vertx.timer(Math.max(1, ms)).mapEmpty();
    }

    @Override public Future<Void> close() { return Future.succeededFuture(); }
}
