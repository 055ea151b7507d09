package lake.client.transport;

import io.vertx.core.Future;
import lake.client.model.MetasrvException;
import lake.client.model.NodeHealth;

import java.util.List;
import java.util.Map;

/**
 * How a {@link Call} reaches a node: HTTP to one of a list of endpoints, or the event bus. A send
 * completes with the reply body, or fails with exactly one of: a {@link MetasrvException} (a node
 * answered with that error), {@link NotSent} (certainly never reached a node: connection refused —
 * {@link NotSent#refused()} —, no connection in time, no handler), or {@link Lost} (it may have
 * reached one and no answer came). {@code lake.client.Retrier} decides
 * from that distinction alone whether a retry is safe.
 */
public interface Transport {
    /** How many endpoints there are to rotate through (the bus: 1, it balances by itself). */
    int endpoints();

    /** The least time a retry, or a send after waiting for a connection, is started with (when the budget allows). */
    long RETRY_FLOOR_MS = 1_000;

    /**
     * What a transport that had to wait for a connection must still have of an attempt's budget
     * to send it; with less, it reports {@link NotSent} (nothing went out) rather than send a
     * request the deadline would cut short.
     */
    static long sendFloorMs(long budgetMs) {
        return Math.min(RETRY_FLOOR_MS, budgetMs / 2);
    }

    /** Endpoint {@code i}, for messages. */
    String endpoint(int i);

    /**
     * Sends {@code call} to endpoint {@code endpoint} and waits at most {@code timeoutMs} for its
     * answer. A transport that may wait for a connection before sending (a pool) does not send
     * once less than {@code max(sendFloorMs(timeoutMs), minSendMs)} would be left: it fails
     * {@link NotSent} instead, so the deadline never cuts short a request that went out.
     */
    Future<Map<String, Object>> send(Call call, int endpoint, long timeoutMs, long minSendMs);

    /** The health of every endpoint. */
    Future<List<NodeHealth>> health(long timeoutMs);

    /** Completes after {@code ms}: the pause between retries (a timer on Vert.x, the caller's thread when blocking). */
    Future<Void> delay(long ms);

    Future<Void> close();

    /**
     * Whether {@code t}, or one of its causes, is a connection refused outright: a
     * {@link java.net.ConnectException} that says "refused" (the JDK's and Netty's alike), i.e. the
     * host answered that nothing listens on that port. A connect timeout, an unknown host or an
     * unreachable network is not: those say nothing certain about the endpoint.
     */
    static boolean refusedOutright(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof java.net.ConnectException && c.getMessage() != null
                    && c.getMessage().toLowerCase(java.util.Locale.ROOT).contains("refused")) {
                return true;
            }
        }
        return false;
    }

    /** The request certainly did not reach any node; any call may be sent again. */
    final class NotSent extends Exception {
        private final boolean refused;

        NotSent(String message, Throwable cause) {
            super(message, cause, false, false);
            this.refused = refusedOutright(cause);
        }

        /**
         * Whether the endpoint refused the connection outright (nothing listens there), as opposed
         * to a connection that did not come in time or a bus without a handler.
         */
        public boolean refused() { return refused; }
    }

    /** The request may have reached a node and no answer came (connection broke, deadline passed). */
    final class Lost extends Exception {
        Lost(String message, Throwable cause) { super(message, cause, false, false); }
    }
}
