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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer of {@link WatchLatency} against etcd's watch (scripts/bench/watchers-etcd): opens
 * {@code watchers} watch streams through etcd's JSON gateway ({@code POST /v3/watch}, one HTTP
 * stream each, as an HTTP client without gRPC would), then puts at {@code rate} a second for
 * {@code seconds}, each value the writer's wall clock (ms) just before the put is sent, and
 * measures, for every event every watcher receives, its arrival minus that time (etcd's events
 * carry no commit time: this includes the request's way in, which Metasrv's {@code at_ms} does
 * not, a fraction of a millisecond on loopback). Modes as {@link WatchLatency}. Then, with
 * {@code idle} above 0, opens that many more watch streams, writes {@code PATH}{@code .open}
 * when all answered, and waits to be killed (the script reads etcd's memory meanwhile).
 *
 * <p>Usage: {@code EtcdWatchLatency PORT WATCHERS RATE SECONDS shared|distinct IDLE MARKER_PATH}
 */
public final class EtcdWatchLatency {
    private static final byte[] VALUE = "\"value\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NEWLINE = "\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CREATED = "\"created\":true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] QUOTE = "\"".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        PacedLoad.Args a = PacedLoad.Args.parse(args);
        int port = a.port();
        int watchers = a.watchers();
        int rate = a.rate();
        int seconds = a.seconds();
        boolean shared = a.shared();
        int idle = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        Vertx vertx = Vertx.vertx();
        HttpClient streams = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(watchers + idle + 8));
        HttpClient writes = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(64));
        String run = "bench-" + System.nanoTime() + "/";
        PacedLoad.Latencies latencies = new PacedLoad.Latencies();
        AtomicLong received = new AtomicLong();
        CountDownLatch open = new CountDownLatch(watchers);
        for (int i = 0; i < watchers; i++) {
            watch(streams, port, shared ? run : run + i + "/", open, (now, valueMs) -> {
                latencies.record(now - valueMs);
                received.incrementAndGet();
            });
        }
        if (!open.await(120, TimeUnit.SECONDS)) throw new IllegalStateException("only " + (watchers - open.getCount()) + " streams opened");
        long total = (long) rate * seconds;
        long expected = shared ? total * watchers : total;
        PacedLoad.Result r = PacedLoad.drive(vertx, rate, seconds, n -> {
            String key = shared ? run + n : run + (n % watchers) + "/" + n;
            String body = new JsonObject().put("key", b64(key)).put("value", b64(Long.toString(System.currentTimeMillis()))).encode();
            return writes.request(HttpMethod.POST, port, "127.0.0.1", "/v3/kv/put")
                    .compose(req -> req.send(Buffer.buffer(body)))
                    .compose(res -> res.body().map(b -> res.statusCode()));
        }, received, expected);
        System.out.printf("RESULT etcd watchers=%d mode=%s rate=%d/s seconds=%d writes_acknowledged=%d writes_failed=%d events=%d expected=%d %s wall=%.1fs%n",
                watchers, shared ? "shared" : "distinct", rate, seconds, r.acknowledged(), r.failed(), received.get(), expected,
                PacedLoad.percentiles(latencies.merged(), received.get()), r.wallS());
        boolean complete = received.get() == expected && r.failed() == 0;
        if (idle > 0 && complete) {
            CountDownLatch idleOpen = new CountDownLatch(idle);
            for (int i = 0; i < idle; i++) watch(streams, port, run + "idle/" + i + "/", idleOpen, (now, v) -> { });
            if (!idleOpen.await(300, TimeUnit.SECONDS)) throw new IllegalStateException("only " + (idle - idleOpen.getCount()) + " idle streams opened");
            Files.writeString(Path.of(args[6] + ".open"), "open\n");
            new CountDownLatch(1).await(); // held open until the script kills this process
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        if (!complete) System.exit(1);
    }

    interface Arrival {
        void at(long nowMs, long valueMs);
    }

    /** One watch stream of every key under {@code prefix}; each event's value (a wall time in ms) goes to {@code arrival}. */
    private static void watch(HttpClient streams, int port, String prefix, CountDownLatch open, Arrival arrival) {
        byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
        end[end.length - 1]++;
        String create = new JsonObject().put("create_request", new JsonObject().put("key", b64(prefix))
                .put("range_end", Base64.getEncoder().encodeToString(end))).encode();
        PacedLoad.Bytes pending = new PacedLoad.Bytes();
        streams.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port).setURI("/v3/watch"))
                .compose(req -> req.send(Buffer.buffer(create))).onSuccess(res -> {
                    if (res.statusCode() != 200) throw new IllegalStateException("watch answered " + res.statusCode());
                    boolean[] created = {false};
                    res.handler(chunk -> {
                        long now = System.currentTimeMillis();
                        // Bytes, each line searched only within itself (as WatchLatency).
                        pending.append(chunk);
                        byte[] b = pending.bytes;
                        int start = 0;
                        int nl;
                        while ((nl = PacedLoad.find(b, NEWLINE, start, pending.length)) >= 0) {
                            if (!created[0] && PacedLoad.find(b, CREATED, start, nl) >= 0) {
                                created[0] = true;
                                open.countDown();
                            }
                            int at = start;
                            while ((at = PacedLoad.find(b, VALUE, at, nl)) >= 0) {
                                int from = at + VALUE.length;
                                int to = PacedLoad.find(b, QUOTE, from, nl);
                                String ms = new String(Base64.getDecoder().decode(java.util.Arrays.copyOfRange(b, from, to)), StandardCharsets.US_ASCII);
                                arrival.at(now, Long.parseLong(ms));
                                at = to;
                            }
                            start = nl + 1;
                        }
                        pending.drop(start);
                    });
                }).onFailure(t -> System.err.println("watch failed: " + t));
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
