package lake.meta;

import io.vertx.core.Future;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting on the futures of a store (or of a layer over one) from a test thread. A failed future
 * rethrows its own exception, unwrapped, so tests assert on the store's exception types; only a
 * future that does not complete within 60 s becomes an {@link AssertionError}.
 */
public final class StoreCalls {
    private StoreCalls() {}

    public static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static <T> T await(Future<T> future) throws Exception {
        return await(future, "store");
    }

    /** As {@link #await(Future)}; {@code who} names what did not answer in the timeout's message. */
    public static <T> T await(Future<T> future, String who) throws Exception {
        try {
            return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError(who + " did not answer within 60 s", e);
        }
    }

    /** How {@code future} failed; an {@link AssertionError} if it succeeded. */
    public static Throwable failure(Future<?> future) throws Exception {
        try {
            future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the future to fail, but it succeeded");
    }
}
