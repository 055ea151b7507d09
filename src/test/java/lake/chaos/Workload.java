package lake.chaos;

import io.vertx.core.json.JsonObject;
import lake.chaos.Op.Kind;
import lake.chaos.Op.Outcome;

import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Concurrent clients sending get, CAS, delete and two-key transactions over real HTTP through
 * every node, on a small set of keys, recording every operation (see {@link Op}). Each write
 * carries a value unique in the campaign. A client CASes from the value it last saw (so CASes
 * apply often and conflict sometimes) and deletes the value it last saw; a transaction puts new
 * values on a pair of keys (keys 2i and 2i+1) if both still hold what the client last saw. Each client stops after {@code maxOps}
 * operations or when stopped.
 */
public final class Workload implements AutoCloseable {
    /** The nodes' request timeout in the campaign ({@code ClusterHarness.FAULT_TIMEOUTS}). */
    static final Duration NODE_REQUEST_TIMEOUT = Duration.ofSeconds(3);
    /** Longer than the nodes' request timeout: a node that answers gives 504; a silent one (paused) times out here. */
    static final Duration CLIENT_TIMEOUT = NODE_REQUEST_TIMEOUT.multipliedBy(2);

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final AtomicInteger IDS = new AtomicInteger();

    /** A node the workload can reach. */
    public record Target(String node, int port) {}

    public final List<Op> history = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    /** Starts {@code clients} threads over {@code keys} through {@code targets}; each uses its own RNG from {@code seed}. */
    public static Workload start(String valuePrefix, List<String> keys, List<Target> targets, int clients, int maxOps, long seed) {
        Workload w = new Workload();
        for (int c = 0; c < clients; c++) {
            int client = c;
            Random random = new Random(seed * 31 + c);
            Thread t = new Thread(() -> w.run(client, random, valuePrefix, keys, targets, maxOps), "chaos-client-" + c);
            t.setDaemon(true);
            t.start();
            w.threads.add(t);
        }
        return w;
    }

    /**
     * One availability probe per node: a write through that node every {@code periodMs} with a
     * short timeout, on the probe's own key, so that clients stuck on a paused node never hide
     * when writes came back. Probe writes are recorded and checked like every other operation.
     */
    public void startProbes(String valuePrefix, String keyPrefix, List<Target> targets, long periodMs) {
        for (Target t : targets) {
            int client = 1_000 + targets.indexOf(t);
            Thread th = new Thread(() -> {
                String key = keyPrefix + t.node();
                String seen = null;
                for (int i = 0; i < 100_000 && !stop.get(); i++) {
                    long started = System.nanoTime();
                    String value = valuePrefix + "p" + t.node() + "s" + i;
                    Op op = write(client, t, key, Kind.CAS, seen, value, "/v1/kv/cas", casBody(key, seen, value, null), PROBE_TIMEOUT);
                    history.add(op);
                    if (op.outcome() == Outcome.APPLIED) seen = value;
                    else if (op.outcome() != Outcome.FAILED) {
                        Op read = get(client, t, key);
                        history.add(read);
                        if (read.outcome() == Outcome.OK) seen = read.read();
                    }
                    long left = periodMs * 1_000_000 - (System.nanoTime() - started);
                    if (left > 0) java.util.concurrent.locks.LockSupport.parkNanos(left);
                }
            }, "chaos-probe-" + t.node());
            th.setDaemon(true);
            th.start();
            threads.add(th);
        }
    }

    /** A probe gives up on a silent node quickly and moves on. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private void run(int client, Random random, String valuePrefix, List<String> keys, List<Target> targets, int maxOps) {
        Map<String, String> lastSeen = new HashMap<>();
        for (int i = 0; i < maxOps && !stop.get(); i++) {
            String key = keys.get(random.nextInt(keys.size()));
            Target via = targets.get(random.nextInt(targets.size()));
            String seen = lastSeen.get(key);
            int dice = random.nextInt(10);
            Op op;
            if (dice == 9 && keys.size() >= 2) {
                int pair = random.nextInt(keys.size() / 2);
                String a = keys.get(2 * pair), b = keys.get(2 * pair + 1);
                List<Op.Sub> subs = List.of(new Op.Sub(a, lastSeen.get(a), valuePrefix + "c" + client + "s" + i + "a"),
                        new Op.Sub(b, lastSeen.get(b), valuePrefix + "c" + client + "s" + i + "b"));
                op = txn(client, via, subs);
                for (Op.Sub sub : subs) {
                    if (op.outcome() == Outcome.APPLIED) lastSeen.put(sub.key(), sub.value());
                    else lastSeen.remove(sub.key());
                }
            } else if (dice < 4 || (dice >= 8 && seen == null)) {
                op = get(client, via, key);
                if (op.outcome() == Outcome.OK) lastSeen.put(key, op.read());
            } else if (dice < 8) {
                String value = valuePrefix + "c" + client + "s" + i;
                op = cas(client, via, key, seen, value, null);
                if (op.outcome() == Outcome.APPLIED) lastSeen.put(key, value);
                else lastSeen.remove(key);
            } else {
                op = delete(client, via, key, seen, null);
                lastSeen.remove(key);
            }
            history.add(op);
        }
    }

    public void stop() {
        stop.set(true);
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) t.join(Duration.ofSeconds(30).toMillis());
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }

    /** A read through {@code via}: the value, or absent on 404; anything else changed nothing and is FAILED. */
    public static Op get(int client, Target via, String key) {
        return get(client, via, key, CLIENT_TIMEOUT);
    }

