package lake.client;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import lake.client.model.ClientOptions;
import lake.client.model.MetasrvException;
import lake.client.transport.Call;
import lake.client.transport.Transport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs one call to completion within its deadline: the only place that decides whether to send a
 * call again.
 *
 * <ul>
 *   <li>Success: the endpoint that answered becomes the preferred one for later calls.</li>
 *   <li>A retryable refusal ({@code not_leader}, {@code backend_unavailable}, {@code contended},
 *       {@code too_many_waiters}: the node certainly wrote nothing), or {@link Transport.NotSent}:
 *       try the next endpoint. The first sweep over the endpoints goes at once; every later one
 *       waits a jittered exponential backoff ({@code backoffBase}·2^n, at most {@code backoffMax},
 *       times a random 0.5–1), and at least the server's {@code Retry-After} (capped by
 *       {@code maxRetryAfter}) before asking an endpoint that asked for it again.</li>
 *   <li>{@link Transport.Lost} or {@code outcome_unknown}: a read is retried like the above; a
 *       write is never sent again — it fails with {@link MetasrvException.OutcomeUnknown}.</li>
 *   <li>Fail fast: when every endpoint refused the connection outright in one sweep
 *       ({@link Transport.NotSent#refused()}: connection refused, not a connect timeout), the call
 *       ends at once with {@link MetasrvException.Unreachable} naming the endpoints — nothing
 *       listens where the client points, and waiting out the deadline would only hide that. One
 *       endpoint refusing while another answers (even {@code not_leader}) keeps the rule above:
 *       the sweep goes on to the next endpoint.</li>
 *   <li>Any other refusal fails the call as it is.</li>
 *   <li>The deadline: no retry starts, and no backoff begins, unless at least
 *       {@code min(1 s, callTimeout/2)}, and twice the slowest refusal so far, would be left for it
 *       (a transport that waited for a connection checks that again before sending); the call then fails with the
 *       last refusal, or {@link MetasrvException.Unreachable} when no node answered at all. A write
 *       in flight when the deadline passes is {@code OutcomeUnknown}.</li>
 * </ul>
 */
final class Retrier {
    private final Transport transport;
    private final ClientOptions options;
    private volatile int preferred;

    Retrier(Transport transport, ClientOptions options) {
        this.transport = transport;
        this.options = options;
    }

    Transport transport() { return transport; }

    Future<Map<String, Object>> run(Call call) {
        long deadline = System.nanoTime() + options.callTimeout().toNanos() + call.waitMs() * 1_000_000L;
        Promise<Map<String, Object>> result = Promise.promise();
        attempt(call, preferred, 0, deadline, null, 0, 0, 0, result);
        return result.future();
    }

    /**
     * {@code slowestMs}: the longest an earlier attempt of this call took to be refused by a node;
     * {@code refusedInRow}: how many attempts just before this one found their endpoint refusing the
     * connection outright.
     */
    private void attempt(Call call, int endpoint, int attempt, long deadline, Throwable last, long lastRetryAfterMs,
                         long slowestMs, int refusedInRow, Promise<Map<String, Object>> result) {
        long remainingMs = (deadline - System.nanoTime()) / 1_000_000L;
        if (remainingMs <= 0 || (attempt > 0 && remainingMs < retryFloorMs(slowestMs))) {
            result.fail(giveUp(call, last));
            return;
        }
        // A read may go elsewhere: one silent node (paused, half-open) must not take the whole
        // deadline, so with several endpoints a read's attempt gets a share of it. A write gets all
        // of it: once sent, it is never sent elsewhere.
        long budgetMs = call.write() || transport.endpoints() == 1 ? remainingMs
                : Math.min(remainingMs, Math.max(1_000, options.callTimeout().toMillis() / transport.endpoints()) + call.waitMs());
        long started = System.nanoTime();
        Future<Map<String, Object>> sent;
        try {
            sent = transport.send(call, endpoint, budgetMs, 2 * slowestMs);
        } catch (RuntimeException bug) {
            sent = Future.failedFuture(bug);   // a call always completes, whatever a transport does
        }
        sent.onComplete(ar -> {
            if (ar.succeeded()) {
                preferred = endpoint;
                result.complete(ar.result());
                return;
            }
            Throwable t = ar.cause();
            // What a give-up reports: a request that was never sent (no connection in time) tells
            // nothing new, so the last refusal stays the answer.
            Throwable reported = t instanceof Transport.NotSent && last instanceof MetasrvException ? last : t;
            String where = transport.endpoint(endpoint);
            // A node that did not answer is not where the next call should start.
            if ((t instanceof Transport.Lost || t instanceof Transport.NotSent) && preferred == endpoint) {
                preferred = (endpoint + 1) % transport.endpoints();
            }
            // Attempts go round the endpoints in turn, so as many refusals in a row as there are
            // endpoints is a full sweep in which every one of them refused the connection.
            int refused = t instanceof Transport.NotSent ns && ns.refused() ? refusedInRow + 1 : 0;
            if (refused >= transport.endpoints()) {
                result.fail(everyEndpointRefused(call, last, t));
                return;
            }
            if (t instanceof MetasrvException.OutcomeUnknown || t instanceof Transport.Lost) {
                if (call.write()) {
                    String why = t instanceof Transport.Lost ? t.getMessage() + "; the write may or may not have applied"
                            : t.getMessage();
                    result.fail(new MetasrvException.OutcomeUnknown(call.op() + " at " + where + ": " + why
                            + " (read the keys back before retrying)", call.intent(), t));
                    return;
                }
            } else if (t instanceof MetasrvException e && !e.retryable()) {
                result.fail(e);
                return;
            } else if (!(t instanceof MetasrvException) && !(t instanceof Transport.NotSent)) {
                result.fail(t);
                return;
            }
            // Safe to send again: certainly not applied, or a read.
            int next = (endpoint + 1) % transport.endpoints();
            int n = attempt + 1;
            long retryAfter = Math.max(lastRetryAfterMs, t instanceof MetasrvException e ? e.retryAfterMillis() : 0);
            long waitMs = 0;
            if (n % transport.endpoints() == 0) {
                // A full sweep ended: back off before asking the same endpoints again.
                waitMs = backoffMs(n / transport.endpoints(), options.backoffBase().toMillis(), options.backoffMax().toMillis(),
                        ThreadLocalRandom.current().nextDouble());
                waitMs = Math.max(waitMs, Math.min(retryAfter, options.maxRetryAfter().toMillis()));
                retryAfter = 0;
            }
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            // Only answers count: a silent node's lost attempt says nothing of how long a refusal takes.
            long slowest = t instanceof MetasrvException ? Math.max(slowestMs, (System.nanoTime() - started) / 1_000_000L) : slowestMs;
            if (left - waitMs < retryFloorMs(slowest)) {
                result.fail(giveUp(call, reported));
                return;
            }
            long carried = retryAfter;
            Future<Void> pause = waitMs == 0 ? Future.succeededFuture() : transport.delay(waitMs);
            pause.onComplete(v -> attempt(call, next, n, deadline, reported, carried, slowest, refused, result));
        });
    }

    /**
     * The least time a retry must have left to start. An attempt cut short by the deadline is
     * {@link Transport.Lost}, which for a write means {@code OutcomeUnknown} although every answer
     * so far said it certainly did not apply; so a retry that could not finish does not begin, and
     * the call fails with the last refusal instead. (The first attempt always goes.) At least
     * min(1 s, callTimeout/2), and twice the slowest refusal so far: a node that takes 1.3 s to
     * refuse (a follower that looked for a leader first) will likely take as long again.
     */
    private long retryFloorMs(long slowestMs) {
        return Math.max(Math.min(Transport.RETRY_FLOOR_MS, options.callTimeout().toMillis() / 2), 2 * slowestMs);
    }

    /**
     * The pause after full sweep {@code sweep} (1, 2, …) over the endpoints: {@code baseMs}·2^(sweep−1),
     * capped at {@code maxMs}, times a jitter of 0.5 + {@code u}/2 for {@code u} in [0, 1), so
     * clients refused together do not come back together.
     */
    static long backoffMs(int sweep, long baseMs, long maxMs, double u) {
        long cap = Math.min(maxMs, baseMs << Math.min(20, Math.max(0, sweep - 1)));
        return (long) (cap * (0.5 + u * 0.5));
    }

    /**
     * The call's end when every endpoint refused the connection in one sweep: nothing listens
     * where the client was pointed, and waiting out the deadline would only hide that. Nothing
     * was sent, so a write certainly did not apply.
     */
    private Throwable everyEndpointRefused(Call call, Throwable earlier, Throwable t) {
        List<String> all = new ArrayList<>();
        for (int i = 0; i < transport.endpoints(); i++) all.add(transport.endpoint(i));
        String where = all.size() == 1 ? "by " + all.get(0) : "by every endpoint (" + String.join(", ", all) + ")";
        return new MetasrvException.Unreachable(call.op() + ": connection refused " + where
                + ": nothing listens there; is Metasrv running at that address?"
                + (earlier instanceof MetasrvException e ? " (an earlier answer: " + e.code() + ": " + e.getMessage() + ")" : ""), t);
    }

    private Throwable giveUp(Call call, Throwable last) {
        if (last instanceof MetasrvException e) return e;
        String what = call.op() + ": no endpoint answered within " + options.callTimeout().toMillis() + " ms";
        if (last instanceof Transport.Lost && call.write()) {
            return new MetasrvException.OutcomeUnknown(what + "; the write may or may not have applied", call.intent(), last);
        }
        return new MetasrvException.Unreachable(what + (last == null ? "" : " (last: " + last.getMessage() + ")"), last);
    }
}
