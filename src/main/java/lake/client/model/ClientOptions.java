package lake.client.model;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@code MetasrvClient} reaches Metasrv and how long it keeps trying. Immutable: each
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
 *       before asking the same endpoint again (default 2 s; zero ignores it).</li>
 *   <li>{@code pinFirstEpoch}: pin the epoch of the first write reply, so every later write
 *       carries it (see {@code MetasrvClient.withEpoch}).</li>
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

    /** The fields while a copy is being changed; {@link ClientOptions}'s constructor validates them. */
    private static final class Draft {
        List<URI> endpoints;
        String token;
        Duration callTimeout;
        Duration connectTimeout;
        Duration backoffBase;
        Duration backoffMax;
        Duration maxRetryAfter;
        boolean pinFirstEpoch;
    }

    private ClientOptions(Draft d) {
        if (d.endpoints == null || d.endpoints.isEmpty()) throw new IllegalArgumentException("at least one endpoint");
        this.endpoints = List.copyOf(d.endpoints);
        this.token = d.token;
        this.callTimeout = positive(d.callTimeout, "callTimeout");
        this.connectTimeout = positive(d.connectTimeout, "connectTimeout");
        this.backoffBase = positive(d.backoffBase, "backoffBase");
        this.backoffMax = positive(d.backoffMax, "backoffMax");
        if (backoffMax.compareTo(backoffBase) < 0) {
            throw new IllegalArgumentException("backoffMax (" + backoffMax + ") must not be below backoffBase (" + backoffBase + ")");
        }
        if (d.maxRetryAfter == null || d.maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException("maxRetryAfter must be zero (ignore Retry-After) or positive, got " + d.maxRetryAfter);
        }
        this.maxRetryAfter = d.maxRetryAfter;
        this.pinFirstEpoch = d.pinFirstEpoch;
    }

    /** A copy of these options with {@code change} applied, validated like any other. */
    private ClientOptions with(java.util.function.Consumer<Draft> change) {
        Draft d = new Draft();
        d.endpoints = endpoints;
        d.token = token;
        d.callTimeout = callTimeout;
        d.connectTimeout = connectTimeout;
        d.backoffBase = backoffBase;
        d.backoffMax = backoffMax;
        d.maxRetryAfter = maxRetryAfter;
        d.pinFirstEpoch = pinFirstEpoch;
        change.accept(d);
        return new ClientOptions(d);
    }

    /** The defaults: one endpoint, {@code http://127.0.0.1:8080}. */
    public static ClientOptions defaults() {
        Draft d = new Draft();
        d.endpoints = List.of(URI.create("http://127.0.0.1:8080"));
        d.callTimeout = Duration.ofSeconds(30);
        d.connectTimeout = Duration.ofSeconds(2);
        d.backoffBase = Duration.ofMillis(50);
        d.backoffMax = Duration.ofSeconds(1);
        d.maxRetryAfter = Duration.ofSeconds(2);
        return new ClientOptions(d);
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

    public ClientOptions withEndpoints(List<URI> e) { return with(d -> d.endpoints = e); }

    public ClientOptions withEndpoints(String commaList) { return withEndpoints(parseEndpoints(commaList)); }

    public ClientOptions withToken(String t) { return with(d -> d.token = t); }

    public ClientOptions withCallTimeout(Duration t) { return with(d -> d.callTimeout = t); }

    public ClientOptions withConnectTimeout(Duration t) { return with(d -> d.connectTimeout = t); }

    public ClientOptions withBackoff(Duration base, Duration max) {
        return with(d -> {
            d.backoffBase = base;
            d.backoffMax = max;
        });
    }

    /** The most a {@code Retry-After} makes the client wait; zero ignores it (the backoff alone paces retries). */
    public ClientOptions withMaxRetryAfter(Duration t) { return with(d -> d.maxRetryAfter = t); }

    public ClientOptions withPinFirstEpoch(boolean pin) { return with(d -> d.pinFirstEpoch = pin); }

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
