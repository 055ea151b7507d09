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

    /** {@code p50=…ms p90=… p99=… p99.9=… p100=…} of the latency histogram (1 ms buckets). */
    /**
     * Where {@code needle} starts in {@code s} between {@code from} and {@code to} (the whole
     * needle inside), or -1. Bounded, unlike {@code StringBuilder.indexOf}, which scans to the end:
     * a chunk of k events parsed with unbounded searches costs k times the chunk, and at millions
     * of events a second the load generator's own lag would be counted as delivery latency.
     */
    static int find(CharSequence s, String needle, int from, int to) {
        int last = Math.min(to, s.length()) - needle.length();
        outer:
        for (int i = Math.max(0, from); i <= last; i++) {
            for (int j = 0; j < needle.length(); j++) {
                if (s.charAt(i + j) != needle.charAt(j)) continue outer;
            }
            return i;
        }
        return -1;
    }

    static String percentiles(AtomicLongArray histogram, long count) {
        List<String> out = new ArrayList<>();
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999, 1.0}) {
            out.add("p" + (q == 0.999 ? "99.9" : Long.toString(Math.round(q * 100))) + "=" + quantile(histogram, count, q) + "ms");
        }
        return String.join(" ", out);
    }

    /** The smallest latency (ms) at or below which a fraction {@code q} of the samples lie. */
    static long quantile(AtomicLongArray h, long count, double q) {
        long need = (long) Math.ceil(q * count);
        long seen = 0;
        for (int i = 0; i <= BUCKETS; i++) {
            seen += h.get(i);
            if (seen >= need && need > 0) return i;
        }
        return BUCKETS;
    }
}
