package lake.meta.rocks;

import io.vertx.core.Future;
import lake.meta.GuardedMutation;
import lake.meta.MetaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Close is idempotent, finishes what was queued before it, and refuses everything after it. */
class RocksLifecycleTest {
    private static final byte[] V = "v".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void closeIsIdempotentAndLaterCallsFailWithStoreClosed() throws Exception {
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(dir));
        List<Future<Boolean>> queued = new ArrayList<>();
        for (int i = 0; i < 100; i++) queued.add(store.cas("k" + i, null, V));
        Future<Void> first = store.close();
        Future<Void> second = store.close();
        await(first);
        await(second);
        await(store.close());
        for (Future<Boolean> f : queued) assertThat(await(f)).as("accepted before close").isTrue();

        assertClosed(store.get("k"));
        assertClosed(store.cas("k", null, V));
        assertClosed(store.delete("k", V));
        assertClosed(store.guardedMutate(GuardedMutation.create("g", V, "t", V)));
        assertClosed(store.scanPrefix("", null, 10));

        RocksMetaStore reopened = RocksMetaStore.open(RocksConfig.defaults(dir));
        try {
            assertThat(await(reopened.scanPrefix("k", null, 1000)).entries()).hasSize(100);
        } finally {
            await(reopened.close());
        }
    }

    @Test
    void badInputFailsBeforeTheStoreEvenWhenClosed() throws Exception {
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(dir));
        await(store.close());
        // Validation comes first, so the caller learns about its own mistake rather than the store's state.
        assertThat(failure(store.guardedMutate(null))).isInstanceOf(MetaException.InvalidArgument.class);
        assertThat(failure(store.get("a\0b"))).isInstanceOf(MetaException.InvalidArgument.class);
    }

    private static void assertClosed(Future<?> f) throws Exception {
        assertThat(failure(f)).isInstanceOf(MetaException.StoreClosed.class);
    }

    private static Throwable failure(Future<?> f) throws Exception {
        try {
            f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure");
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
}
