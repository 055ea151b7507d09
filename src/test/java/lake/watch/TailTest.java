package lake.watch;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.feed.ChangeRecord;
import lake.feed.Published;
import lake.feed.RecordItems;
import lake.feed.Revisions;
import lake.meta.MetaStore;
import lake.meta.Transaction;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node's tail fed by publications (real RocksDB behind the gap reads): runs that continue are
 * appended, missed runs and runs only the store knows are read from it, a later epoch may start
 * below the old watermark, stale epochs are dropped, and readers below the tail read the store.
 */
class TailTest {
    @TempDir Path dir;
    Vertx vertx;
    MetaStore store;
    Tail tail;
    TailFeeder feeder;
    Watches watches;

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
        tail = new Tail(8, 1 << 20);
        feeder = new TailFeeder(tail, store);
        watches = new Watches(vertx.getOrCreateContext(), tail, store);
    }

    @AfterEach
    void close() throws Exception {
        join(store.close());
        join(vertx.close());
    }

    static ChangeRecord record(long revision, long epoch) {
        return ChangeRecord.of(revision, epoch, 0, List.of(new ChangeRecord.Change("k/" + revision, "v".getBytes(StandardCharsets.UTF_8))), null);
    }

    /** Stores the records of {@code revisions} under {@code epoch}, as the leader's writes would. */
    List<ChangeRecord> stored(long epoch, long... revisions) throws Exception {
        List<ChangeRecord> out = new ArrayList<>();
        for (long r : revisions) {
            ChangeRecord c = record(r, epoch);
            assertThat(join(store.transact(Transaction.of(RecordItems.ops(c)))).applied()).isTrue();
            out.add(c);
        }
        return out;
    }

    /** Feeds {@code run} on the vertx context and waits until the tail has taken it (and any gap read). */
    void feed(Published run) throws Exception {
        io.vertx.core.Promise<Void> done = io.vertx.core.Promise.promise();
        Runnable[] off = new Runnable[1];
        vertx.runOnContext(v -> {
            off[0] = tail.onAdvance(() -> done.tryComplete());
            feeder.accept(run);
        });
        join(done.future());
        off[0].run();
    }

    List<Long> revisionsAfter(long after) throws Exception {
        Watches.Filter all = Watches.Filter.keys("", k -> true);
        List<Long> out = new ArrayList<>();
        long cursor = after;
        while (true) {
            long from = cursor;
            Watches.Page p = join(Future.<Watches.Page>future(pr -> vertx.runOnContext(v -> watches.read(all, from, 3).onComplete(pr))));
            p.records().forEach(r -> out.add(r.revision()));
            cursor = p.cursor();
            if (!p.more()) return out;
        }
    }

    @Test
    void aMissedRunIsReadFromTheStoreBeforeTheNextIsServed() throws Exception {
        List<ChangeRecord> all = stored(1, 1, 2, 3, 5, 6, 8);
        feed(new Published(1, 0, 3, 3, all.subList(0, 3)));
        assertThat(tail.through()).isEqualTo(3);
        // The run (3, 6] never arrived; the next names where it starts.
        feed(new Published(1, 6, 9, 8, all.subList(5, 6)));
        assertThat(tail.through()).isEqualTo(9);
        assertThat(tail.last()).isEqualTo(8);
        assertThat(revisionsAfter(0)).containsExactly(1L, 2L, 3L, 5L, 6L, 8L);
        assertThat(revisionsAfter(5)).containsExactly(6L, 8L);
    }

    @Test
    void aRunOnlyTheStoreKnowsIsReadFromIt() throws Exception {
        List<ChangeRecord> all = stored(1, 1, 2, 4);
        feed(new Published(1, 0, 2, 2, all.subList(0, 2)));
        feed(Published.fromStore(1, 2, 5, 2));
        assertThat(revisionsAfter(0)).containsExactly(1L, 2L, 4L);
    }

    @Test
    void aLaterEpochMayStartBelowTheOldWatermarkAndOlderEpochsAreDropped() throws Exception {
        List<ChangeRecord> first = stored(1, 1, 2);
        // Epoch 1 handed out 3 and 4, which hold no record; its watermark reached 4.
        feed(new Published(1, 0, 4, 2, first));
        // Epoch 2 started above the last record, 2: its revisions 3 and 4 are new records.
        List<ChangeRecord> second = stored(2, 3, 4);
        feed(new Published(2, 2, 4, 4, second));
        assertThat(tail.epoch()).isEqualTo(2);
        assertThat(revisionsAfter(2)).as("the new epoch's records below the old watermark are served").containsExactly(3L, 4L);
        // A late run of epoch 1 changes nothing.
        feed(new Published(1, 4, 6, 2, List.of()));
        assertThat(tail.through()).isEqualTo(4);
        assertThat(revisionsAfter(0)).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void aNewEpochWhoseFirstRunsWereMissedIsReadFromTheStore() throws Exception {
        List<ChangeRecord> first = stored(1, 1, 2);
        // Epoch 1's watermark reached 6; revisions 3 to 6 hold no record.
        feed(new Published(1, 0, 6, 2, first));
        // Epoch 2 started at 2, wrote 3, 4 and 5; its runs up to 4 never arrived here, then a heartbeat at 5.
        stored(2, 3, 4, 5);
        feed(new Published(2, 5, 5, 5, List.of()));
        assertThat(revisionsAfter(2)).as("epoch 2's records below the old watermark, read from the store").containsExactly(3L, 4L, 5L);
        assertThat(tail.last()).isEqualTo(5);
    }

    @Test
    void readersBelowTheTailReadTheStoreAndMissNothing() throws Exception {
        long[] revisions = LongStream.rangeClosed(1, 20).toArray();
        List<ChangeRecord> all = stored(1, revisions);
        feed(new Published(1, 0, 20, 20, all));
        assertThat(tail.since(0, 0, 100).belowBase()).as("a tail of 8 dropped the oldest").isTrue();
        assertThat(revisionsAfter(0)).as("store, then tail, in pages of 3").containsExactlyElementsOf(LongStream.rangeClosed(1, 20).boxed().toList());
        assertThat(revisionsAfter(11)).containsExactlyElementsOf(LongStream.rangeClosed(12, 20).boxed().toList());
    }

    @Test
    void compactionReachesEveryTailAndReadersBelowItAreTold() throws Exception {
        List<ChangeRecord> all = stored(1, 1, 2, 3, 4);
        feed(new Published(1, 0, 4, 4, all));
        // Compaction removed 1 and 2 from the store and raised the floor; the next run carries it.
        join(store.transact(Transaction.of(List.of(Transaction.Op.deleteAny(Revisions.key(1)), Transaction.Op.deleteAny(Revisions.key(2)),
                Transaction.Op.put(Revisions.FLOOR_KEY, Revisions.floorBytes(2))))));
        feed(new Published(1, 4, 4, 4, List.of()).withFloor(2));
        assertThat(tail.since(1, 1, 10).belowBase()).isTrue();
        Watches.Filter everything = Watches.Filter.keys("", k -> true);
        Throwable gone = join(Future.<Throwable>future(pr -> vertx.runOnContext(v ->
                watches.read(everything, 1, 10).onComplete(ar -> pr.complete(ar.cause())))));
        assertThat(gone).isInstanceOf(Watches.Gone.class);
        assertThat(((Watches.Gone) gone).floor()).isEqualTo(2);
        assertThat(revisionsAfter(2)).containsExactly(3L, 4L);
    }

    @Test
    void aStoreReadStopsBeforeALaterEpochsRecordsUntilTheTailTakesThatEpoch() throws Exception {
        List<ChangeRecord> first = stored(1, 6, 7);
        // This node starts at epoch 1's watermark 10 (8 to 10 were refused writes): it holds nothing below 10.
        feed(new Published(1, 10, 10, 7, List.of()));
        // Epoch 2 started at 7; its 9 committed before its 8 (DynamoDB), neither published yet.
        stored(2, 9);
        assertThat(revisionsAfter(5)).as("a reader below the tail stops before epoch 2's unsettled records").containsExactly(6L, 7L);
        List<ChangeRecord> second = List.of(stored(2, 8).get(0), record(9, 2));
        feed(new Published(2, 7, 9, 9, second));
        assertThat(revisionsAfter(7)).containsExactly(8L, 9L);
        assertThat(first).hasSize(2);
    }

    @Test
    void aSmallPageOverManyHiddenRecordsIsReadInALoop() throws Exception {
        Tail big = new Tail(80_000, 1L << 30);
        TailFeeder bigFeeder = new TailFeeder(big, store);
        Watches bigWatches = new Watches(vertx.getOrCreateContext(), big, store);
        List<ChangeRecord> records = new ArrayList<>();
        for (long r = 1; r <= 70_000; r++) records.add(record(r, 1));
        records.add(ChangeRecord.of(70_001, 1, 0, List.of(new ChangeRecord.Change("rare/x", new byte[] {1})), null));
        io.vertx.core.Promise<Watches.Page> delivered = io.vertx.core.Promise.promise();
        vertx.runOnContext(v -> {
            bigFeeder.accept(new Published(1, 0, 70_001, 70_001, records));
            // A limit of one record a page, 70,000 pages of nothing this watcher may see before the one it may.
            bigWatches.watch(Watches.Filter.keys("rare/", k -> true), 0, 1, new Watches.Receiver() {
                @Override public Watches.Flow deliver(Watches.Page page) {
                    delivered.tryComplete(page);
                    return Watches.Flow.STOP;
                }

                @Override public void fail(Throwable cause) {
                    delivered.tryFail(cause);
                }
            });
        });
        Watches.Page page = join(delivered.future());
        assertThat(page.records()).extracting(ChangeRecord::revision).containsExactly(70_001L);
        assertThat(page.cursor()).isEqualTo(70_001L);
    }

    @Test
    void aRecordShownInPartCarriesNoCatalogEvent() {
        io.vertx.core.json.JsonObject event = new io.vertx.core.json.JsonObject().put("type", "tables_committed");
        ChangeRecord both = ChangeRecord.of(5, 1, 0, List.of(new ChangeRecord.Change("tbl/lab/a", new byte[] {1}),
                new ChangeRecord.Change("tbl/secret/b", new byte[] {1})), event);
        Watches.Filter lab = Watches.Filter.keys("", k -> k.startsWith("tbl/lab/"));
        ChangeRecord seen = lab.apply(both);
        assertThat(seen.changes()).extracting(ChangeRecord.Change::key).containsExactly("tbl/lab/a");
        assertThat(seen.event()).as("the event names the hidden table too").isNull();
        assertThat(Watches.Filter.keys("", k -> true).apply(both).event()).isEqualTo(event);
    }

    @Test
    void aLongRunIsPublishedInPartsAndEveryTailTakesItWhole() throws Exception {
        lake.feed.Feed feed = new lake.feed.Feed();
        Tail own = new Tail(10_000, 1L << 30);
        List<io.vertx.core.json.JsonObject> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
        vertx.eventBus().<io.vertx.core.json.JsonObject>consumer(lake.bus.Bus.FEED_RUNS, m -> messages.add(m.body()));
        Publisher publisher = new Publisher(vertx.getOrCreateContext(), feed, new TailFeeder(own, store), null);
        join(Future.<Void>future(p -> vertx.runOnContext(v -> publisher.start().onComplete(p))));
        lake.feed.Sequencer s = join(feed.sequencer(1, store));
        // 1,200 writes settle out of order while the publisher is busy elsewhere: one long run, cut into parts.
        List<Long> revisions = new ArrayList<>();
        for (int i = 0; i < 1_200; i++) revisions.add(s.allocate());
        java.util.Collections.reverse(revisions);
        for (long r : revisions) s.settle(r, record(r, 1));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> own.through() == 1_200);
        assertThat(messages.size()).as("parts of at most 512 records").isGreaterThanOrEqualTo(3);
        long at = messages.get(0).getString("from").equals("0") ? 0 : -1;
        for (io.vertx.core.json.JsonObject m : messages) {
            if (m.getJsonArray("records") == null || m.getJsonArray("records").isEmpty()) continue;
            assertThat(Long.parseLong(m.getString("from"))).as("each part starts where the last ended").isEqualTo(at);
            assertThat(m.getJsonArray("records").size()).isLessThanOrEqualTo(Publisher.MAX_RECORDS_PER_MESSAGE);
            at = Long.parseLong(m.getString("to"));
        }
        List<Long> held = new ArrayList<>();
        for (ChangeRecord r : own.since(0, 0, 2_000).records()) held.add(r.revision());
        assertThat(held).containsExactlyElementsOf(LongStream.rangeClosed(1, 1_200).boxed().toList());
        join(Future.<Void>future(p -> vertx.runOnContext(v -> publisher.stop().onComplete(p))));
    }
}
