package lake.bus;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Several requests to one clustered address in one bus message, when they arrive together: the
 * follower's forwarded writes and a remote node's store calls. Each cluster round trip costs a
 * message each way (headers, a reply registration and a timer, a socket write and a wake-up on
 * both nodes), whatever it carries; under load one round trip carries many requests.
 *
 * <p>Wire form, on {@code <address>.batch.v1}: a binary envelope ({@link Wire}; docs/event-bus.md,
 * "Batches") of items, each with its headers and body (a JSON object, or bytes: a client's
 * request text passed through as received), answered by one reply per item in the same order: the
 * lone request's reply body, or its failure code and message. Each item is served exactly as the
 * same request sent alone would be; its failure is the failure the lone request would have had
 * ({@link ReplyFailure#RECIPIENT_FAILURE}, same code and message). A failure of the batch message
 * itself (no handler, timeout, refused secret, an answer that cannot be read) is every item's
 * failure, so "outcome unknown" stays per request and is never turned into a retry.
 */
public final class BusBatch {
    private BusBatch() {}

    /** The envelope is binary since version 1; a node that sends the old JSON form finds no handler (certainly unapplied). */
    static final String SUFFIX = ".batch.v1";

    public static String address(String address) {
        return address + SUFFIX;
    }

    /**
     * The client side, confined to the context that creates it (calls from elsewhere hop onto it).
     * Requests to one address made during one event-loop turn (an HTTP ingress reads many client
     * requests per turn) leave together at the end of that turn: one alone as a plain message,
     * several as one batch (at most {@code maxItems} requests and about {@code maxBytes}). None
     * waits for another's answer, so batching adds no round trip; only past {@code maxInFlight}
     * unanswered messages per address do requests queue for the next answer (a bound on what one
     * node has outstanding, not a pacing device).
     */
    public static final class Sender {
        private final Vertx vertx;
        /** The event-loop context the lanes are confined to (unwrapped: handlers run on duplicates of it). */
        private final ContextInternal context;
        private final int maxInFlight;
        private final int maxItems;
        private final long maxBytes;
        private final Map<String, Lane> lanes = new HashMap<>();
        /** Per caller event loop (other than the lanes') with a turn in progress, the requests of that turn. */
        private final Map<ContextInternal, Handover> handovers = new ConcurrentHashMap<>();
        /** A hand-over normally arrives within microseconds; after about this long the nodes' lanes leave without it. */
        static final long MAX_HOLD_MICROS = 250;
        private final long maxHoldMicros;
        /** Hand-overs scheduled on caller loops whose requests have not yet reached the lanes. */
        private final AtomicInteger handing = new AtomicInteger();

        public Sender(Vertx vertx, int maxInFlight, int maxItems, long maxBytes) {
            this(vertx.getOrCreateContext(), maxInFlight, maxItems, maxBytes, MAX_HOLD_MICROS);
        }

        /**
         * A sender whose lanes live on {@code context} (an event-loop context), whoever calls it; a
         * lane holds its flush for another loop's hand-over for about {@code maxHoldMicros} at most
         * (the limit's timer fires on the lane's loop, then hops onto its context).
         */
        public Sender(io.vertx.core.Context context, int maxInFlight, int maxItems, long maxBytes, long maxHoldMicros) {
            if (maxInFlight < 1 || maxItems < 1 || maxBytes < 1 || maxHoldMicros < 1) throw new IllegalArgumentException("limits must be positive");
            this.vertx = context.owner();
            this.context = ((ContextInternal) context).unwrap();
            this.maxInFlight = maxInFlight;
            this.maxItems = maxItems;
            this.maxBytes = maxBytes;
            this.maxHoldMicros = maxHoldMicros;
        }

        /** The defaults the nodes use: up to 16 messages in flight per address, 64 requests or 1 MiB per batch. */
        public static Sender standard(Vertx vertx) {
            return new Sender(vertx, 16, 64, 1 << 20);
        }

        /** The same defaults, with the lanes on {@code context}. */
        public static Sender standard(io.vertx.core.Context context) {
            return new Sender(context, 16, 64, 1 << 20, MAX_HOLD_MICROS);
        }

        /**
         * Requests {@code body} from {@code address} with {@code options}' headers and send timeout
         * (other options are not carried). Completes with the reply's body, or fails as the bus
         * would fail the lone request, on the caller's context when it has one: a caller confined
         * to its own event loop (a node's API instance) never sees its answer on the sender's.
         */
        public Future<JsonObject> request(String address, Object body, DeliveryOptions options) {
            if (body != null && !(body instanceof JsonObject) && !(body instanceof Buffer)) {
                return Future.failedFuture(new IllegalArgumentException("a batched body must be a JSON object or bytes"));
            }
            ContextInternal caller = Vertx.currentContext() instanceof ContextInternal c ? c : null;
            // Only code on an event-loop context's own thread is confined to it: a blocking task of
            // such a context sees it as current from a worker thread, and must hop like anyone else.
            boolean onItsLoop = caller != null && caller.isEventLoopContext() && caller.inThread();
            if (onItsLoop && caller.unwrap() == context) {
                Pending p = pending(body, options, Promise.promise(), null);
                enqueue(address, p);
                return p.promise().future();
            }
            // The lanes belong to the sender's context. A caller on another event loop gets its answer
            // on its own context, and hands its requests over once per turn of its loop, so they join
            // the lane's next flush together (one cross-thread task for the turn, not one each).
            if (!onItsLoop) {
                Pending p = pending(body, options, caller == null ? Promise.promise() : caller.promise(), null);
                context.runOnContext(v -> enqueue(address, p));
                return p.promise().future();
            }
            ContextInternal home = caller.unwrap();
            Pending p = pending(body, options, caller.promise(), home);
            handovers.computeIfAbsent(home, Handover::new).add(address, p);
            return p.promise().future();
        }

        private static Pending pending(Object body, DeliveryOptions options, Promise<JsonObject> promise, ContextInternal home) {
            return new Pending(body, options, estimate(body), promise, home);
        }

        /**
         * The requests one caller event loop made during its current turn: confined to that loop's
         * thread (only callers running on it get here), handed to the lanes' context in one task
         * when the turn ends. Made by the turn's first request and dropped when handed over, so the
         * map holds only loops with a turn in progress.
         */
        private final class Handover {
            private final ContextInternal loop;
            private final List<Handed> made = new ArrayList<>();

            Handover(ContextInternal loop) {
                this.loop = loop;
            }

            void add(String address, Pending p) {
                if (made.isEmpty()) {
                    handing.incrementAndGet();
                    loop.runOnContext(v -> handOver());
                }
                made.add(new Handed(address, p));
            }

            private void handOver() {
                // Same thread as add(): the loop's next request starts a new hand-over.
                handovers.remove(loop, this);
                context.runOnContext(v -> {
                    for (Handed h : made) enqueue(h.address(), h.pending());
                    handing.decrementAndGet();
                    // A lane that held its flush for this hand-over leaves now, whatever else is coming.
                    for (Lane lane : lanes.values()) {
                        if (lane.held) scheduleFlush(lane);
                    }
                });
            }
        }

        private record Handed(String address, Pending pending) {}

        private void enqueue(String address, Pending p) {
            Lane lane = lanes.computeIfAbsent(address, Lane::new);
            lane.queue.add(p);
            scheduleFlush(lane);
        }

        /**
         * A lane leaves once this event-loop turn has handed over everything it read: requests that
         * arrived together share a message, and none waits for another's answer. While another
         * event loop's hand-over is on its way (its turn produced requests too: they answer the same
         * wave of replies), the lane holds once for it, so both loops' requests share the message;
         * the hand-over's arrival releases it, or the hold's limit if the hand-over is late.
         */
        private void scheduleFlush(Lane lane) {
            if (lane.flushScheduled) return;
            lane.flushScheduled = true;
            context.runOnContext(v -> {
                lane.flushScheduled = false;
                if (!lane.held && handing.get() > 0 && lane.queue.size() < maxItems) {
                    lane.held = true;
                    // Bounded: a hand-over whose loop lost its core (two cores, many threads) must not
                    // hold this lane's requests for as long as the scheduler keeps that loop waiting.
                    lane.holdLimit = context.nettyEventLoop().schedule(() -> context.runOnContext(t -> {
                        if (lane.held) scheduleFlush(lane);
                    }), maxHoldMicros, TimeUnit.MICROSECONDS);
                    return;
                }
                lane.held = false;
                if (lane.holdLimit != null) {
                    lane.holdLimit.cancel(false);
                    lane.holdLimit = null;
                }
                lane.flush();
            });
        }

        /**
         * One request: {@code promise} is the caller's (bound to its context when it has one);
         * {@code home} is the caller's event loop when that is not the lanes', so that one batch's
         * answers reach each such loop in one cross-thread task ({@code null}: complete it where it is answered).
         */
        record Pending(Object body, DeliveryOptions options, long bytes, Promise<JsonObject> promise, ContextInternal home) {}

        private final class Lane {
            final String address;
            final ArrayDeque<Pending> queue = new ArrayDeque<>();
            int inFlight;
            boolean flushScheduled;
            /** Holding its flush for a hand-over on its way (at most once in a row, for at most maxHoldMicros). */
            boolean held;
            ScheduledFuture<?> holdLimit;

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
                Buffer items = Wire.items(batch);
                DeliveryOptions options = new DeliveryOptions().setSendTimeout(batch.get(0).options().getSendTimeout());
                MultiMap first = batch.get(0).options().getHeaders();
                // The cluster secret authenticates the message that carries the batch.
                if (first != null && first.contains(Bus.SECRET_HEADER)) options.addHeader(Bus.SECRET_HEADER, first.get(Bus.SECRET_HEADER));
                return vertx.eventBus().<Buffer>request(BusBatch.address(address), items, options)
                        .onComplete(ar -> {
                            if (ar.failed()) {
                                List<Runnable> settled = new ArrayList<>(batch.size());
                                for (Pending p : batch) settled.add(() -> p.promise().fail(ar.cause()));
                                settle(batch, settled);
                                return;
                            }
                            List<Answer> replies;
                            try {
                                replies = Wire.replies(ar.result().body());
                            } catch (RuntimeException e) {
                                replies = List.of();
                            }
                            // Answered, but not in a form we can read, or not one reply per item (so no reply
                            // can be paired with its request for sure): whether each item applied is unknown.
                            // A misaligned "not_leader" taken at face value would retry a write that applied.
                            if (replies.size() != batch.size()) replies = List.of();
                            List<Runnable> settled = new ArrayList<>(batch.size());
                            for (int i = 0; i < batch.size(); i++) {
                                Answer r = i < replies.size() ? replies.get(i) : null;
                                Promise<JsonObject> promise = batch.get(i).promise();
                                settled.add(r != null && r.body() != null ? () -> promise.complete(r.body())
                                        : r != null ? () -> promise.fail(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, r.code(), r.message()))
                                        : () -> promise.fail(new ReplyException(ReplyFailure.ERROR,
                                                "the batch's answer could not be read as one reply per request; the request may or may not have applied")));
                            }
                            settle(batch, settled);
                        });
            }

            /**
             * Runs each request's completion: on the lanes' context for its own callers, and for the
             * callers of each other event loop in one cross-thread task to that loop (each completion
             * then runs on its caller's exact context, a duplicated one by a further task on the same
             * thread), rather than a cross-thread task per request.
             */
            private void settle(List<Pending> batch, List<Runnable> settled) {
                Map<ContextInternal, List<Runnable>> byLoop = null;
                for (int i = 0; i < batch.size(); i++) {
                    ContextInternal home = batch.get(i).home();
                    if (home == null) {
                        settled.get(i).run();
                        continue;
                    }
                    if (byLoop == null) byLoop = new HashMap<>();
                    byLoop.computeIfAbsent(home, h -> new ArrayList<>()).add(settled.get(i));
                }
                if (byLoop != null) byLoop.forEach((loop, runs) -> loop.runOnContext(v -> runs.forEach(Runnable::run)));
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
    public static void serve(Message<Object> batch, BiFunction<MultiMap, Object, Future<Answer>> serve) {
        List<Wire.Item> items;
        try {
            items = batch.body() instanceof Buffer b ? Wire.decodeItems(b) : null;
        } catch (RuntimeException e) {
            // A length that does not fit, an unknown kind, a JSON body that does not parse: refused whole.
            batch.fail(400, "malformed batch: " + e.getMessage());
            return;
        }
        if (items == null || items.isEmpty()) {
            batch.fail(400, "a batch must be a binary batch envelope with at least one item");
            return;
        }
        List<Future<Answer>> answers = new ArrayList<>(items.size());
        for (Wire.Item item : items) answers.add(serve.apply(item.headers(), item.body()));
        Future.join(answers).onComplete(done -> {
            List<Answer> replies = new ArrayList<>(answers.size());
            for (Future<Answer> f : answers) replies.add(f.succeeded() ? f.result() : Answer.fail(500, String.valueOf(f.cause())));
            batch.reply(Wire.encodeReplies(replies));
        });
    }

    /**
     * The binary envelope (docs/event-bus.md, "Batches"). Lengths are 4-byte big-endian ints,
     * strings UTF-8. Bodies cross as bytes: a client's request text goes through untouched (the
     * leader decodes it with the same strict decoder as any request), and nothing is re-encoded
     * into a JSON envelope on one node only to be parsed back on the other.
     */
    static final class Wire {
        private Wire() {}

        static final byte VERSION = 1;
        /** Jackson's streaming reader and writer: these bodies need no data binding, which costs more per message. */
        private static final io.vertx.core.json.jackson.JacksonCodec CODEC = new io.vertx.core.json.jackson.JacksonCodec();
        /** Body kinds: none, a JSON object (decoded to a JsonObject), raw bytes (handed over as a Buffer). */
        static final byte NONE = 0, JSON = 1, BYTES = 2;

        record Item(MultiMap headers, Object body) {}

        static Buffer items(List<Sender.Pending> batch) {
            Buffer out = Buffer.buffer(256 * batch.size()).appendByte(VERSION).appendInt(batch.size());
            for (Sender.Pending p : batch) {
                MultiMap h = p.options().getHeaders();
                out.appendInt(h == null ? 0 : h.size());
                if (h != null) h.forEach(e -> {
                    string(out, e.getKey());
                    string(out, e.getValue());
                });
                body(out, p.body());
            }
            return out;
        }

        static List<Item> decodeItems(Buffer in) {
            Reader r = new Reader(in);
            int n = r.count();
            List<Item> items = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int headers = r.count();
                MultiMap h = MultiMap.caseInsensitiveMultiMap();
                for (int j = 0; j < headers; j++) h.add(r.string(), r.string());
                items.add(new Item(h, r.body()));
            }
            r.end();
            return items;
        }

        static Buffer encodeReplies(List<Answer> replies) {
            Buffer out = Buffer.buffer(64 * replies.size()).appendByte(VERSION).appendInt(replies.size());
            for (Answer a : replies) {
                if (a.body() != null) {
                    out.appendInt(0);
                    body(out, a.body());
                } else {
                    // A failure code is never 0: a lone failed reply carries an HTTP-like or store code.
                    out.appendInt(a.code() == 0 ? 500 : a.code());
                    string(out, a.message() == null ? "" : a.message());
                }
            }
            return out;
        }

        static List<Answer> replies(Buffer in) {
            Reader r = new Reader(in);
            int n = r.count();
            List<Answer> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int code = r.integer();
                if (code == 0) {
                    Object body = r.body();
                    if (!(body instanceof JsonObject o)) throw new IllegalArgumentException("a reply body must be a JSON object");
                    out.add(Answer.ok(o));
                } else {
                    out.add(Answer.fail(code, r.string()));
                }
            }
            r.end();
            return out;
        }

        private static void string(Buffer out, String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.appendInt(b.length).appendBytes(b);
        }

        private static void body(Buffer out, Object body) {
            if (body == null) {
                out.appendByte(NONE);
            } else if (body instanceof Buffer b) {
                out.appendByte(BYTES).appendInt(b.length()).appendBuffer(b);
            } else if (body instanceof JsonObject o) {
                Buffer b = CODEC.toBuffer(o, false);
                out.appendByte(JSON).appendInt(b.length()).appendBuffer(b);
            } else {
                throw new IllegalArgumentException("a batch item's body must be a JSON object or bytes, got "
                        + body.getClass().getSimpleName());
            }
        }

        /** Reads with every length checked against what is left, so a malformed envelope is refused, never misread. */
        private static final class Reader {
            private final Buffer in;
            private int pos;

            Reader(Buffer in) {
                this.in = in;
                if (in.length() < 1 || in.getByte(0) != VERSION) {
                    throw new IllegalArgumentException("unknown envelope version");
                }
                pos = 1;
            }

            int integer() {
                need(4);
                int v = in.getInt(pos);
                pos += 4;
                return v;
            }

            /** A count or length: not negative, and never more than the bytes left could hold. */
            int count() {
                int n = integer();
                if (n < 0 || n > in.length() - pos) throw new IllegalArgumentException("a count or length of " + n + " at byte " + (pos - 4));
                return n;
            }

            String string() {
                int n = count();
                String s = lake.meta.Keys.strictUtf8(in.getBytes(pos, pos + n), 0, n);
                if (s == null) throw new IllegalArgumentException("a header at byte " + pos + " is not valid UTF-8");
                pos += n;
                return s;
            }

            Object body() {
                need(1);
                byte kind = in.getByte(pos++);
                if (kind == NONE) return null;
                int n = count();
                Buffer b = in.getBuffer(pos, pos + n);
                pos += n;
                return switch (kind) {
                    case JSON -> {
                        if (!(CODEC.fromBuffer(b) instanceof JsonObject o)) throw new IllegalArgumentException("a JSON body must be an object");
                        yield o;
                    }
                    case BYTES -> b;
                    default -> throw new IllegalArgumentException("unknown body kind " + kind);
                };
            }

            void end() {
                if (pos != in.length()) throw new IllegalArgumentException((in.length() - pos) + " bytes after the last item");
            }

            private void need(int n) {
                if (in.length() - pos < n) throw new IllegalArgumentException("the envelope ends early at byte " + pos);
            }
        }
    }

    /** A cheap size estimate of a JSON body (its strings' lengths plus a little per value), to bound a batch. */
    static long estimate(Object value) {
        if (value instanceof Buffer b) return b.length() + 8L;
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
