package lake.bench;

import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import lake.api.NodeApi;
import lake.bus.Bus;
import lake.bus.BusMetaStore;
import lake.config.Settings;
import lake.meta.GuardedMutation;
import lake.metasrv.Leadership;
import lake.metasrv.NodeClock;
import lake.node.MetasrvNode;
import lake.node.Stores;
import lake.protocol.Ops;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The Metasrv write path without HTTP, on a real node (RocksDB, fsync on, group commit) deployed
 * exactly as {@code Main} deploys it, so that comparing with the wrk figures of
 * {@code scripts/bench/compare-etcd} shows what HTTP costs. Every operation creates a new key,
 * like the wrk load. Two depths of the path ({@code path}):
 * <ul>
 *   <li>{@code store}: a guarded create through {@link BusMetaStore} → {@code lake.internal.store}
 *       → StoreVerticle → RocksDB writer (one event-bus round trip, guard = the node's exact
 *       lease bytes);</li>
 *   <li>{@code api}: a CAS with {@code expected: null} on the node's API address, i.e. the fenced
 *       path over the node's local API address (ApiVerticle → NodeApi → FencedWriter → the store round
 *       trip above); the HTTP ingress runs the same NodeApi on its own event loop, without this hop.</li>
 * </ul>
 * Requests are issued from one Vert.x event-loop context, as the HTTP ingress issues them.
 * {@code inFlight64} keeps 64 requests outstanding (throughput); {@code inFlight1} waits for each
 * (latency distribution). Every counted operation was acknowledged as applied after its fsync; a
 * refusal or a failure aborts the run.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EventBusPathBenchmark {
    static final String VALUE_B64 = Base64.getEncoder().encodeToString(
            "{\"table\":\"robots\",\"schema\":7,\"location\":\"s3://lake/kv/robots/v7\",\"owner\":\"bench\"}"
                    .getBytes(StandardCharsets.UTF_8));
    static final byte[] VALUE = Base64.getDecoder().decode(VALUE_B64);

    @Param({"store", "api"})
    public String path;

    Path dir;
    Vertx vertx;
    MetasrvNode node;
    Context client;
    BusMetaStore store;
    String leaseKey;
    byte[] lease;
    long epoch;
    /** Only touched on {@link #client}'s event loop. */
    long nextKey;

    @Setup(Level.Trial)
    public void start() throws Exception {
        dir = Files.createTempDirectory("eventbus-bench-");
        // A lease TTL far longer than the run: the guard's bytes stay the ones read here, so a
        // refused write can only be a bug, never a renewal in flight.
        Settings s = new Settings("bench", "127.0.0.1", 0, dir, Settings.StoreType.ROCKS, true, null, "us-east-1",
                "unused", false, "election/leader", 3_600_000, 1_200_000, 360_000, 30_000, 10_000);
        vertx = Vertx.vertx(MetasrvNode.vertxOptions());
        node = await(MetasrvNode.deploy(vertx, new MetasrvNode.Options(s, NodeClock.SYSTEM, Stores.opener(s),
                Bus.STORE, false)));
        Leadership l = await(vertx.eventBus().<Leadership>request(Bus.election("bench"), null,
                new DeliveryOptions().addHeader(Bus.OP_HEADER, "campaign"))).body();
        if (!l.isLeader()) throw new IllegalStateException("benchmark node did not win the lease: " + l.reason());
        leaseKey = s.leaseKey();
        lease = l.guard().orElseThrow().leaseBytes();
        epoch = l.epoch();
        // The API verticle learns leadership from the publication; wait until it can take writes.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                await(vertx.eventBus().request(Bus.nodeApi("bench"), new JsonObject(),
                        new DeliveryOptions().addHeader(Bus.OP_HEADER, Ops.READY)));
                break;
            } catch (Exception notYet) {
                if (System.nanoTime() > until) throw new IllegalStateException("node never became ready", notYet);
            }
        }
        store = new BusMetaStore(vertx, Bus.STORE, () -> epoch, 10_000);
        CompletableFuture<Context> ctx = new CompletableFuture<>();
        vertx.deployVerticle(new io.vertx.core.VerticleBase() {
            @Override
            public Future<?> start() {
                ctx.complete(context);
                return Future.succeededFuture();
            }
        }, new DeploymentOptions());
        client = ctx.get(30, TimeUnit.SECONDS);
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        await(node.stop());
        await(vertx.close());
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** One write of a new key along {@link #path}; runs on {@link #client}. Completes with applied. */
    Future<Boolean> write() {
        String key = "kv/bench/" + (nextKey++);
        if (path.equals("store")) {
            return store.guardedMutate(GuardedMutation.create(leaseKey, lease, key, VALUE));
        }
        JsonObject cas = new JsonObject().put("key", key).putNull("expected").put("value", VALUE_B64);
        return vertx.eventBus().<JsonObject>request(Bus.nodeApi("bench"), cas,
                        new DeliveryOptions().addHeader(Bus.OP_HEADER, Ops.CAS).setSendTimeout(30_000))
                .map(reply -> reply.body().getBoolean("applied"));
    }

    /** 64 request slots; a slot is free when its previous request was acknowledged. */
    @State(Scope.Thread)
    public static class InFlight {
        static final int SLOTS = 64;
        final Semaphore free = new Semaphore(SLOTS);
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        /** Waits for every outstanding request, so none leaks into the next iteration. */
        @TearDown(Level.Iteration)
        public void drain() throws Exception {
            if (!free.tryAcquire(SLOTS, 30, TimeUnit.SECONDS)) throw new IllegalStateException("requests outstanding after 30 s");
            free.release(SLOTS);
            if (failure.get() != null) throw new IllegalStateException("a write failed", failure.get());
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @Threads(1)
    public boolean inFlight64(InFlight inFlight) throws Exception {
        inFlight.free.acquire();
        Throwable failed = inFlight.failure.get();
        if (failed != null) throw new IllegalStateException("a write failed", failed);
        client.runOnContext(v -> write().onComplete(ar -> {
            if (ar.failed()) inFlight.failure.compareAndSet(null, ar.cause());
            else if (!ar.result()) inFlight.failure.compareAndSet(null, new IllegalStateException("write refused"));
            inFlight.free.release();
        }));
        return true;
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(1)
    public boolean inFlight1() throws Exception {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        client.runOnContext(v -> write().onComplete(ar -> {
            if (ar.succeeded()) done.complete(ar.result());
            else done.completeExceptionally(ar.cause());
        }));
        if (!done.get(30, TimeUnit.SECONDS)) throw new IllegalStateException("write refused");
        return true;
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
