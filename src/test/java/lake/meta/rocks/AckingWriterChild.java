package lake.meta.rocks;

import lake.meta.GuardedMutation;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Child process for {@code acknowledgedWritesSurviveKill}: opens the store at {@code args[0]},
 * installs the guard, then issues guarded creates of {@code t/<n>} = {@code v<n>} with up to 16
 * in flight (so group commit is exercised) and prints {@code ACK <n>} only after the future
 * completed {@code true}. Runs until killed, or gives up after a minute if nobody kills it.
 */
public final class AckingWriterChild {
    static final String GUARD = "election/leader";
    static final byte[] LEASE = "lease-kill-test".getBytes(StandardCharsets.UTF_8);
    private static final int IN_FLIGHT = 16;

    private AckingWriterChild() {}

    public static void main(String[] args) throws Exception {
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(Path.of(args[0])));
        if (!store.cas(GUARD, null, LEASE).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("guard already present");
        }
        System.out.println("READY");
        System.out.flush();
        Semaphore slots = new Semaphore(IN_FLIGHT);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        for (long n = 0; System.nanoTime() < deadline; n++) {
            slots.acquire();
            long id = n;
            store.guardedMutate(GuardedMutation.create(GUARD, LEASE, key(id), value(id))).onComplete(ar -> {
                if (ar.succeeded() && ar.result()) {
                    synchronized (System.out) {
                        System.out.println("ACK " + id);
                        System.out.flush();
                    }
                } else {
                    System.err.println("mutation " + id + " not acknowledged: " + (ar.succeeded() ? "false" : ar.cause()));
                }
                slots.release();
            });
        }
        System.exit(3);
    }

    static String key(long n) {
        return "t/" + n;
    }

    static byte[] value(long n) {
        return ("v" + n).getBytes(StandardCharsets.UTF_8);
    }
}