    /** As {@link #get(int, Target, String)}, giving up after {@code timeout}. */
    public static Op get(int client, Target via, String key, Duration timeout) {
        long call = System.nanoTime();
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.port() + "/v1/kv/"
                            + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("%2F", "/")))
                    .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
            long ret = System.nanoTime();
            if (r.statusCode() == 200) {
                return new Op(IDS.incrementAndGet(), client, via.node(), key, Kind.GET, null, null, call, ret, Outcome.OK,
                        unb64(new JsonObject(r.body()).getString("value")), epoch(r), "");
            }
            if (r.statusCode() == 404) {
                return new Op(IDS.incrementAndGet(), client, via.node(), key, Kind.GET, null, null, call, ret, Outcome.OK, null, epoch(r), "");
            }
            return new Op(IDS.incrementAndGet(), client, via.node(), key, Kind.GET, null, null, call, ret, Outcome.FAILED, null, null,
                    r.statusCode() + " " + r.body());
        } catch (Exception e) {
            return new Op(IDS.incrementAndGet(), client, via.node(), key, Kind.GET, null, null, call, System.nanoTime(),
                    Outcome.FAILED, null, null, String.valueOf(e));
        }
    }

    public static Op cas(int client, Target via, String key, String expected, String value, Long pinnedEpoch) {
        return cas(client, via, key, expected, value, pinnedEpoch, CLIENT_TIMEOUT);
    }

    /**
     * A CAS that waits up to {@code timeout} for its answer: a write queued on a paused node must
     * outlast the pause and the node's own request timeout, or it only ever records UNKNOWN.
     */
    public static Op cas(int client, Target via, String key, String expected, String value, Long pinnedEpoch, Duration timeout) {
        return write(client, via, key, Kind.CAS, expected, value, "/v1/kv/cas", casBody(key, expected, value, pinnedEpoch), timeout);
    }

    private static JsonObject casBody(String key, String expected, String value, Long pinnedEpoch) {
        JsonObject body = new JsonObject().put("key", key).put("expected", expected == null ? null : b64(expected)).put("value", b64(value));
        if (pinnedEpoch != null) body.put("epoch", pinnedEpoch);
        return body;
    }

    public static Op delete(int client, Target via, String key, String expected, Long pinnedEpoch) {
        JsonObject body = new JsonObject().put("key", key).put("expected", b64(expected));
        if (pinnedEpoch != null) body.put("epoch", pinnedEpoch);
        return write(client, via, key, Kind.DELETE, expected, null, "/v1/kv/delete", body, CLIENT_TIMEOUT);
    }

    /** A transaction: each sub-operation's key must hold its expected value (null = absent); then every value is put. */
    public static Op txn(int client, Target via, List<Op.Sub> subs) {
        io.vertx.core.json.JsonArray ops = new io.vertx.core.json.JsonArray();
        for (Op.Sub sub : subs) {
            ops.add(new JsonObject().put("key", sub.key()).put("expected", sub.expected() == null ? null : b64(sub.expected()))
                    .put("value", b64(sub.value())));
        }
        Op op = write(client, via, subs.get(0).key(), Kind.TXN, null, null, "/v1/txn", new JsonObject().put("ops", ops), CLIENT_TIMEOUT);
        return new Op(op.id(), op.client(), op.node(), op.key(), op.kind(), null, null, op.call(), op.ret(), op.outcome(), null,
                op.epoch(), op.detail(), subs, op.failed());
    }

    /**
     * One write. 200 is a definite answer; 409 (fenced, epoch mismatch) and 503 (not leader,
     * backend unavailable) certainly wrote nothing (docs/http-api.md), as does a refused
     * connection; 504, 500, a timeout or a connection lost after sending are unknown outcomes.
     */
    private static Op write(int client, Target via, String key, Kind kind, String expected, String value, String path, JsonObject body,
                            Duration timeout) {
        long call = System.nanoTime();
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.port() + path))
                    .timeout(timeout).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.encode())).build(), HttpResponse.BodyHandlers.ofString());
            long ret = System.nanoTime();
            int status = r.statusCode();
            if (status == 200) {
                JsonObject reply = new JsonObject(r.body());
                List<Integer> failed = reply.getJsonArray("failed") == null ? List.of()
                        : reply.getJsonArray("failed").stream().map(n -> ((Number) n).intValue()).toList();
                return new Op(IDS.incrementAndGet(), client, via.node(), key, kind, expected, value, call, ret,
                        reply.getBoolean("applied") ? Outcome.APPLIED : Outcome.NOT_APPLIED, null, reply.getLong("epoch"), "", null, failed);
            }
            if (status == 409 || status == 503) {
                return new Op(IDS.incrementAndGet(), client, via.node(), key, kind, expected, value, call, ret, Outcome.FAILED, null, null,
                        status + " " + r.body());
            }
            return new Op(IDS.incrementAndGet(), client, via.node(), key, kind, expected, value, call, Op.NEVER, Outcome.UNKNOWN, null, null,
                    status + " " + r.body());
        } catch (ConnectException refused) {
            return new Op(IDS.incrementAndGet(), client, via.node(), key, kind, expected, value, call, System.nanoTime(), Outcome.FAILED,
                    null, null, String.valueOf(refused));
        } catch (Exception e) {
            return new Op(IDS.incrementAndGet(), client, via.node(), key, kind, expected, value, call, Op.NEVER, Outcome.UNKNOWN, null, null,
                    String.valueOf(e));
        }
    }

    private static Long epoch(HttpResponse<String> r) {
        return r.headers().firstValue("lake-epoch").map(Long::parseLong).orElse(null);
    }
}
