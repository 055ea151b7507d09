package lake.meta.rocks;

import io.vertx.core.Future;

import java.util.concurrent.TimeUnit;

/** The RocksDB tests' one way to wait for a store future: bounded, so a hung store fails the test instead of the build. */
final class RocksAwait {
    private RocksAwait() {}

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
