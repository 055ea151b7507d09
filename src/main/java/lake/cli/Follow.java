package lake.cli;

import lake.client.MetasrvClient;
import lake.client.Watcher;
import lake.client.model.MetasrvException;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/** What {@code lakectl watch} and {@code lakectl catalog events} share: where to start, and following a watch until it ends or N events. */
final class Follow {
    private Follow() {}

    /** Refuses a {@code --count} below one, before anything is asked of the server. */
    static void checkCount(Integer count) {
        if (count != null && count < 1) throw new MetasrvException.InvalidArgument("--count must be at least 1, got " + count);
    }

    /** The revision {@code --after} names, or the current one when it is not given. */
    static long start(MetasrvClient client, String after) {
        if (after == null) return Base.await(client.currentRevision());
        try {
            return Long.parseUnsignedLong(after);
        } catch (NumberFormatException e) {
            throw new MetasrvException.InvalidArgument("--after must be an unsigned 64-bit revision, got '" + after + "'");
        }
    }

    /**
     * Starts a watch with {@code watch} (given the listener), hands each event to {@code print},
     * and returns after {@code count} events ({@code null}: never) or when the watch ends; a watch
     * that failed throws its failure.
     */
    static void follow(Integer count, BiFunction<Long, Watcher.Listener, Watcher> watch, long start, Watcher.Listener print)
            throws InterruptedException {
        checkCount(count);
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger();
        Watcher[] w = new Watcher[1];
        w[0] = watch.apply(start, event -> {
            print.onEvent(event);
            if (count != null && seen.incrementAndGet() >= count) {
                w[0].cancel();
                done.countDown();
            }
        });
        w[0].ended().onComplete(ar -> done.countDown());
        done.await();
        if (w[0].ended().failed()) {
            throw w[0].ended().cause() instanceof RuntimeException r ? r : new IllegalStateException(w[0].ended().cause());
        }
    }
}
