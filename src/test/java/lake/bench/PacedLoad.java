package lake.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongFunction;

/** The write side and the report of the watch-latency benchmarks ({@link WatchLatency}, {@link EtcdWatchLatency}). */
final class PacedLoad {
    static final int BUCKETS = 60_000;

    private PacedLoad() {}

    /** What a run's writes got: answered 200, otherwise, and the run's wall time. */
    record Result(long acknowledged, long failed, double wallS) {}

    /**
     * Sends {@code rate * seconds} writes, {@code write(n)} each (its HTTP status), paced by a timer
     * every 10 ms so the rate holds without bursts; then waits until {@code received} reaches
     * {@code expected} and every write was answered, or a minute passed.
     */
    static Result drive(Vertx vertx, int rate, int seconds, LongFunction<Future<Integer>> write, AtomicLong received, long expected)
            throws Exception {
        long total = (long) rate * seconds;
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long start = System.nanoTime();
        CountDownLatch sent = new CountDownLatch(1);
        long[] issued = {0};
        vertx.setPeriodic(10, id -> {
            long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L);
            while (issued[0] < due) {
                write.apply(issued[0]++).onComplete(ar -> (ar.succeeded() && ar.result() == 200 ? acknowledged : failed).incrementAndGet());
            }
            if (issued[0] >= total) {
                vertx.cancelTimer(id);
                sent.countDown();
            }
        });
        sent.await(seconds + 60L, TimeUnit.SECONDS);
        java.util.concurrent.CompletableFuture<Void> settled = new java.util.concurrent.CompletableFuture<>();
        vertx.setPeriodic(100, id -> {
            if (received.get() >= expected && acknowledged.get() + failed.get() >= total) {
                vertx.cancelTimer(id);
                settled.complete(null);
            }
        });
        try {
            settled.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException shortOfIt) {
            // Reported by the caller: the counts say what is missing.
        }
        return new Result(acknowledged.get(), failed.get(), (System.nanoTime() - start) / 1e9);
    }

    /** The arguments both watch-latency tools start with: {@code PORT WATCHERS RATE SECONDS shared|distinct}. */
    record Args(int port, int watchers, int rate, int seconds, boolean shared) {
        static Args parse(String[] args) {
            if (args.length < 5 || !(args[4].equals("shared") || args[4].equals("distinct"))) {
                throw new IllegalArgumentException("usage: PORT WATCHERS RATE SECONDS shared|distinct ...");
            }
            return new Args(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                    Integer.parseInt(args[3]), args[4].equals("shared"));
        }
    }

    /**
     * A stream's bytes not yet parsed: chunks appended, the parsed prefix dropped once per chunk.
     * Bytes, not text, and each event searched only within itself: at millions of events a second
     * on the node's own two cores, the load generator's own lag would count as delivery latency.
     */
    static final class Bytes {
        byte[] bytes = new byte[8192];
        int length;

        void append(io.vertx.core.buffer.Buffer chunk) {
            int n = chunk.length();
            if (length + n > bytes.length) bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
            chunk.getBytes(0, n, bytes, length);
            length += n;
        }

        void drop(int prefix) {
            System.arraycopy(bytes, prefix, bytes, 0, length - prefix);
            length -= prefix;
        }
    }

    /** Where {@code needle} starts in {@code b} within [from, to), or -1. */
    static int find(byte[] b, byte[] needle, int from, int to) {
        int last = to - needle.length;
        outer:
        for (int i = from; i <= last; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (b[i + j] != needle[j]) continue outer;
            }
            return i;
        }
        return -1;
    }

    /**
     * A latency histogram (1 ms buckets) kept per recording thread and merged for the report: a
     * thousand streams on a few event loops count millions of events a second, and one shared
     * array's cache lines bouncing between the cores would be the generator's cost, not the node's.
     */
    static final class Latencies {
        private final List<AtomicLongArray> perThread = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final ThreadLocal<AtomicLongArray> mine = ThreadLocal.withInitial(() -> {
            AtomicLongArray h = new AtomicLongArray(BUCKETS + 1);
            perThread.add(h);
            return h;
        });

        void record(long ms) {
            mine.get().incrementAndGet((int) Math.min(BUCKETS, Math.max(0, ms)));
        }

        AtomicLongArray merged() {
            AtomicLongArray all = new AtomicLongArray(BUCKETS + 1);
            for (AtomicLongArray h : perThread) for (int i = 0; i <= BUCKETS; i++) all.addAndGet(i, h.get(i));
            return all;
        }
    }

    private static final byte[] AT_MS = "\"at_ms\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * Where {@code "at_ms":} starts in the SSE event [from, to), or -1: read along the shape the node
     * writes ({@code id: R\ndata: {"revision":R,"epoch":E,"at_ms":}) without searching, else
     * searched for.
     */
    static int atMs(byte[] b, int from, int to) {
        int i = from;
        for (int field = 0; field < 3 && i < to; field++) {
            // Past the field's name to its first digit, then past its digits.
            while (i < to && (b[i] < '0' || b[i] > '9')) i++;
            while (i < to && b[i] >= '0' && b[i] <= '9') i++;
        }
        // After the epoch's digits: `,"at_ms":` (a u64 above 2^53 is written as a string: `","at_ms":`).
        if (i < to && b[i] == '"') i++;
        if (i < to && b[i] == ',' && startsWith(b, AT_MS, i + 1, to)) return i + 1;
        return find(b, AT_MS, from, to);
    }

    /** Whether {@code b} holds {@code prefix} at {@code from}, within {@code to}. */
    static boolean startsWith(byte[] b, byte[] prefix, int from, int to) {
        if (to - from < prefix.length) return false;
        for (int j = 0; j < prefix.length; j++) if (b[from + j] != prefix[j]) return false;
        return true;
    }

    /** {@code p50=…ms p90=… p99=… p99.9=… p100=…} of the latency histogram (1 ms buckets). */
    static String percentiles(AtomicLongArray histogram, long count) {
        List<String> out = new ArrayList<>();
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999, 1.0}) {
            out.add("p" + (q == 0.999 ? "99.9" : Long.toString(Math.round(q * 100))) + "=" + quantile(histogram, count, q) + "ms");
        }
        return String.join(" ", out);
    }

    /** The smallest bucket (here 1 ms) at or below which a fraction {@code q} of the samples lie; the last bucket holds all above. */
    static long quantile(AtomicLongArray h, long count, double q) {
        long need = (long) Math.ceil(q * count);
        long seen = 0;
        int last = h.length() - 1;
        for (int i = 0; i <= last; i++) {
            seen += h.get(i);
            if (seen >= need && need > 0) return i;
        }
        return last;
    }
}
