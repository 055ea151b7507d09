package lake.ingress;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A leader's periodic background task (feed compaction, a purge pass, an orphan sweep), run one
 * at a time on the verticle's event loop: a tick while a round is in flight is skipped rather than
 * overlapped, and a round that says more is waiting is followed by the next after a short pause
 * (so client requests go between rounds) until it says none is or the verticle stops. Confined to
 * the verticle's event loop.
 */
final class Chore<T> {
    /** Pause between back-to-back rounds, so client requests go first. */
    static final long PAUSE_MS = 20;

    private final Vertx vertx;
    private final Supplier<Future<T>> round;
    private final Function<AsyncResult<T>, Boolean> after;
    private final BooleanSupplier stopped;
    private boolean running;

    /**
     * @param round   starts one round (a throw counts as a failed round)
     * @param after   hears each round's outcome (to log it) and says whether another should follow at once
     * @param stopped whether the verticle is stopping: no round starts then
     */
    Chore(Vertx vertx, Supplier<Future<T>> round, Function<AsyncResult<T>, Boolean> after, BooleanSupplier stopped) {
        this.vertx = vertx;
        this.round = round;
        this.after = after;
        this.stopped = stopped;
    }

    /** A tick: starts a round unless one is in flight or the verticle is stopping. */
    void run() {
        if (running || stopped.getAsBoolean()) return;
        running = true;
        Future<T> r;
        try {
            r = round.get();
        } catch (RuntimeException e) {
            r = Future.failedFuture(e);
        }
        r.onComplete(done -> {
            running = false;
            if (after.apply(done) && !stopped.getAsBoolean()) vertx.setTimer(PAUSE_MS, id -> run());
        });
    }
}
