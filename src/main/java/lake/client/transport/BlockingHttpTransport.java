package lake.client.transport;

import io.vertx.core.Future;
import lake.client.model.ClientOptions;
import lake.client.model.Json;
import lake.client.model.NodeHealth;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * HTTP on the calling thread with the JDK's {@link HttpURLConnection}: no event loop, no Netty, so
 * a command-line call starts in a fraction of the time Vert.x needs. Each {@link #send} blocks
 * until its answer and returns a completed future. Never use it on a Vert.x event loop.
 *
 * <p>Invariant: a request whose connection was not established ({@code connect()} failed) is
 * {@link Transport.NotSent}; any failure after that is {@link Transport.Lost}. Every request with
 * a method other than GET is sent in fixed-length streaming mode, which stops
 * {@code HttpURLConnection} from silently re-sending it on a broken keep-alive connection.
 */
public final class BlockingHttpTransport implements Transport {
    private final List<URI> endpoints;
    private final String token;
    private final int connectTimeoutMs;

    public BlockingHttpTransport(ClientOptions options) {
        this.endpoints = options.endpoints();
        this.token = options.token();
        this.connectTimeoutMs = (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis());
    }

    @Override public int endpoints() { return endpoints.size(); }

    @Override public String endpoint(int i) { return endpoints.get(i).toString(); }

    @Override
    public Future<Map<String, Object>> send(Call call, int endpoint, long timeoutMs, long minSendMs) {
        String body = call.httpBody() == null ? null : Json.write(call.httpBody());
        return HttpReplies.reply(exchange(endpoints.get(endpoint), call.method().name(), call.path(), body, call.epoch(), timeoutMs));
    }

    /**
     * Ends an exchange at its deadline. A socket read timeout bounds each read, not the exchange:
     * a reply that trickles in a byte at a time would hold the call for ever.
     */
    private static final class Deadlines {
        static final java.util.concurrent.ScheduledExecutorService TIMER =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "lake-client-deadline");
                    t.setDaemon(true);
                    return t;
                });
    }

    private Future<HttpReplies.Answer> exchange(URI base, String method, String path, String body, Long epoch, long timeoutMs) {
        long started = System.nanoTime();
        HttpURLConnection c;
        try {
            c = (HttpURLConnection) URI.create(stripSlash(base.toString()) + path).toURL().openConnection();
            c.setRequestMethod(method);
            c.setConnectTimeout((int) Math.max(1, Math.min(connectTimeoutMs, timeoutMs)));
            c.setReadTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutMs)));
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            c.setRequestProperty("Accept", "application/json");
            if (token != null) c.setRequestProperty("Authorization", "Bearer " + token);
            if (epoch != null) c.setRequestProperty("Lake-Epoch", Long.toUnsignedString(epoch));
            byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            if (!method.equals("GET")) {
                c.setDoOutput(true);
                c.setFixedLengthStreamingMode(bytes.length);
                c.setRequestProperty("Content-Type", "application/json");
            }
            try {
                c.connect();
            } catch (IOException e) {
                return Future.failedFuture(new NotSent("cannot connect to " + base + ": " + e, e));
            }
            long leftMs = Math.max(1, timeoutMs - (System.nanoTime() - started) / 1_000_000L);
            java.util.concurrent.atomic.AtomicBoolean expired = new java.util.concurrent.atomic.AtomicBoolean();
            HttpURLConnection conn = c;
            java.util.concurrent.ScheduledFuture<?> deadline = Deadlines.TIMER.schedule(() -> {
                expired.set(true);
                conn.disconnect();
            }, leftMs, java.util.concurrent.TimeUnit.MILLISECONDS);
            try {
                if (!method.equals("GET")) {
                    try (OutputStream out = c.getOutputStream()) {
                        out.write(bytes);
                    }
                }
                int status = c.getResponseCode();
                InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
                String text = in == null ? "" : readAll(in);
                if (expired.get()) return Future.failedFuture(new Lost("no complete answer from " + base + " within " + timeoutMs + " ms", null));
                return Future.succeededFuture(new HttpReplies.Answer(status, c.getHeaderField("Retry-After"), text));
            } catch (IOException e) {
                c.disconnect();
                return Future.failedFuture(new Lost(expired.get() ? "no complete answer from " + base + " within " + timeoutMs + " ms"
                        : "no answer from " + base + ": " + e, e));
            } finally {
                deadline.cancel(false);
            }
        } catch (IOException | IllegalArgumentException e) {
            return Future.failedFuture(new NotSent("cannot send to " + base + ": " + e, e));
        }
    }

    private static String readAll(InputStream in) throws IOException {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    static String stripSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    @Override
    public Future<List<NodeHealth>> health(long timeoutMs) {
        List<NodeHealth> out = new ArrayList<>();
        for (URI e : endpoints) {
            Future<HttpReplies.Answer> h = exchange(e, "GET", "/health", null, null, timeoutMs);
            if (h.failed() || h.result().status() != 200) {
                out.add(new NodeHealth(e.toString(), false, null, false, h.failed() ? h.cause().getMessage() : "HTTP " + h.result().status()));
                continue;
            }
            String node;
            try {
                node = HttpReplies.healthNodeId(h.result().body());
            } catch (IllegalArgumentException notMetasrv) {
                out.add(new NodeHealth(e.toString(), false, null, false, notMetasrv.getMessage()));
                continue;
            }
            Future<HttpReplies.Answer> ready = exchange(e, "GET", "/ready", null, null, timeoutMs);
            out.add(new NodeHealth(e.toString(), true, node, ready.succeeded() && ready.result().status() == 200, null));
        }
        return Future.succeededFuture(out);
    }

    @Override
    public Future<Void> delay(long ms) {
        try {
            Thread.sleep(ms);   // The caller's own thread: this transport blocks by design (backoff, not a test wait).
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Future.failedFuture(e);
        }
        return Future.succeededFuture();
    }

    @Override public Future<Void> close() { return Future.succeededFuture(); }
}
