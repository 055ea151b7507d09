package lake.server;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Several requests to one clustered address in one bus message, when they queue up: the
 * follower's forwarded writes and a remote node's store calls. Each cluster round trip costs a
 * message each way (headers, a reply registration and a timer, a socket write and a wake-up on
 * both nodes), whatever it carries; under load one round trip now carries many requests.
 *
 * <p>Wire form, on {@code <address>.batch} (documented in docs/event-bus.md):
 * {@code {"items":[{"headers":{name:value,...},"body":{...}},...]}}, answered by
 * {@code {"replies":[{"body":{...}} | {"code":n,"message":"..."},...]}} in the same order. Each
 * item is served exactly as the same request sent alone would be; its failure is the failure the
 * lone request would have had ({@link ReplyFailure#RECIPIENT_FAILURE}, same code and message). A
 * failure of the batch message itself (no handler, timeout, refused secret) is every item's
 * failure, so "outcome unknown" stays per request and is never turned into a retry.
 */
public final class BusBatch {
    private BusBatch() {}

    static final String SUFFIX = ".batch";

    public static String address(String address) {
        return address + SUFFIX;
    }

    /**
     * The client side, confined to the context that creates it (calls from elsewhere hop onto it). A request goes
     * out at once, alone, while fewer than {@code maxInFlight} messages to its address await their
     * answer; otherwise it queues, and the queue leaves as one batch (at most {@code maxItems}
     * requests and about {@code maxBytes}) as soon as one answer comes back. So an idle node adds
     * no delay and a busy one pays one round trip per batch instead of per request.
     */
    public static final class Sender {
        private final Vertx vertx;
        private final io.vertx.core.Context context;
        private final int maxInFlight;
        private final int maxItems;
        private final long maxBytes;
        private final Map<String, Lane> lanes = new HashMap<>();

        public Sender(Vertx vertx, int maxInFlight, int maxItems, long maxBytes) {
            if (maxInFlight < 1 || maxItems < 1 || maxBytes < 1) throw new IllegalArgumentException("limits must be positive");
            this.vertx = vertx;
            this.context = vertx.getOrCreateContext();
            this.maxInFlight = maxInFlight;
            this.maxItems = maxItems;
            this.maxBytes = maxBytes;
        }

        /** The defaults the nodes use: two messages in flight per address, up to 64 requests or 1 MiB per batch. */
        public static Sender standard(Vertx vertx) {
            return new Sender(vertx, 2, 64, 1 << 20);
        }

        /**
         * Requests {@code body} from {@code address} with {@code options}' headers and send timeout
         * (other options are not carried). Completes with the reply's body, or fails as the bus
         * would fail the lone request.
         */
        public Future<JsonObject> request(String address, JsonObject body, DeliveryOptions options) {
            Pending p = new Pending(body, options, estimate(body), Promise.promise());
            if (Vertx.currentContext() == context) {
                enqueue(address, p);
            } else {
                // The lanes belong to the context that created this sender.
                context.runOnContext(v -> enqueue(address, p));
            }
            return p.promise.future();
        }

        private void enqueue(String address, Pending p) {
            Lane lane = lanes.computeIfAbsent(address, Lane::new);
            lane.queue.add(p);
            lane.flush();
        }

        private record Pending(JsonObject body, DeliveryOptions options, long bytes, Promise<JsonObject> promise) {}

        private final class Lane {
            final String address;
            final ArrayDeque<Pending> queue = new ArrayDeque<>();
            int inFlight;

            Lane(String address) {
                this.address = address;
            }

            void flush() {
                while (inFlight < maxInFlight && !queue.isEmpty()) {
                    List<Pending> batch = new ArrayList<>();
                    long bytes = 0;
                    while (!queue.isEmpty() && batch.size() < maxItems
                            && (batch.isEmpty() || bytes + queue.peek().bytes() <= maxBytes)) {
                        Pending p = queue.poll();
                        bytes += p.bytes();
                        batch.add(p);
                    }
                    inFlight++;
                    Future<?> sent = batch.size() == 1 ? one(batch.get(0)) : many(batch);
                    sent.onComplete(ar -> {
                        inFlight--;
                        flush();
                    });
                }
            }

            private Future<?> one(Pending p) {
                return vertx.eventBus().<JsonObject>request(address, p.body(), p.options()).map(Message::body)
                        .onComplete(p.promise());
            }

            private Future<?> many(List<Pending> batch) {
                JsonArray items = new JsonArray(new ArrayList<>(batch.size()));
                for (Pending p : batch) {
                    JsonObject headers = new JsonObject();
                    MultiMap h = p.options().getHeaders();
                    if (h != null) h.forEach(e -> headers.put(e.getKey(), e.getValue()));
                    items.add(new JsonObject().put("headers", headers).put("body", p.body()));
                }
                DeliveryOptions options = new DeliveryOptions().setSendTimeout(batch.get(0).options().getSendTimeout());
                MultiMap first = batch.get(0).options().getHeaders();
                // The cluster secret authenticates the message that carries the batch.
                if (first != null && first.contains(Bus.SECRET_HEADER)) options.addHeader(Bus.SECRET_HEADER, first.get(Bus.SECRET_HEADER));
                return vertx.eventBus().<JsonObject>request(BusBatch.address(address), new JsonObject().put("items", items), options)
                        .onComplete(ar -> {
                            if (ar.failed()) {
                                for (Pending p : batch) p.promise().fail(ar.cause());
                                return;
                            }
                            JsonArray replies = ar.result().body().getJsonArray("replies");
                            for (int i = 0; i < batch.size(); i++) {
                                JsonObject r = replies == null || i >= replies.size() ? null : replies.getJsonObject(i);
                                Promise<JsonObject> promise = batch.get(i).promise();
                                if (r != null && r.containsKey("body")) promise.complete(r.getJsonObject("body"));
                                else if (r != null) promise.fail(new ReplyException(ReplyFailure.RECIPIENT_FAILURE,
                                        r.getInteger("code", 500), r.getString("message")));
                                // A batch answered without this item's reply: it was not known to apply.
                                else promise.fail(new ReplyException(ReplyFailure.ERROR, "the batch's answer has no reply for this request"));
                            }
                        });
            }
        }
    }

    /** What a batch item is answered with: the lone request's reply body, or its failure code and message. */
    public record Answer(JsonObject body, int code, String message) {
        public static Answer ok(JsonObject body) { return new Answer(body, 0, null); }
        public static Answer fail(int code, String message) { return new Answer(null, code, message); }
    }

    /**
     * The server side: answers one batch message by serving each item with {@code serve} (its
     * headers and body, as a lone message would bring them), concurrently, and replying once all
     * are answered. {@code serve} must not throw; it answers every failure as an {@link Answer}.
     */
    static void serve(Message<Object> batch, BiFunction<MultiMap, Object, Future<Answer>> serve) {
        JsonArray items = batch.body() instanceof JsonObject o ? o.getJsonArray("items") : null;
        if (items == null || items.isEmpty()) {
            batch.fail(400, "a batch needs a non-empty 'items' array");
            return;
        }
        List<Future<Answer>> answers = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            JsonObject item = items.getJsonObject(i);
            MultiMap headers = MultiMap.caseInsensitiveMultiMap();
            JsonObject h = item.getJsonObject("headers", new JsonObject());
            for (String name : h.fieldNames()) headers.add(name, String.valueOf(h.getValue(name)));
            answers.add(serve.apply(headers, item.getValue("body")));
        }
        Future.join(answers).onComplete(done -> {
            JsonArray replies = new JsonArray(new ArrayList<>(answers.size()));
            for (Future<Answer> f : answers) {
                Answer a = f.succeeded() ? f.result() : Answer.fail(500, String.valueOf(f.cause()));
                replies.add(a.body() != null ? new JsonObject().put("body", a.body())
                        : new JsonObject().put("code", a.code()).put("message", a.message()));
            }
            batch.reply(new JsonObject().put("replies", replies));
        });
    }

    /** A cheap size estimate of a JSON body (its strings' lengths plus a little per value), to bound a batch. */
    static long estimate(Object value) {
        if (value instanceof String s) return s.length() + 4L;
        if (value instanceof JsonObject o) {
            long n = 2;
            for (Map.Entry<String, Object> e : o) n += e.getKey().length() + 4L + estimate(e.getValue());
            return n;
        }
        if (value instanceof JsonArray a) {
            long n = 2;
            for (Object v : a) n += 1 + estimate(v);
            return n;
        }
        return 8;
    }
}
