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

import static lake.meta.StoreCalls.failure;
import static lake.meta.rocks.RocksAwait.await;
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

    @Test
    void callersCannotBreakTheWriter() throws Exception {
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(dir));
        // A caller without a context whose callback throws: it runs on the writer thread.
        List<Future<Boolean>> throwing = new ArrayList<>();
        int onWriterThread = 0;
        for (int i = 0; i < 20; i++) {
            Future<Boolean> f = store.cas("throw/" + i, null, V);
            if (!f.isComplete()) onWriterThread++;
            try {
                f.onComplete(ar -> {
                    throw new IllegalStateException("caller bug (test)");
                });
            } catch (IllegalStateException ranHere) {
                // The write completed before the callback was registered, so it ran on this thread:
                // nothing reached the writer. Only the writer-thread case is what this test is about.
            }
            throwing.add(f);
        }
        for (Future<Boolean> f : throwing) assertThat(await(f)).isTrue();
        assertThat(onWriterThread).as("some callbacks were registered before their write completed").isPositive();

        // A caller whose Vert.x instance closes while its writes are in flight.
        io.vertx.core.Vertx doomed = io.vertx.core.Vertx.vertx();
        List<Future<Boolean>> orphaned = new java.util.concurrent.CopyOnWriteArrayList<>();
        Future<Void> submitted = doomed.getOrCreateContext().<Void>executeBlocking(() -> null).compose(v -> {
            io.vertx.core.Promise<Void> p = io.vertx.core.Promise.promise();
            doomed.runOnContext(x -> {
                for (int i = 0; i < 200; i++) orphaned.add(store.cas("orphan/" + i, null, V));
                p.complete();
            });
            return p.future();
        });
        await(submitted);
        await(doomed.close());

        // The writer still serves everyone else, and closes cleanly.
        assertThat(await(store.cas("after", null, V))).isTrue();
        assertThat(await(store.get("after"))).isPresent();
        assertThat(await(store.scanPrefix("orphan/", null, 1000)).entries()).hasSize(200);
        await(store.close());
        RocksMetaStore reopened = RocksMetaStore.open(RocksConfig.defaults(dir));
        await(reopened.close());
    }

    private static void assertClosed(Future<?> f) throws Exception {
        assertThat(failure(f)).isInstanceOf(MetaException.StoreClosed.class);
    }
}
