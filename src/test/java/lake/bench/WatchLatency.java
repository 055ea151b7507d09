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
        PacedLoad.Latencies latencies = new PacedLoad.Latencies();
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
                            // Bytes, not text, each event scanned once: millions of them a second
                            // are parsed on the node's own two cores, and the generator's cost
                            // would count as delivery latency.
                            pending.append(chunk);
                            byte[] b = pending.bytes;
                            int n = pending.length;
                            int start = 0;
                            long events = 0;
                            for (int e = 0; e + 1 < n; e++) {
                                // No event ends at e or e + 1 unless b[e + 1] is a newline.
                                if (b[e + 1] != '\n') {
                                    e++;
                                    continue;
                                }
                                if (b[e] != '\n') continue;
                                // One event in [start, i): the node's cut-off event begins with its name.
                                if (PacedLoad.startsWith(b, CUTOFF, start, e)) {
                                    cutOff.incrementAndGet();
                                } else {
                                    int at = PacedLoad.atMs(b, start, e);
                                    if (at >= 0) {
                                        long ms = 0;
                                        for (int d = at + AT_MS.length; d < e && b[d] >= '0' && b[d] <= '9'; d++) ms = ms * 10 + (b[d] - '0');
                                        latencies.record(now - ms);
                                        events++;
                                    }
                                }
                                start = ++e + 1;
                            }
                            if (events > 0) received.addAndGet(events);
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
                PacedLoad.percentiles(latencies.merged(), received.get()), r.wallS());
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (received.get() != expected || r.failed() > 0 || cutOff.get() > 0) System.exit(1);
    }
}
