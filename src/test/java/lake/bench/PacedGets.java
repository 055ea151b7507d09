package lake.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An open-loop load: GETs of one path at a fixed rate, each timed from when it was due to be sent,
 * not from when a connection was free (wrk's closed loop times only requests a connection got to
 * send, so a stall shows as one slow request per connection; and a closed loop at full speed
 * measures a saturated machine's queue, where any other work raises the p99). Prints the same
 * RESULT line as the wrk scripts' common.lua, so {@code checked_result} reads it:
 * {@code RESULT label req_per_s p50_ms p99_ms requests non2xx connect_err read_err write_err status_err timeouts sampled bad}.
 *
 * <p>Usage: {@code PacedGets PORT PATH RATE SECONDS LABEL EXPECT} (EXPECT: a string every 16th
 * 2xx body must hold). It runs 5 s more than SECONDS, first, unrecorded; when the measured
 * window begins it says {@code paced LABEL: measuring} on stderr.
 */
public final class PacedGets {
    /** 10 µs buckets up to 10 s; a later answer counts in the last. */
    private static final int BUCKETS = 1_000_000;
    private static final int WARM_S = 5;

    private PacedGets() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String path = args[1];
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        String label = args[4];
        String expect = args[5];
        Vertx vertx = Vertx.vertx();
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setConnectTimeout(10_000),
                new PoolOptions().setHttp1MaxSize(64).setMaxWaitQueueSize(-1));
        AtomicLongArray histogram = new AtomicLongArray(BUCKETS + 1);
        AtomicLong ok = new AtomicLong();
        AtomicLong non2xx = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong sampled = new AtomicLong();
        AtomicLong bad = new AtomicLong();
        // The first WARM_S seconds run at the rate unrecorded: the pool's connections are opened and
        // the code compiled there, not inside the measured window.
        long warm = (long) rate * WARM_S;
        long total = (long) rate * (seconds + WARM_S);
        AtomicLong answered = new AtomicLong();
        AtomicLong recorded = new AtomicLong();
        // Each second's slowest request (from when it was due): where in the run a stall fell.
        java.util.concurrent.atomic.AtomicLongArray worst = new java.util.concurrent.atomic.AtomicLongArray(seconds + WARM_S);
        CompletableFuture<Void> done = new CompletableFuture<>();
        long start = System.nanoTime();
        long[] issued = {0};
        vertx.setPeriodic(1, id -> {
            long now = System.nanoTime();
            long due = Math.min(total, (now - start) * rate / 1_000_000_000L);
            while (issued[0] < due) {
                long n = issued[0]++;
                // Said once, when the first measured request is due: a script starts what it measures after it.
                if (n == warm) System.err.println("paced " + label + ": measuring");
                long dueAt = start + n * 1_000_000_000L / rate;
                client.request(HttpMethod.GET, port, "127.0.0.1", path)
                        .compose(req -> req.send())
                        .compose(resp -> resp.body().map(body -> {
                            if (resp.statusCode() / 100 != 2) {
                                non2xx.incrementAndGet();
                            } else if (ok.incrementAndGet() % 16 == 1) {
                                sampled.incrementAndGet();
                                if (!body.toString().contains(expect)) bad.incrementAndGet();
                            }
                            return body;
                        }))
                        .onComplete(ar -> {
                            if (ar.failed()) errors.incrementAndGet();
                            if (n >= warm) {
                                long micros = (System.nanoTime() - dueAt) / 1_000;
                                int second = (int) ((dueAt - start) / 1_000_000_000L);
                                if (second < worst.length()) worst.accumulateAndGet(second, micros, Math::max);
                                histogram.incrementAndGet((int) Math.min(BUCKETS, micros / 10));
                                recorded.incrementAndGet();
                            }
                            if (answered.incrementAndGet() == total) done.complete(null);
                        });
            }
            if (issued[0] >= total) vertx.cancelTimer(id);
        });
        try {
            done.get(seconds + 60L, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException notAll) {
            // Reported below: requests = the answers received, and the rest as timeouts.
        }
        StringBuilder timeline = new StringBuilder();
        for (int i = WARM_S; i < worst.length(); i++) timeline.append(i == WARM_S ? "" : " ").append(worst.get(i) / 1000);
        System.err.println("paced " + label + ": slowest request of each second, ms: " + timeline);
        double wallS = seconds;
        long n = recorded.get();
        System.out.printf("RESULT %s %.1f %.3f %.3f %d %d %d %d %d %d %d %d %d%n", label, n / wallS,
                PacedLoad.quantile(histogram, n, 0.50) / 100.0, PacedLoad.quantile(histogram, n, 0.99) / 100.0, n, non2xx.get(),
                errors.get(), 0, 0, 0, total - answered.get(), sampled.get(), bad.get());
        vertx.close().await();
    }
}
