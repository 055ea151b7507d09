package lake.feed;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A new epoch's revisions start above the feed's last record, read once per epoch (real RocksDB). */
class FeedTest {
    @TempDir Path dir;
    Vertx vertx;
    MetaStore store;

    static <T> T join(Future<T> f) throws Exception {
        try {
            return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    @BeforeEach
    void open() throws Exception {
        vertx = Vertx.vertx();
        store = join(RocksMetaStore.open(vertx, RocksConfig.defaults(dir)));
    }

    @AfterEach
    void close() throws Exception {
        join(store.close());
        join(vertx.close());
    }

    @Test
    void revisionsOfANewEpochStartAboveEveryEarlierRecord() throws Exception {
        Feed feed = new Feed();
        Sequencer first = join(feed.sequencer(1, store));
        assertThat(first.allocate()).as("an empty feed starts at 1").isEqualTo(1);
        assertThat(feed.sequencer(1, store)).as("one sequencer per epoch").isSameAs(feed.sequencer(1, store));
        for (long r : new long[] {1, 2, 41, 7}) {
            assertThat(join(store.cas(Revisions.key(r), null, ChangeRecord.voidAt(r, 1, 0).encode()))).isTrue();
        }
        assertThat(join(store.cas("__lake_internal/feedx", null, new byte[1]))).as("a key past the prefix").isTrue();
        Sequencer second = join(feed.sequencer(2, store));
        assertThat(second.allocate()).as("above the greatest record, 41").isEqualTo(42);
    }
}
