package lake.meta.rocks;

import io.vertx.core.Context;
import io.vertx.core.Promise;

/**
 * Completes a promise on the Vert.x context that issued the call, so a verticle's continuation runs
 * on its own context and needs no locks. Callers outside Vert.x (no context) are completed on the
 * completing thread.
 */
final class CallerContext {
    private CallerContext() {}

    static <T> void succeed(Context context, Promise<T> promise, T value) {
        if (context == null) promise.tryComplete(value);
        else context.runOnContext(v -> promise.tryComplete(value));
    }

    static <T> void fail(Context context, Promise<T> promise, Throwable cause) {
        if (context == null) promise.tryFail(cause);
        else context.runOnContext(v -> promise.tryFail(cause));
    }
}
