package lake.chaos;

import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The campaign's watcher (issue 36): long polls {@code GET /v1/watch} of one round's prefix over
 * raw HTTP, through the nodes in turn (the next one whenever a request fails), each request
 * resuming after the last cursor, and records every change it is shown, in the order shown.
 * Independent of the product's client, so a bug there cannot hide one in the feed.
 */
final class FeedWatcher implements AutoCloseable {
    /** One key's change as the feed showed it: its new value, or {@code null} when deleted. */
    record Change(long revision, String key, String value) {}

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    final List<Change> changes = new CopyOnWriteArrayList<>();
    /** The last requests that failed (a node down, paused or not yet knowing the feed): tried again elsewhere. */
    private final java.util.ArrayDeque<String> failures = new java.util.ArrayDeque<>();
    private volatile String gone;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    private final Thread thread;
    private volatile long cursor;

    /** Watches {@code prefix} after {@code after} through {@code targets}. */
    FeedWatcher(String prefix, long after, List<Workload.Target> targets) {
        cursor = after;
        thread = new Thread(() -> run(prefix, targets), "chaos-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    long cursor() {
        return cursor;
    }

    /** The 410 that ended the watch (its position was compacted), or {@code null}. */
    String gone() {
        return gone;
    }

    synchronized List<String> lastFailures() {
        return List.copyOf(failures);
    }

    private synchronized void failed(String what) {
        failures.addLast(what);
        if (failures.size() > 10) failures.removeFirst();
    }

    private void run(String prefix, List<Workload.Target> targets) {
        int at = 0;
        while (!stop.get()) {
            Workload.Target via = targets.get(Math.floorMod(at, targets.size()));
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.port() + "/v1/watch?prefix="
                                + java.net.URLEncoder.encode(prefix, StandardCharsets.UTF_8) + "&after=" + Long.toUnsignedString(cursor)
                                + "&limit=500&wait_ms=1000")).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    failed(via.node() + ": " + r.statusCode() + " " + r.body());
                    if (r.statusCode() == 410) {
                        gone = via.node() + ": " + r.body();
                        return;
                    }
                    at++;
                    if (pause()) return;
                    continue;
                }
                JsonObject page = new JsonObject(r.body());
                for (Object e : page.getJsonArray("events")) {
                    JsonObject event = (JsonObject) e;
                    long revision = event.getLong("revision");
                    for (Object c : event.getJsonArray("changes", new io.vertx.core.json.JsonArray())) {
                        JsonObject change = (JsonObject) c;
                        String value = change.getBoolean("deleted", false) ? null
                                : new String(Base64.getDecoder().decode(change.getString("value")), StandardCharsets.UTF_8);
                        changes.add(new Change(revision, change.getString("key"), value));
                    }
                }
                cursor = page.getLong("cursor");
            } catch (InterruptedException stopped) {
                return;
            } catch (Exception e) {
                failed(via.node() + ": " + e);
                at++;
                if (pause()) return;
            }
        }
    }

    /** Waits before the next node is tried, ending at once when the watcher is closed; whether it was. */
    private boolean pause() {
        try {
            return closed.await(100, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException stopped) {
            return true;
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed.countDown();
        stop.set(true);
        thread.interrupt();
        thread.join(10_000);
    }
}
