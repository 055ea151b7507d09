package lake.bench;

import lake.meta.GuardedMutation;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Guarded mutations per second against a real, fsynced RocksDB store, with group commit on and
 * off, at 1 and 64 concurrent callers. Two harnesses for "64 callers":
 * <ul>
 *   <li>{@code guardedUpdate_64callers}: 64 JMH threads, each submitting one guarded exact-value
 *       update of its own key and blocking until it is acknowledged, then issuing the next.</li>
 *   <li>{@code guardedUpdate_64inFlight}: one JMH thread keeping exactly 64 mutations outstanding
 *       (the store is asynchronous, like a verticle with 64 requests open); each invocation waits
 *       for a free slot, i.e. for an earlier mutation to be acknowledged, then submits. In steady
 *       state the submission rate is the acknowledgement rate (at most 64 are uncounted).</li>
 * </ul>
 * Every counted operation was fsynced and returned {@code true}; a {@code false} aborts the run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class RocksGuardedMutationBenchmark {
    static final String GUARD = "election/leader";
    static final byte[] LEASE = "{\"holder\":\"bench\",\"epoch\":1}".getBytes(StandardCharsets.UTF_8);

    @Param({"true", "false"})
    public boolean groupCommit;

    Path dir;
    RocksMetaStore store;
    final AtomicInteger callerIds = new AtomicInteger();

    @Setup(Level.Trial)
    public void open() throws Exception {
        dir = Files.createTempDirectory("rocks-bench-");
        store = RocksMetaStore.open(RocksConfig.defaults(dir).withGroupCommit(groupCommit));
        if (!await(store.cas(GUARD, null, LEASE))) throw new IllegalStateException("guard not installed");
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        await(store.close());
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** One caller: its own target key and the exact value it last wrote there. */
    @State(Scope.Thread)
    public static class Caller {
        String key;
        byte[] current;
        long next;

        @Setup(Level.Trial)
        public void create(RocksGuardedMutationBenchmark bench) throws Exception {
            key = "bench/target/" + bench.callerIds.incrementAndGet();
            current = value(0);
            if (!await(bench.store.guardedMutate(GuardedMutation.create(GUARD, LEASE, key, current)))) {
                throw new IllegalStateException("caller key " + key + " not created");
            }
        }

        GuardedMutation nextUpdate() {
            byte[] v = value(++next);
            GuardedMutation m = GuardedMutation.update(GUARD, LEASE, key, current, v);
            current = v;
            return m;
        }

        static byte[] value(long n) {
            return ("v" + n).getBytes(StandardCharsets.UTF_8);
        }
    }

    @Benchmark
    @Threads(1)
    public boolean guardedUpdate_1caller(Caller caller) throws Exception {
        return mutate(caller);
    }

    @Benchmark
    @Threads(64)
    public boolean guardedUpdate_64callers(Caller caller) throws Exception {
        return mutate(caller);
    }

    /** 64 callers' slots; a slot is free when its caller's previous mutation was acknowledged. */
    @State(Scope.Thread)
    public static class InFlight {
        static final int SLOTS = 64;
        final ArrayBlockingQueue<Caller> free = new ArrayBlockingQueue<>(SLOTS);
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        @Setup(Level.Trial)
        public void create(RocksGuardedMutationBenchmark bench) throws Exception {
            for (int i = 0; i < SLOTS; i++) {
                Caller c = new Caller();
                c.create(bench);
                free.add(c);
            }
        }

        /** Waits for every outstanding mutation, so none leaks into the next iteration or trial. */
        @TearDown(Level.Iteration)
        public void drain() throws Exception {
            List<Caller> all = new ArrayList<>(SLOTS);
            for (int i = 0; i < SLOTS; i++) {
                Caller c = free.poll(30, TimeUnit.SECONDS);
                if (c == null) throw new IllegalStateException("mutations still outstanding after 30 s");
                all.add(c);
            }
            free.addAll(all);
            if (failure.get() != null) throw new IllegalStateException("a mutation failed", failure.get());
        }
    }

    @Benchmark
    @Threads(1)
    public boolean guardedUpdate_64inFlight(InFlight inFlight) throws Exception {
        Caller caller = inFlight.free.take();
        Throwable failed = inFlight.failure.get();
        if (failed != null) throw new IllegalStateException("a mutation failed", failed);
        store.guardedMutate(caller.nextUpdate()).onComplete(ar -> {
            if (ar.failed()) inFlight.failure.compareAndSet(null, ar.cause());
            else if (!ar.result()) inFlight.failure.compareAndSet(null, new IllegalStateException(caller.key + " refused"));
            inFlight.free.add(caller);
        });
        return true;
    }

    private boolean mutate(Caller caller) throws Exception {
        if (!await(store.guardedMutate(caller.nextUpdate()))) {
            throw new IllegalStateException("guarded update of " + caller.key + " refused");
        }
        return true;
    }

    static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
