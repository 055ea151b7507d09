package lake.bench;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
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
    private static final int BUCKETS = PacedLoad.BUCKETS;

    private static final byte[] EVENT_END = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CUTOFF = "event: cutoff".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AT_MS = "\"at_ms\":".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        PacedLoad.Args a = PacedLoad.Args.parse(args);
        int port = a.port();
        int watchers = a.watchers();
        int rate = a.rate();
        int seconds = a.seconds();
        boolean shared = a.shared();
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
            PacedLoad.Bytes pending = new PacedLoad.Bytes();
            streams.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port)
                            .setURI("/v1/watch?prefix=" + prefix).putHeader("Accept", "text/event-stream"))
                    .compose(req -> req.send()).onSuccess(res -> {
                        if (res.statusCode() != 200) throw new IllegalStateException("watch answered " + res.statusCode());
                        open.countDown();
                        res.handler(chunk -> {
                            long now = System.currentTimeMillis();
                            // Bytes, not text: the events are ASCII up to their values, and decoding
                            // millions of them a second on the node's own two cores would count the
                            // load generator's lag as delivery latency.
                            pending.append(chunk);
                            byte[] b = pending.bytes;
                            int start = 0;
                            int end;
                            while ((end = PacedLoad.find(b, EVENT_END, start, pending.length)) >= 0) {
                                if (PacedLoad.find(b, CUTOFF, start, end) >= 0) cutOff.incrementAndGet();
                                int at = PacedLoad.find(b, AT_MS, start, end);
                                if (at >= 0) {
                                    long ms = 0;
                                    for (int d = at + AT_MS.length; d < end && b[d] >= '0' && b[d] <= '9'; d++) ms = ms * 10 + (b[d] - '0');
                                    long latency = Math.max(0, now - ms);
                                    histogram.incrementAndGet((int) Math.min(BUCKETS, latency));
                                    received.incrementAndGet();
                                }
                                start = end + EVENT_END.length;
                            }
                            pending.drop(start);
                        });
                    }).onFailure(t -> System.err.println("watch failed: " + t));
        }
        if (!open.await(120, TimeUnit.SECONDS)) throw new IllegalStateException("only " + (watchers - open.getCount()) + " streams opened");
        String value = Base64.getEncoder().encodeToString("v".getBytes(StandardCharsets.UTF_8));
        long total = (long) rate * seconds;
        long expected = shared ? total * watchers : total;
        PacedLoad.Result r = PacedLoad.drive(vertx, rate, seconds, n -> {
            String key = shared ? run + n : run + (n % watchers) + "/" + n;
            return writes.request(HttpMethod.POST, port, "127.0.0.1", "/v1/kv/cas")
                    .compose(req -> req.send(Buffer.buffer(new JsonObject().put("key", key).putNull("expected").put("value", value).encode())))
                    .compose(res -> res.body().map(b -> res.statusCode()));
        }, received, expected);
        System.out.printf("RESULT watchers=%d mode=%s rate=%d/s seconds=%d writes_acknowledged=%d writes_failed=%d events=%d expected=%d cutoffs=%d %s wall=%.1fs%n",
                watchers, shared ? "shared" : "distinct", rate, seconds, r.acknowledged(), r.failed(), received.get(), expected, cutOff.get(),
                PacedLoad.percentiles(histogram, received.get()), r.wallS());
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (received.get() != expected || r.failed() > 0 || cutOff.get() > 0) System.exit(1);
    }
}
