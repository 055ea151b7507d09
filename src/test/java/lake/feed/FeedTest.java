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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(feed.started(1)).as("started: taken without a future").isSameAs(first);
        assertThat(feed.started(2)).as("an epoch not started").isNull();
        for (long r : new long[] {1, 2, 41, 7}) {
            assertThat(join(store.cas(Revisions.key(r), null, ChangeRecord.voidAt(r, 1, 0).encode()))).isTrue();
        }
        assertThat(join(store.cas("__lake_internal/feedx", null, new byte[1]))).as("a key past the prefix").isTrue();
        Sequencer second = join(feed.sequencer(2, store));
        assertThat(second.allocate()).as("above the greatest record, 41").isEqualTo(42);
    }

    @Test
    void readsReturnWholeRecordsInOrderAcrossPages() throws Exception {
        // Enough items to span several store pages, with records in parts among them.
        List<ChangeRecord> written = new ArrayList<>();
        byte[] big = new byte[RecordItems.PART_BYTES];
        for (long r = 1; r <= FeedReads.PAGE_ITEMS + 40; r++) {
            if (r % 3 == 0) continue;   // a gap: a refused write's revision
            ChangeRecord rec = r % 50 == 1 ? ChangeRecord.of(r, 1, r, List.of(new ChangeRecord.Change("kv/big" + r, big)), null)
                    : r % 7 == 0 ? ChangeRecord.voidAt(r, 1, r)
                    : ChangeRecord.of(r, 1, r, List.of(new ChangeRecord.Change("kv/" + r, new byte[] {(byte) r})), null);
            assertThat(join(store.transact(lake.meta.Transaction.of(RecordItems.ops(rec)))).applied()).isTrue();
            written.add(rec);
        }
        assertThat(join(FeedReads.read(store, 0, -1L, 100_000))).isEqualTo(written);
        assertThat(join(FeedReads.read(store, 99, 101, 10))).extracting(ChangeRecord::revision).as("(after, upTo]").containsExactly(100L, 101L);
        assertThat(join(FeedReads.read(store, 101, -1L, 3))).extracting(ChangeRecord::revision).as("after a parted record")
                .containsExactly(103L, 104L, 106L);
        assertThat(join(FeedReads.read(store, 100, 100, 10))).isEmpty();
        long last = written.get(written.size() - 1).revision();
        assertThat(join(FeedReads.read(store, last, -1L, 10))).isEmpty();
        assertThat(join(FeedReads.read(store, 0, -1L, written.size() - 1))).isEqualTo(written.subList(0, written.size() - 1));
    }

    @Test
    void aRetiredEpochHandsOutNoRevisionAgain() throws Exception {
        Feed feed = new Feed();
        assertThat(feed.minEpoch()).as("no constraint").isZero();
        Sequencer three = join(feed.sequencer(3, store));
        feed.retire(3);
        assertThat(feed.minEpoch()).isEqualTo(4);
        assertThat(feed.started(3)).as("retired: not handed out").isNull();
        assertThatThrownBy(() -> join(feed.sequencer(3, store))).isInstanceOf(Feed.StaleEpoch.class).hasMessageContaining("epoch 4");
        assertThatThrownBy(() -> join(feed.sequencer(2, store))).isInstanceOf(Feed.StaleEpoch.class);
        feed.retire(1);
        assertThat(feed.minEpoch()).as("a late retire of an older epoch changes nothing").isEqualTo(4);
        assertThat(join(feed.sequencer(4, store))).isNotSameAs(three);
        feed.retire(-1L);
        assertThatThrownBy(feed::minEpoch).as("no epoch after the last").isInstanceOf(IllegalStateException.class);
    }
}
