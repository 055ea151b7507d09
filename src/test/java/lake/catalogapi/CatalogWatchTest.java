package lake.catalogapi;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.NodeHarness;
import lake.protocol.ApiError;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The long-poll watch over a real store: bounded per node, released on change, on expiry and on stop. */
class CatalogWatchTest {
    @TempDir Path dir;
    Vertx vertx;
    RocksMetaStore store;
    Context context;
    CatalogWatch watch;
    final AtomicInteger waiting = new AtomicInteger();

    @BeforeEach
    void open() throws Exception {
        vertx = Vertx.vertx();
        store = NodeHarness.await(RocksMetaStore.open(vertx, RocksConfig.defaults(dir)));
        context = vertx.getOrCreateContext();
        watch = new CatalogWatch(vertx, store, waiting, 2);
        NodeHarness.await(on(() -> watch.start()));
    }

    @AfterEach
    void close() throws Exception {
        NodeHarness.await(on(() -> watch.stop()));
        NodeHarness.await(store.close());
        NodeHarness.await(vertx.close());
    }

    /** Runs {@code call} on the watch's own context, as its NodeApi would. */
    private <T> Future<T> on(Supplier<Future<T>> call) {
        io.vertx.core.Promise<T> p = io.vertx.core.Promise.promise();
        context.runOnContext(v -> call.get().onComplete(p));
        return p.future();
    }

    /** A client that never goes away. */
    private static Future<Void> stays() {
        return io.vertx.core.Promise.<Void>promise().future();
    }

    private static boolean changedFrom(Optional<byte[]> now, String seen) {
        return !now.map(b -> new String(b, StandardCharsets.UTF_8)).equals(Optional.ofNullable(seen));
    }

    @Test
    void waitingRequestsAreBoundedAndReleased() throws Exception {
        Future<Boolean> first = on(() -> watch.await("gen", now -> changedFrom(now, null), 60_000, stays()));
        Future<Boolean> second = on(() -> watch.await("gen", now -> changedFrom(now, null), 60_000, stays()));
        org.awaitility.Awaitility.await().until(() -> waiting.get() == 2);
        assertThatThrownBy(() -> NodeHarness.await(on(() -> watch.await("gen", now -> true, 60_000, stays()))))
                .isInstanceOfSatisfying(ApiError.class, e -> {
                    assertThat(e.status()).isEqualTo(503);
                    assertThat(e.code()).isEqualTo("too_many_waiters");
                });
        assertThat(waiting.get()).as("a refused request holds no slot").isEqualTo(2);

        assertThat(NodeHarness.await(store.cas("gen", null, "g1".getBytes(StandardCharsets.UTF_8)))).isTrue();
        assertThat(NodeHarness.await(first)).as("woken by the change").isTrue();
        assertThat(NodeHarness.await(second)).isTrue();
        assertThat(waiting.get()).isZero();

        assertThat(NodeHarness.await(on(() -> watch.await("gen", now -> changedFrom(now, "g1"), 50, stays())))).as("expired").isFalse();
        assertThat(waiting.get()).isZero();

        Future<Boolean> pending = on(() -> watch.await("gen", now -> changedFrom(now, "g1"), 60_000, stays()));
        org.awaitility.Awaitility.await().until(() -> waiting.get() == 1);
        NodeHarness.await(on(() -> watch.stop()));
        assertThat(NodeHarness.await(pending)).as("a stopping node answers its waiters").isFalse();
        assertThat(waiting.get()).isZero();
        NodeHarness.await(on(() -> watch.start()));
    }

    @Test
    void abandonedWaitGivesItsSlotBackAtOnce() throws Exception {
        io.vertx.core.Promise<Void> hungUp = io.vertx.core.Promise.promise();
        Future<Boolean> abandoned = on(() -> watch.await("gen", now -> changedFrom(now, null), 60_000, hungUp.future()));
        Future<Boolean> staying = on(() -> watch.await("gen", now -> changedFrom(now, null), 60_000, stays()));
        org.awaitility.Awaitility.await().until(() -> waiting.get() == 2);

        context.runOnContext(v -> hungUp.complete());
        assertThat(NodeHarness.await(abandoned)).as("answered unchanged, long before its deadline").isFalse();
        assertThat(waiting.get()).as("its slot is free again").isEqualTo(1);
        Future<Boolean> third = on(() -> watch.await("gen", now -> changedFrom(now, null), 60_000, stays()));
        org.awaitility.Awaitility.await().until(() -> waiting.get() == 2);
        assertThat(third.failed()).as("the freed slot takes a new waiter (the bound is 2)").isFalse();

        assertThat(NodeHarness.await(store.cas("gen", null, "g1".getBytes(StandardCharsets.UTF_8)))).isTrue();
        assertThat(NodeHarness.await(staying)).as("the other waiter still waits for the change").isTrue();
        assertThat(NodeHarness.await(third)).isTrue();
        assertThat(waiting.get()).isZero();
    }
}
