package lake.bus;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import lake.meta.MetaException;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.StoreVerticle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static lake.node.NodeHarness.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls that queue up for one clustered address share a bus message, and each is answered exactly
 * as if it had gone alone: over a real store verticle (RocksDB) offered to the cluster, reached as
 * a remote node reaches it.
 */
class BusBatchTest {
    private static final String ADDRESS = "test.store";

    @TempDir Path dir;
    Vertx vertx;
    final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();

    @BeforeEach
    void deployStore() throws Exception {
        vertx = Vertx.vertx();
        await(vertx.deployVerticle(new StoreVerticle(v -> RocksMetaStore.open(v, RocksConfig.defaults(dir)), ADDRESS, false)));
        vertx.eventBus().addOutboundInterceptor(ctx -> {
            sent.computeIfAbsent(ctx.message().address(), a -> new AtomicInteger()).incrementAndGet();
            ctx.next();
        });
    }

    @AfterEach
    void close() throws Exception {
        await(vertx.close());
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs {@code body} in one turn of one event-loop context, as a node's API makes its calls. */
    private static <T> T inOneTurn(io.vertx.core.Context context, java.util.function.Supplier<T> body) throws Exception {
        io.vertx.core.Promise<T> p = io.vertx.core.Promise.promise();
        context.runOnContext(v -> p.complete(body.get()));
        return await(p.future());
    }

    private static Throwable awaitFailure(Future<?> f) throws Exception {
        await(f.otherwiseEmpty());
        assertThat(f.failed()).as("refused").isTrue();
        return f.cause();
    }

    private int messages(String address) {
        AtomicInteger n = sent.get(address);
        return n == null ? 0 : n.get();
    }

    @Test
    void queuedCallsShareMessagesAndAreAnsweredAlike() throws Exception {
        io.vertx.core.Context context = vertx.getOrCreateContext();
        BusMetaStore remote = inOneTurn(context, () -> new BusMetaStore(vertx, ADDRESS, () -> 1L, 10_000, null, StoreLink.Reach.REMOTE));
        assertThat(await(remote.cas("kv/taken", null, b("x")))).isTrue();
        int before = messages(ADDRESS) + messages(BusBatch.address(ADDRESS));

        List<Future<Boolean>> writes = inOneTurn(context, () -> {
            List<Future<Boolean>> all = new ArrayList<>();
            for (int i = 0; i < 300; i++) all.add(remote.cas("kv/" + i, null, b("v" + i)));
            return all;
        });
        Future<Boolean> taken = remote.cas("kv/taken", null, b("y"));
        await(Future.join(new ArrayList<>(writes)));

        for (Future<Boolean> w : writes) assertThat(w.result()).isTrue();
        assertThat(await(taken)).as("a failed condition is false, as alone").isFalse();
        int used = messages(ADDRESS) + messages(BusBatch.address(ADDRESS)) - before;
        assertThat(messages(BusBatch.address(ADDRESS))).as("batches were sent").isPositive();
        assertThat(used).as("300 calls of one turn in batches of at most 64, and one alone").isEqualTo(5 + 1);

        List<Future<Optional<byte[]>>> reads = inOneTurn(context, () -> {
            List<Future<Optional<byte[]>>> all = new ArrayList<>();
            for (int i = 0; i < 300; i++) all.add(remote.get("kv/" + i));
            return all;
        });
        await(Future.join(new ArrayList<>(reads)));
        for (int i = 0; i < 300; i++) assertThat(reads.get(i).result()).as("kv/%d", i).contains(b("v" + i));
        assertThat(await(remote.get("kv/taken"))).contains(b("x"));
    }

    @Test
    void anItemFailsAsItWouldAlone() throws Exception {
        io.vertx.core.Context context = vertx.getOrCreateContext();
        // Made in one turn of the event loop, the four leave together as one batch.
        List<Future<JsonObject>> calls = inOneTurn(context, () -> {
            BusBatch.Sender sender = new BusBatch.Sender(vertx, 1, 64, 1 << 20);
            List<Future<JsonObject>> all = new ArrayList<>();
            for (String op : List.of(StoreProtocol.GET, StoreProtocol.GET, "no-such-op", StoreProtocol.GET)) {
                all.add(sender.request(ADDRESS, new JsonObject().put("key", "kv/none"),
                        new DeliveryOptions().setSendTimeout(10_000).addHeader(Bus.OP_HEADER, op).addHeader(Bus.EPOCH_HEADER, "1")));
            }
            return all;
        });
        await(Future.join(new ArrayList<>(calls)).otherwiseEmpty());
        assertThat(messages(BusBatch.address(ADDRESS))).isEqualTo(1);
        assertThat(calls.get(0).result()).isEqualTo(new JsonObject().putNull("value"));
        assertThat(calls.get(1).result()).isEqualTo(new JsonObject().putNull("value"));
        assertThat(calls.get(3).result()).isEqualTo(new JsonObject().putNull("value"));
        assertThat(calls.get(2).cause()).isInstanceOfSatisfying(ReplyException.class, e -> {
            assertThat(e.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
            assertThat(e.failureCode()).isEqualTo(StoreProtocol.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("unknown store operation 'no-such-op'");
        });
    }

    @Test
    void anUnansweredBatchIsUnknownForEveryItemAndNeverResent() throws Exception {
        String silent = "test.silent";
        List<Message<Object>> received = new CopyOnWriteArrayList<>();
        await(vertx.eventBus().consumer(silent, received::add).completion());
        await(vertx.eventBus().consumer(BusBatch.address(silent), received::add).completion());
        List<Future<Boolean>> writes = inOneTurn(vertx.getOrCreateContext(), () -> {
            BusMetaStore remote = new BusMetaStore(vertx, silent, () -> 1L, 300, null, StoreLink.Reach.REMOTE);
            List<Future<Boolean>> all = new ArrayList<>();
            for (int i = 0; i < 5; i++) all.add(remote.cas("kv/" + i, null, b("v")));
            return all;
        });
        await(Future.join(new ArrayList<>(writes)).otherwiseEmpty());

        for (Future<Boolean> w : writes) assertThat(w.cause()).as("a write without an answer").isInstanceOf(MetaException.OutcomeUnknown.class);
        // Made in one turn, the five left at once as one batch, none waiting for an answer; nothing resent.
        assertThat(received).hasSize(1);
        assertThat(messages(BusBatch.address(silent))).isEqualTo(1);
        io.vertx.core.buffer.Buffer batch = (io.vertx.core.buffer.Buffer) received.stream()
                .filter(m -> m.address().equals(BusBatch.address(silent))).findFirst().orElseThrow().body();
        assertThat(BusBatch.Wire.decodeItems(batch)).hasSize(5);
    }

    @Test
    void bytesCrossAsSentAndJsonAsJson() throws Exception {
        String echo = "test.echo";
        List<Object> bodies = new CopyOnWriteArrayList<>();
        await(vertx.eventBus().<Object>consumer(BusBatch.address(echo), m -> BusBatch.serve(m, (headers, body) -> {
            bodies.add(body);
            return Future.succeededFuture(BusBatch.Answer.ok(new JsonObject().put("op", headers.get(Bus.OP_HEADER))));
        })).completion());
        // A client's text, exactly as received (odd spacing and member order kept), and a JSON object.
        io.vertx.core.buffer.Buffer text = io.vertx.core.buffer.Buffer.buffer("{ \"value\":\"eA==\",\"key\":\"k/é\" }");
        List<Future<JsonObject>> calls = inOneTurn(vertx.getOrCreateContext(), () -> {
            BusBatch.Sender sender = new BusBatch.Sender(vertx, 1, 64, 1 << 20);
            return List.of(sender.request(echo, text, new DeliveryOptions().setSendTimeout(10_000).addHeader(Bus.OP_HEADER, "cas")),
                    sender.request(echo, new JsonObject().put("key", "k"),
                            new DeliveryOptions().setSendTimeout(10_000).addHeader(Bus.OP_HEADER, "get")));
        });
        Future<JsonObject> first = calls.get(0);
        Future<JsonObject> second = calls.get(1);
        assertThat(await(first)).isEqualTo(new JsonObject().put("op", "cas"));
        assertThat(await(second)).isEqualTo(new JsonObject().put("op", "get"));
        assertThat(bodies).hasSize(2);
        assertThat(bodies.get(0)).isInstanceOf(io.vertx.core.buffer.Buffer.class).isEqualTo(text);
        assertThat(bodies.get(1)).isEqualTo(new JsonObject().put("key", "k"));
    }

    @Test
    void callsFromOtherEventLoopsShareTheLaneAndAreAnsweredOnTheirOwn() throws Exception {
        // A node's forwarding lane lives on one event loop; its API instances call it from theirs
        // (HTTP handlers from duplicated contexts of them).
        String echo = "test.lane";
        await(echo(echo));
        io.vertx.core.internal.VertxInternal internal = (io.vertx.core.internal.VertxInternal) vertx;
        io.vertx.core.internal.ContextInternal laneContext = internal.createEventLoopContext();
        Thread laneThread = inOneTurn(laneContext, Thread::currentThread);
        BusBatch.Sender lane = BusBatch.Sender.standard(laneContext);
        // Callers on other event loops than the lane's, each plain and duplicated.
        List<io.vertx.core.internal.ContextInternal> callers = new ArrayList<>();
        for (int i = 0; i < 8 && callers.size() < 4; i++) {
            io.vertx.core.internal.ContextInternal c = internal.createEventLoopContext();
            if (inOneTurn(c, Thread::currentThread) != laneThread) {
                callers.add(c);
                callers.add(c.duplicate());
            }
        }
        assertThat(callers).as("event loops other than the lane's").hasSizeGreaterThanOrEqualTo(2);
        int n = 0;
        for (io.vertx.core.internal.ContextInternal caller : callers) {
            Thread callerThread = inOneTurn(caller, Thread::currentThread);
            assertThat(callerThread).isNotSameAs(laneThread);
            List<Object[]> answeredOn = new CopyOnWriteArrayList<>();
            int before = messages(echo) + messages(BusBatch.address(echo));
            String tag = "c" + (n++) + "-";
            List<Future<JsonObject>> calls = inOneTurn(caller, () -> {
                List<Future<JsonObject>> made = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    made.add(lane.request(echo, new JsonObject(), new DeliveryOptions().setSendTimeout(10_000).addHeader("n", tag + i))
                            .onComplete(ar -> answeredOn.add(new Object[] {Thread.currentThread(), Vertx.currentContext()})));
                }
                return made;
            });
            for (int i = 0; i < 5; i++) assertThat(await(calls.get(i))).isEqualTo(new JsonObject().put("n", tag + i));
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> answeredOn.size() == 5);
            // Every answer on the caller's own thread and exact context (its API instance is confined to it).
            for (Object[] on : answeredOn) {
                assertThat(on[0]).isSameAs(callerThread);
                assertThat(on[1]).isSameAs(caller);
            }
            // The five calls of one turn reach the lane together, in one hand-over, and share one message.
            assertThat(messages(echo)).as("lone messages").isEqualTo(0);
            assertThat(messages(echo) + messages(BusBatch.address(echo)) - before).isEqualTo(1);
        }
    }

    /** Answers each request at {@code address}, alone or batched, with its header "n"; registered on the calling context. */
    private Future<?> echo(String address) {
        return Future.all(
                vertx.eventBus().<Object>consumer(address, m -> m.reply(new JsonObject().put("n", m.headers().get("n")))).completion(),
                vertx.eventBus().<Object>consumer(BusBatch.address(address), m -> BusBatch.serve(m, (headers, body) ->
                        Future.succeededFuture(BusBatch.Answer.ok(new JsonObject().put("n", headers.get("n")))))).completion());
    }

    /** An echo at {@code address} (alone and batched), a lane context, and an event loop other than the lane's. */
    private io.vertx.core.internal.ContextInternal[] echoLaneAndOtherLoop(String address) throws Exception {
        io.vertx.core.internal.VertxInternal internal = (io.vertx.core.internal.VertxInternal) vertx;
        io.vertx.core.internal.ContextInternal laneContext = internal.createEventLoopContext();
        Thread laneThread = inOneTurn(laneContext, Thread::currentThread);
        // The echo answers on the lane's loop, never on the other one (which a test may hold).
        await(inOneTurn(laneContext, () -> echo(address)));
        for (int i = 0; i < 8; i++) {
            io.vertx.core.internal.ContextInternal c = internal.createEventLoopContext();
            if (inOneTurn(c, Thread::currentThread) != laneThread) return new io.vertx.core.internal.ContextInternal[] {laneContext, c};
        }
        throw new AssertionError("no event loop other than the lane's");
    }

    @Test
    void requestsOfTwoEventLoopsInOneWaveShareOneMessage() throws Exception {
        // The lane's own loop sends a request while another loop's hand-over of the same wave is on
        // its way: the lane holds its flush once for it, so all four leave in one message. (A hold
        // bound far beyond the test's timing, so only the hold is tested here; the bound is below.)
        String echo = "test.wave";
        io.vertx.core.internal.ContextInternal[] loops = echoLaneAndOtherLoop(echo);
        io.vertx.core.internal.ContextInternal laneContext = loops[0], other = loops[1];
        BusBatch.Sender lane = new BusBatch.Sender(laneContext, 16, 64, 1 << 20, 30_000_000);
        DeliveryOptions opts = new DeliveryOptions().setSendTimeout(10_000);
        List<Future<JsonObject>> calls = new CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch laneTurnDone = new java.util.concurrent.CountDownLatch(1);
        inOneTurn(other, () -> {
            for (int i = 0; i < 3; i++) calls.add(lane.request(echo, new JsonObject(), new DeliveryOptions(opts).addHeader("n", "o" + i)));
            // Before this loop's turn ends (and its hand-over leaves), the lane's loop sends one of its
            // own and runs the flush that follows it.
            laneContext.runOnContext(v -> {
                calls.add(lane.request(echo, new JsonObject(), new DeliveryOptions(opts).addHeader("n", "l")));
                laneContext.runOnContext(after -> laneTurnDone.countDown());
            });
            try {
                assertThat(laneTurnDone.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return null;
        });
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> calls.size() == 4);
        for (Future<JsonObject> f : calls) assertThat(await(f).getString("n")).isIn("o0", "o1", "o2", "l");
        assertThat(messages(echo)).as("lone messages").isEqualTo(0);
        assertThat(messages(BusBatch.address(echo))).as("batch messages").isEqualTo(1);
    }

    @Test
    void aHandOverThatDoesNotComeHoldsTheLaneOnlyBriefly() throws Exception {
        // Another loop has made a request but cannot hand it over (its thread is held here, as a
        // scheduler that gives it no core would): the lane's own request still leaves and is
        // answered while that loop is still stuck (the hold's bound releases it; only the hand-over
        // could otherwise, and that waits for the loop).
        String echo = "test.stuck";
        io.vertx.core.internal.ContextInternal[] loops = echoLaneAndOtherLoop(echo);
        io.vertx.core.internal.ContextInternal laneContext = loops[0], other = loops[1];
        BusBatch.Sender lane = BusBatch.Sender.standard(laneContext);
        DeliveryOptions opts = new DeliveryOptions().setSendTimeout(10_000);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean resumed = new java.util.concurrent.atomic.AtomicBoolean();
        io.vertx.core.Promise<Future<JsonObject>> stuckCall = io.vertx.core.Promise.promise();
        other.runOnContext(v -> {
            stuckCall.complete(lane.request(echo, new JsonObject(), new DeliveryOptions(opts).addHeader("n", "stuck")));
            try {
                release.await(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                resumed.set(true);
            }
        });
        Future<JsonObject> stuck = await(stuckCall.future());
        try {
            Future<JsonObject> own = inOneTurn(laneContext, () -> lane.request(echo, new JsonObject(), new DeliveryOptions(opts).addHeader("n", "own")));
            assertThat(await(own).getString("n")).isEqualTo("own");
            // Answered while the other loop was still held: the lane did not wait for its hand-over.
            assertThat(resumed).as("the other loop resumed before the lane's own request was answered").isFalse();
        } finally {
            release.countDown();
        }
        assertThat(await(stuck).getString("n")).isEqualTo("stuck");
    }

    @Test
    void aBlockingTaskOfAnEventLoopContextHopsLikeAnyOtherCaller() throws Exception {
        // A blocking task of an event-loop context sees that context as current from a worker
        // thread; its requests must not enter the loop's per-turn hand-over (confined to the loop's
        // thread), and every request, the loop's own included, is answered.
        String echo = "test.blocking";
        io.vertx.core.internal.ContextInternal[] loops = echoLaneAndOtherLoop(echo);
        BusBatch.Sender lane = BusBatch.Sender.standard(loops[0]);
        io.vertx.core.internal.ContextInternal other = loops[1];
        DeliveryOptions opts = new DeliveryOptions().setSendTimeout(10_000);
        List<Future<JsonObject>> calls = new CopyOnWriteArrayList<>();
        for (int round = 0; round < 100; round++) {
            String r = String.valueOf(round);
            io.vertx.core.Promise<Void> done = io.vertx.core.Promise.promise();
            other.runOnContext(v -> {
                calls.add(lane.request(echo, new JsonObject(), new DeliveryOptions(opts).addHeader("n", "loop" + r)));
                other.executeBlocking(() -> calls.add(lane.request(echo, new JsonObject(), new DeliveryOptions(opts).addHeader("n", "blocking" + r))), false)
                        .<Void>mapEmpty().onComplete(done);
            });
            await(done.future());
        }
        assertThat(calls).hasSize(200);
        for (int i = 0; i < calls.size(); i++) {
            assertThat(await(calls.get(i)).getString("n")).isEqualTo((i % 2 == 0 ? "loop" : "blocking") + (i / 2));
        }
    }

    @Test
    void malformedBatchIsRefusedWholeAndNothingServed() throws Exception {
        String address = "test.strict";
        List<Object> served = new CopyOnWriteArrayList<>();
        await(vertx.eventBus().<Object>consumer(BusBatch.address(address), m -> BusBatch.serve(m, (headers, body) -> {
            served.add(body);
            return Future.succeededFuture(BusBatch.Answer.ok(new JsonObject()));
        })).completion());
        Map<String, io.vertx.core.buffer.Buffer> malformed = Map.of(
                "unknown envelope version", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 9).appendInt(1),
                "a count or length of 1000", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(1000),
                "a count or length of -1", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(1).appendInt(-1),
                "the envelope ends early", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(1).appendInt(0),
                "unknown body kind 7", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(1).appendInt(0)
                        .appendByte((byte) 7).appendInt(0),
                "was expecting double-quote", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(1).appendInt(0)
                        .appendByte((byte) 1).appendInt(2).appendString("{x"),
                "is not valid UTF-8", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(1).appendInt(1)
                        .appendInt(1).appendByte((byte) 0xC3).appendInt(0).appendByte((byte) 0),
                "bytes after the last item", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(1).appendInt(0)
                        .appendByte((byte) 0).appendByte((byte) 0),
                "at least one item", io.vertx.core.buffer.Buffer.buffer().appendByte((byte) 1).appendInt(0));
        for (Map.Entry<String, io.vertx.core.buffer.Buffer> e : malformed.entrySet()) {
            Throwable refused = awaitFailure(vertx.eventBus().request(BusBatch.address(address), e.getValue()));
            assertThat(refused).as(e.getKey()).isInstanceOfSatisfying(ReplyException.class, r -> {
                assertThat(r.failureCode()).isEqualTo(400);
                assertThat(r.getMessage()).contains(e.getKey());
            });
        }
        assertThat(awaitFailure(vertx.eventBus().request(BusBatch.address(address), new JsonObject().put("items", new io.vertx.core.json.JsonArray()))))
                .as("the old JSON envelope").hasMessageContaining("binary batch envelope");
        assertThat(served).as("no item of a malformed batch is served").isEmpty();
    }

    @Test
    void anAnswerWithoutOneReplyPerItemIsUnknownForEvery() throws Exception {
        // A peer that answers two requests with one reply (here a not_leader refusal, which taken at
        // face value would be retried): no reply can be paired with its request for sure.
        String address = "test.short";
        await(vertx.eventBus().<Object>consumer(BusBatch.address(address), m -> m.reply(BusBatch.Wire.encodeReplies(
                List.of(BusBatch.Answer.fail(503, "{\"error\":\"not_leader\"}"))))).completion());
        List<Future<JsonObject>> calls = inOneTurn(vertx.getOrCreateContext(), () -> {
            BusBatch.Sender sender = new BusBatch.Sender(vertx, 1, 64, 1 << 20);
            List<Future<JsonObject>> all = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                all.add(sender.request(address, new JsonObject().put("i", i), new DeliveryOptions().setSendTimeout(10_000)));
            }
            return all;
        });
        await(Future.join(new ArrayList<>(calls)).otherwiseEmpty());
        for (Future<JsonObject> c : calls) {
            assertThat(c.cause()).isInstanceOfSatisfying(ReplyException.class, e -> {
                assertThat(e.failureType()).as("unknown, never a refusal to retry").isEqualTo(ReplyFailure.ERROR);
                assertThat(e.getMessage()).contains("may or may not have applied");
            });
        }
    }
}
