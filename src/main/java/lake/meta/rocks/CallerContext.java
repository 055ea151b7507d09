package lake.meta.rocks;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;

/**
 * Completes a promise on the Vert.x context that issued the call, so a verticle's continuation runs
 * on its own context and needs no locks. Callers outside Vert.x (no context) are completed on the
 * completing thread.
 *
 * <p>Invariant: nothing a caller does can break the completing thread (the store's single writer).
 * A callback that throws is logged and contained; a caller whose Vert.x instance was closed while
 * its call was in flight is completed on the spot instead of on its dead context.
 */
final class CallerContext {
    private static final Logger log = LoggerFactory.getLogger(CallerContext.class);

    private CallerContext() {}

    static <T> void succeed(Context context, Promise<T> promise, T value) {
        run(context, () -> promise.tryComplete(value));
    }

    static <T> void fail(Context context, Promise<T> promise, Throwable cause) {
        run(context, () -> promise.tryFail(cause));
    }

    /** Runs {@code completion} on {@code context} (or here, without one), containing whatever it throws. */
    static void run(Context context, Runnable completion) {
        if (context != null) {
            try {
                context.runOnContext(v -> contained(completion));
                return;
            } catch (RejectedExecutionException | IllegalStateException closed) {
                // The caller's Vert.x instance is gone; complete here so the future still settles.
            }
        }
        contained(completion);
    }

    /** Runs {@code completion} here, containing whatever it throws (one of a batch: it skips no others). */
    static void contained(Runnable completion) {
        try {
            completion.run();
        } catch (Throwable t) {
            log.error("a caller's completion callback threw; the store carries on", t);
        }
    }
}
