package lake.it;

import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A steady, bounded write load over real HTTP: each writer thread creates unique keys one after
 * another through the given nodes (round robin) and records every attempt, so the history can be
 * checked afterwards.
 */
final class WriteLoad implements AutoCloseable {
    record Write(String key, String value, int httpPort, long sentNanos, long doneNanos, int status,
                 boolean applied, Long epoch, String body) {
        boolean acknowledged() {
            return status == 200 && applied;
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    final List<Write> history = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    /** Starts {@code writers} threads writing through {@code ports}; each stops after {@code maxEach} writes. */
    static WriteLoad start(String prefix, List<Integer> ports, int writers, int maxEach) {
        WriteLoad load = new WriteLoad();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                for (int i = 0; i < maxEach && !load.stop.get(); i++) {
                    load.history.add(write(prefix + "/" + writer + "/" + i, ports.get((writer + i) % ports.size()), null));
                }
            }, "write-load-" + w);
            t.setDaemon(true);
            t.start();
            load.threads.add(t);
        }
        return load;
    }

    /** One create through {@code port}; {@code epoch} is the client's expected epoch, or null. */
    static Write write(String key, int port, Long epoch) {
        String value = Base64.getEncoder().encodeToString(("v:" + key).getBytes());
        JsonObject body = new JsonObject().put("key", key).putNull("expected").put("value", value);
        if (epoch != null) body.put("epoch", epoch);
        long sent = System.nanoTime();
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/kv/cas"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.encode())).build(), HttpResponse.BodyHandlers.ofString());
            boolean applied = false;
            Long ackEpoch = null;
            if (r.statusCode() == 200) {
                JsonObject reply = new JsonObject(r.body());
                applied = reply.getBoolean("applied");
                ackEpoch = reply.getLong("epoch");
            }
            return new Write(key, value, port, sent, System.nanoTime(), r.statusCode(), applied, ackEpoch, r.body());
        } catch (Exception e) {
            return new Write(key, value, port, sent, System.nanoTime(), -1, false, null, String.valueOf(e));
        }
    }

    long acknowledged() {
        return history.stream().filter(Write::acknowledged).count();
    }

    long acknowledgedWithEpochAtLeast(long epoch) {
        return history.stream().filter(w -> w.acknowledged() && w.epoch() >= epoch).count();
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) t.join(Duration.ofSeconds(90).toMillis());
    }

    /**
     * Every acknowledged write carries an epoch, and no write of epoch e is committed after a write
     * of a higher epoch: if write a was acknowledged before write b was sent, a's epoch ≤ b's.
     */
    static void assertEpochsNeverGoBack(List<Write> history) {
        List<Write> acked = history.stream().filter(Write::acknowledged).toList();
        for (Write w : acked) assertThat(w.epoch()).as("epoch of acknowledged %s", w.key()).isNotNull();
        List<Write> byDone = acked.stream().sorted(Comparator.comparingLong(Write::doneNanos)).toList();
        List<Write> bySent = acked.stream().sorted(Comparator.comparingLong(Write::sentNanos)).toList();
        long maxEpochAcked = 0;
        Write witness = null;
        int j = 0;
        for (Write b : bySent) {
            while (j < byDone.size() && byDone.get(j).doneNanos() < b.sentNanos()) {
                if (byDone.get(j).epoch() > maxEpochAcked) {
                    maxEpochAcked = byDone.get(j).epoch();
                    witness = byDone.get(j);
                }
                j++;
            }
            Write seen = witness;
            assertThat(b.epoch()).as("%s committed under epoch %s after %s was acknowledged under epoch %s",
                    b.key(), b.epoch(), seen == null ? "-" : seen.key(), maxEpochAcked).isGreaterThanOrEqualTo(maxEpochAcked);
        }
    }
}
