package lake.client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link MetasrvClient} reaches Metasrv and how long it keeps trying. Immutable: each
 * {@code with…} returns a copy. {@link #toString()} never shows the token.
 *
 * <ul>
 *   <li>{@code endpoints}: HTTP base URIs ({@code http://host:port}), tried in turn
 *       (default {@code http://127.0.0.1:8080}; the bus transport ignores them).</li>
 *   <li>{@code token}: the API token, sent as {@code Authorization: Bearer} (HTTP) or
 *       {@code lake-token} (bus); {@code null} when the servers need none.</li>
 *   <li>{@code callTimeout}: the deadline of one call, retries included (default 30 s; a long
 *       poll's wait is added).</li>
 *   <li>{@code connectTimeout}: one TCP connect (default 2 s).</li>
 *   <li>{@code backoffBase} / {@code backoffMax}: the jittered exponential backoff between rounds
 *       over the endpoints (default 50 ms doubling up to 1 s).</li>
 *   <li>{@code maxRetryAfter}: the most a server's {@code Retry-After} makes the client wait
 *       before asking the same endpoint again (default 2 s).</li>
 *   <li>{@code pinFirstEpoch}: pin the epoch of the first write reply, so every later write
 *       carries it (see {@link MetasrvClient#withEpoch(long)}).</li>
 * </ul>
 */
public final class ClientOptions {
    private final List<URI> endpoints;
    private final String token;
    private final Duration callTimeout;
    private final Duration connectTimeout;
    private final Duration backoffBase;
    private final Duration backoffMax;
    private final Duration maxRetryAfter;
    private final boolean pinFirstEpoch;

    private ClientOptions(List<URI> endpoints, String token, Duration callTimeout, Duration connectTimeout,
                          Duration backoffBase, Duration backoffMax, Duration maxRetryAfter, boolean pinFirstEpoch) {
        this.endpoints = List.copyOf(endpoints);
        this.token = token;
        this.callTimeout = positive(callTimeout, "callTimeout");
        this.connectTimeout = positive(connectTimeout, "connectTimeout");
        this.backoffBase = positive(backoffBase, "backoffBase");
        this.backoffMax = positive(backoffMax, "backoffMax");
        this.maxRetryAfter = maxRetryAfter;
        this.pinFirstEpoch = pinFirstEpoch;
    }

    /** The defaults: one endpoint, {@code http://127.0.0.1:8080}. */
    public static ClientOptions defaults() {
        return new ClientOptions(List.of(URI.create("http://127.0.0.1:8080")), null, Duration.ofSeconds(30),
                Duration.ofSeconds(2), Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(2), false);
    }

    private static Duration positive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, got " + d);
        return d;
    }

    /**
     * Endpoints from a comma-separated list ({@code http://a:8080,http://b:8080}); a bare
     * {@code host:port} means {@code http://host:port}. Throws {@link MetasrvException.InvalidArgument}
     * naming a malformed entry.
     */
    public static List<URI> parseEndpoints(String commaList) {
        List<URI> out = new ArrayList<>();
        for (String raw : commaList.split(",")) {
            String s = raw.strip();
            if (s.isEmpty()) continue;
            if (!s.contains("://")) s = "http://" + s;
            URI u;
            try {
                u = URI.create(s);
            } catch (IllegalArgumentException e) {
                throw new MetasrvException.InvalidArgument("endpoint '" + raw.strip() + "' is not a URI: " + e.getMessage());
            }
            if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme()) || u.getHost() == null
                    || (u.getPath() != null && !u.getPath().isEmpty() && !u.getPath().equals("/")) || u.getQuery() != null) {
                throw new MetasrvException.InvalidArgument("endpoint '" + raw.strip() + "' must be http(s)://host[:port]");
            }
            out.add(u);
        }
        if (out.isEmpty()) throw new MetasrvException.InvalidArgument("no endpoint given");
        return out;
    }

    public ClientOptions withEndpoints(List<URI> e) {
        if (e.isEmpty()) throw new IllegalArgumentException("at least one endpoint");
        return new ClientOptions(e, token, callTimeout, connectTimeout, backoffBase, backoffMax, maxRetryAfter, pinFirstEpoch);
    }

    public ClientOptions withEndpoints(String commaList) { return withEndpoints(parseEndpoints(commaList)); }

    public ClientOptions withToken(String t) {
        return new ClientOptions(endpoints, t, callTimeout, connectTimeout, backoffBase, backoffMax, maxRetryAfter, pinFirstEpoch);
    }

    public ClientOptions withCallTimeout(Duration d) {
        return new ClientOptions(endpoints, token, d, connectTimeout, backoffBase, backoffMax, maxRetryAfter, pinFirstEpoch);
    }

    public ClientOptions withConnectTimeout(Duration d) {
        return new ClientOptions(endpoints, token, callTimeout, d, backoffBase, backoffMax, maxRetryAfter, pinFirstEpoch);
    }

    public ClientOptions withBackoff(Duration base, Duration max) {
        return new ClientOptions(endpoints, token, callTimeout, connectTimeout, base, max, maxRetryAfter, pinFirstEpoch);
    }

    public ClientOptions withMaxRetryAfter(Duration d) {
        return new ClientOptions(endpoints, token, callTimeout, connectTimeout, backoffBase, backoffMax, d, pinFirstEpoch);
    }

    public ClientOptions withPinFirstEpoch(boolean pin) {
        return new ClientOptions(endpoints, token, callTimeout, connectTimeout, backoffBase, backoffMax, maxRetryAfter, pin);
    }

    public List<URI> endpoints() { return endpoints; }
    public String token() { return token; }
    public Duration callTimeout() { return callTimeout; }
    public Duration connectTimeout() { return connectTimeout; }
    public Duration backoffBase() { return backoffBase; }
    public Duration backoffMax() { return backoffMax; }
    public Duration maxRetryAfter() { return maxRetryAfter; }
    public boolean pinFirstEpoch() { return pinFirstEpoch; }

    @Override public String toString() {
        return "ClientOptions[endpoints=" + endpoints + ", token=" + (token == null ? "none" : "(set)") + ", callTimeout="
                + callTimeout + ", connectTimeout=" + connectTimeout + ", backoff=" + backoffBase + ".." + backoffMax
                + ", maxRetryAfter=" + maxRetryAfter + ", pinFirstEpoch=" + pinFirstEpoch + "]";
    }
}
