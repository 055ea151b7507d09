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
     * The threads exchanges run on. The caller waits for its exchange at most until the deadline
     * and then leaves it: a socket read timeout bounds each read, not the exchange, and
     * {@code disconnect()} from another thread waits for the reader's lock, so neither can end a
     * reply that trickles in a byte at a time. A left exchange stops at its next read.
     */
    private static final java.util.concurrent.ExecutorService IO = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "lake-client-io");
        t.setDaemon(true);
        return t;
    });

    private Future<HttpReplies.Answer> exchange(URI base, String method, String path, String body, Long epoch, long timeoutMs) {
        Exchange x = new Exchange(base, method, path, body, epoch, timeoutMs);
        java.util.concurrent.Future<HttpReplies.Answer> running = IO.submit(x::run);
        try {
            return Future.succeededFuture(running.get(Math.max(1, timeoutMs), java.util.concurrent.TimeUnit.MILLISECONDS));
        } catch (java.util.concurrent.ExecutionException e) {
            return Future.failedFuture(e.getCause());
        } catch (java.util.concurrent.TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            return Future.failedFuture(x.leave());
        }
    }

    /**
     * One request on an {@link #IO} thread. Its state moves from {@code CONNECTING} to either
     * {@code SENDING} (by the exchange, once connected) or {@code LEFT} (by the caller at the
     * deadline), never both: a request the caller reported {@link Transport.NotSent} is never written.
     */
    private final class Exchange {
        private static final int CONNECTING = 0, SENDING = 1, LEFT = 2;
        private final java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger(CONNECTING);
        private volatile boolean left;
        private volatile HttpURLConnection connection;
        private final URI base;
        private final String method, path, body;
        private final Long epoch;
        private final long timeoutMs;

        Exchange(URI base, String method, String path, String body, Long epoch, long timeoutMs) {
            this.base = base;
            this.method = method;
            this.path = path;
            this.body = body;
            this.epoch = epoch;
            this.timeoutMs = timeoutMs;
        }

        /** The caller's deadline passed: what the call ends with. */
        Exception leave() {
            left = true;
            boolean sent = !state.compareAndSet(CONNECTING, LEFT);
            HttpURLConnection c = connection;
            if (c != null) IO.execute(c::disconnect);   // may wait for the reader's lock: not on the caller's thread
            return sent ? new Lost("no complete answer from " + base + " within " + timeoutMs + " ms", null)
                    : new NotSent("no connection to " + base + " within " + timeoutMs + " ms", null);
        }

        HttpReplies.Answer run() throws NotSent, Lost {
            HttpURLConnection c;
            byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
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
                if (!method.equals("GET")) {
                    c.setDoOutput(true);
                    c.setFixedLengthStreamingMode(bytes.length);
                    c.setRequestProperty("Content-Type", "application/json");
                }
                connection = c;
                c.connect();
            } catch (IOException | IllegalArgumentException e) {
                throw new NotSent("cannot connect to " + base + ": " + e, e);
            }
            if (!state.compareAndSet(CONNECTING, SENDING)) {
                c.disconnect();
                throw new NotSent("no connection to " + base + " within " + timeoutMs + " ms", null);
            }
            try {
                if (!method.equals("GET")) {
                    try (OutputStream out = c.getOutputStream()) {
                        out.write(bytes);
                    }
                }
                int status = c.getResponseCode();
                InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
                String text = in == null ? "" : readAll(in);
                return new HttpReplies.Answer(status, c.getHeaderField("Retry-After"), text);
            } catch (IOException e) {
                c.disconnect();
                throw new Lost("no answer from " + base + ": " + e, e);
            }
        }

        private String readAll(InputStream in) throws IOException {
            try (in) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buf = new byte[8192];
                for (int n; (n = in.read(buf)) != -1; ) {
                    if (left) throw new IOException("left at the deadline");
                    out.write(buf, 0, n);
                }
                return out.toString(StandardCharsets.UTF_8);
            }
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
