package lake.meta.rocks;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import lake.meta.GuardedMutation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import static lake.meta.rocks.RocksAwait.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operation called from an event loop works without RocksDB ever running there (the store
 * fails loudly if it would), and completes back on the calling context.
 */
class RocksEventLoopTest {
    @TempDir
    Path dir;
    private Vertx vertx;
    private RocksMetaStore store;

    @BeforeEach
    void open() {
        vertx = Vertx.vertx();
        store = RocksMetaStore.open(RocksConfig.defaults(dir.resolve("db")));
    }

    @AfterEach
    void close() throws Exception {
        try {
            await(store.close());
        } finally {
            await(vertx.close());
        }
    }

    @Test
    void everyOperationCalledOnAnEventLoopCompletesOnThatContext() throws Exception {
        Context eventLoop = vertx.getOrCreateContext();
        assertThat(eventLoop.isEventLoopContext()).isTrue();
        byte[] lease = "lease".getBytes(StandardCharsets.UTF_8);
        byte[] v = "v".getBytes(StandardCharsets.UTF_8);
        List<String> wrongContext = new CopyOnWriteArrayList<>();

        Promise<List<Object>> results = Promise.promise();
        eventLoop.runOnContext(ignored -> {
            // One operation after the other, each issued from the event loop.
            Future<List<Object>> all = onCaller(eventLoop, wrongContext, "cas", () -> store.cas("election/leader", null, lease))
                    .compose(a -> onCaller(eventLoop, wrongContext, "guardedMutate",
                            () -> store.guardedMutate(GuardedMutation.create("election/leader", lease, "t/1", v))))
                    .compose(b -> onCaller(eventLoop, wrongContext, "get", () -> store.get("t/1")))
                    .compose(c -> onCaller(eventLoop, wrongContext, "scanPrefix", () -> store.scanPrefix("t/", null, 10)))
                    .compose(d -> onCaller(eventLoop, wrongContext, "delete", () -> store.delete("t/1", v)))
                    .compose(e -> onCaller(eventLoop, wrongContext, "invalid get", () -> store.get("").map(o -> "accepted"))
                            .recover(err -> Future.succeededFuture("rejected")))
                    .compose(f -> onCaller(eventLoop, wrongContext, "close", () -> store.close()))
                    .map(done -> List.of());
            all.onComplete(results);
        });
        await(results.future());
        assertThat(wrongContext).as("operations that completed off the caller's event loop").isEmpty();
        assertThat(store.stats().mutations()).isEqualTo(3);
    }

    @Test
    void openingOnAnEventLoopFailsLoudly() throws Exception {
        Promise<Throwable> refused = Promise.promise();
        vertx.getOrCreateContext().runOnContext(ignored -> {
            try {
                RocksMetaStore.open(RocksConfig.defaults(dir.resolve("other")));
                refused.fail("open ran RocksDB on an event loop");
            } catch (IllegalStateException e) {
                refused.complete(e);
            }
        });
        assertThat(await(refused.future())).hasMessageContaining("event loop");
    }

    @Test
    void asyncOpenFromAnEventLoopRunsOnAWorkerAndCompletesOnTheCaller() throws Exception {
        Context eventLoop = vertx.getOrCreateContext();
        Promise<Boolean> sameContext = Promise.promise();
        eventLoop.runOnContext(ignored -> RocksMetaStore.open(vertx, RocksConfig.defaults(dir.resolve("async")))
                .compose(s -> {
                    boolean onCaller = Vertx.currentContext() == eventLoop;
                    return s.close().map(onCaller);
                })
                .onComplete(sameContext));
        assertThat(await(sameContext.future())).isTrue();
    }

    /** Runs {@code call} and records it when its future completes on any context but {@code expected}. */
    private static <T> Future<T> onCaller(Context expected, List<String> wrong, String name, Supplier<Future<T>> call) {
        return call.get().andThen(ar -> {
            if (Vertx.currentContext() != expected || !Context.isOnEventLoopThread()) {
                wrong.add(name + " completed on " + Thread.currentThread().getName());
            }
        });
    }
}
