package lake.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Commit-to-delivery latency of SSE watchers under a steady write rate (scripts/bench/watchers):
 * opens {@code watchers} streams of {@code GET /v1/watch} on one node, then writes at {@code rate}
 * creates a second for {@code seconds}, and measures, for every event every watcher receives, the
 * time from the leader's commit ({@code at_ms}, the same host's wall clock) to its arrival.
 * {@code shared}: every watcher watches every write; otherwise each watches a prefix of its own and
 * the writes go round the prefixes (each write reaches one watcher; the node still matches every
 * write against every watcher). Prints one RESULT line; fails when a watcher missed an event or was cut off.
 *
 * <p>Usage: {@code WatchLatency PORT WATCHERS RATE SECONDS shared|distinct}
 */
public final class WatchLatency {
    private static final int BUCKETS = 60_000;

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int watchers = Integer.parseInt(args[1]);
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        boolean shared = args[4].equals("shared");
        Vertx vertx = Vertx.vertx();
        HttpClient streams = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(watchers + 8));
        HttpClient writes = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(64));
        String run = "bench-" + System.nanoTime() + "/";
        AtomicLongArray histogram = new AtomicLongArray(BUCKETS + 1);
        AtomicLong received = new AtomicLong();
        AtomicLong cutOff = new AtomicLong();
        CountDownLatch open = new CountDownLatch(watchers);
        for (int i = 0; i < watchers; i++) {
            String prefix = shared ? run : run + i + "/";
            StringBuilder pending = new StringBuilder();
            streams.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port)
                            .setURI("/v1/watch?prefix=" + prefix).putHeader("Accept", "text/event-stream"))
                    .compose(req -> req.send()).onSuccess(res -> {
                        if (res.statusCode() != 200) throw new IllegalStateException("watch answered " + res.statusCode());
                        open.countDown();
                        res.handler(chunk -> {
                            long now = System.currentTimeMillis();
                            pending.append(chunk.toString(StandardCharsets.UTF_8));
                            int end;
                            while ((end = pending.indexOf("\n\n")) >= 0) {
                                int at = pending.indexOf("\"at_ms\":");
                                if (pending.indexOf("event: cutoff") >= 0 && pending.indexOf("event: cutoff") < end) cutOff.incrementAndGet();
                                if (at >= 0 && at < end) {
                                    int from = at + 8;
                                    int to = from;
                                    while (Character.isDigit(pending.charAt(to))) to++;
                                    long latency = Math.max(0, now - Long.parseLong(pending.substring(from, to)));
                                    histogram.incrementAndGet((int) Math.min(BUCKETS, latency));
                                    received.incrementAndGet();
                                }
                                pending.delete(0, end + 2);
                            }
                        });
                    }).onFailure(t -> System.err.println("watch failed: " + t));
        }
        if (!open.await(120, TimeUnit.SECONDS)) throw new IllegalStateException("only " + (watchers - open.getCount()) + " streams opened");
        String value = Base64.getEncoder().encodeToString("v".getBytes(StandardCharsets.UTF_8));
        long total = (long) rate * seconds;
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long start = System.nanoTime();
        // Paced by a timer every 10 ms: rate/100 writes each tick, so the rate holds without a burst.
        CountDownLatch sent = new CountDownLatch(1);
        long[] issued = {0};
        vertx.setPeriodic(10, id -> {
            long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L);
            while (issued[0] < due) {
                long n = issued[0]++;
                String key = shared ? run + n : run + (n % watchers) + "/" + n;
                writes.request(HttpMethod.POST, port, "127.0.0.1", "/v1/kv/cas")
                        .compose(req -> req.send(Buffer.buffer(new JsonObject().put("key", key).putNull("expected").put("value", value).encode())))
                        .compose(res -> res.body().map(b -> res.statusCode()))
                        .onComplete(ar -> (ar.succeeded() && ar.result() == 200 ? acknowledged : failed).incrementAndGet());
            }
            if (issued[0] >= total) {
                vertx.cancelTimer(id);
                sent.countDown();
            }
        });
        sent.await(seconds + 60L, TimeUnit.SECONDS);
        long expected = shared ? total * watchers : total;
        // Every event received and every write answered, or a minute gone: checked each 100 ms on the event loop.
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
            // Reported below: the counts say what is missing.
        }
        double wallS = (System.nanoTime() - start) / 1e9;
        List<String> percentiles = new ArrayList<>();
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999, 1.0}) percentiles.add("p" + trim(q * 100) + "=" + quantile(histogram, received.get(), q) + "ms");
        System.out.printf("RESULT watchers=%d mode=%s rate=%d/s seconds=%d writes_acknowledged=%d writes_failed=%d events=%d expected=%d cutoffs=%d %s wall=%.1fs%n",
                watchers, shared ? "shared" : "distinct", rate, seconds, acknowledged.get(), failed.get(), received.get(), expected, cutOff.get(),
                String.join(" ", percentiles), wallS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (received.get() != expected || failed.get() > 0 || cutOff.get() > 0) System.exit(1);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
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
