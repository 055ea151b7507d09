package lake.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One direction of a {@link TcpProxy} connection: chunks reach {@code to} in the order they were
 * handed over, one write at a time (never interleaved), each no earlier than its delay after the
 * hand-over. A delay is waited out by a scheduled hand-off to {@code writes}, never by a sleeping
 * thread, so the pump keeps reading meanwhile. A chunk without delay is written at once, on the
 * caller's thread, only when nothing handed over before it is still pending.
 *
 * <p>Used by one pump thread only; only the delayed writes themselves run elsewhere. Once a
 * delayed write fails, {@code onFailure} runs (it closes the connection) and every later chunk is
 * dropped.
 */
final class OrderedWriter {
    private final Socket to;
    private final Executor writes;
    private final Runnable onFailure;
    /** Completes once every chunk handed over so far is written; fails once a write failed. */
    private CompletableFuture<Void> written = CompletableFuture.completedFuture(null);

    OrderedWriter(Socket to, Executor writes, Runnable onFailure) {
        this.to = to;
        this.writes = writes;
        this.onFailure = onFailure;
    }

    /** Hands over {@code buf[0..n)} (copied when delayed: the caller reuses {@code buf}). */
    void send(byte[] buf, int n, long delayMs) throws IOException {
        if (delayMs <= 0 && written.isDone() && !written.isCompletedExceptionally()) {
            write(buf, n);
            return;
        }
        byte[] chunk = Arrays.copyOf(buf, n);
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMs));
        written = written.thenCompose(previous -> CompletableFuture.runAsync(delayedWrite(chunk),
                CompletableFuture.delayedExecutor(Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS, writes)));
    }

    /** Runs {@code then} once every chunk handed over so far is written, or dropped after a failure. */
    void afterPending(Runnable then) {
        written.whenComplete((done, failed) -> then.run());
    }

    private Runnable delayedWrite(byte[] chunk) {
        return () -> {
            try {
                write(chunk, chunk.length);
            } catch (IOException e) {
                onFailure.run();
                throw new UncheckedIOException(e);
            }
        };
    }

    private void write(byte[] chunk, int n) throws IOException {
        var out = to.getOutputStream();
        out.write(chunk, 0, n);
        out.flush();
    }
}
