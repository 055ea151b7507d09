package lake.meta.rocks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BloomFilter;
import org.rocksdb.Filter;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.PerfContext;
import org.rocksdb.PerfLevel;
import org.rocksdb.RocksDB;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import static lake.meta.rocks.RocksAwait.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's RocksDB options answer "this key does not exist" (what every create checks) from
 * Bloom filters, on the tables and on the memtable, rather than by searching them; and a store
 * opens and reads tables written before it had filters.
 */
class RocksFiltersTest {
    private static final byte[] VALUE = "v".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private static byte[] key(String k) {
        return k.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void absentKeyLookupsAreAnsweredByTableAndMemtableFilters() throws Exception {
        RocksDB.loadLibrary();
        try (Filter filter = new BloomFilter(RocksMetaStore.BLOOM_BITS_PER_KEY);
             Options options = RocksMetaStore.tuned(filter);
             Statistics stats = new Statistics()) {
            options.setStatistics(stats);
            try (RocksDB db = RocksDB.open(options, dir.toString());
                 FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                for (int i = 0; i < 2_000; i++) db.put(key("tables/" + i), VALUE);
                db.flush(flush);
                long usefulBefore = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL);
                for (int i = 0; i < 1_000; i++) assertNull(db.get(key("absent/" + i)));
                long skipped = stats.getTickerCount(TickerType.BLOOM_FILTER_USEFUL) - usefulBefore;
                // About 1 % false positives at 10 bits per key; without a filter the count stays 0.
                assertTrue(skipped >= 950, "table filters skipped " + skipped + " of 1,000 absent-key lookups");
                assertArrayEquals(VALUE, db.get(key("tables/1234")), "a present key is still found through the filter");

                for (int i = 0; i < 2_000; i++) db.put(key("memtable/" + i), VALUE);
                // The memtable's filter counts in this thread's perf context, not in the statistics.
                db.setPerfLevel(PerfLevel.ENABLE_COUNT);
                PerfContext perf = db.getPerfContext();
                perf.reset();
                for (int i = 0; i < 1_000; i++) assertNull(db.get(key("absent-too/" + i)));
                long memtableMisses = perf.getBloomMemtableMissCount();
                db.setPerfLevel(PerfLevel.DISABLE);
                assertTrue(memtableMisses >= 950, "the memtable filter answered " + memtableMisses + " of 1,000 absent-key lookups");
                assertArrayEquals(VALUE, db.get(key("memtable/1999")));
            }
        }
    }

    /**
     * The test above exercises {@link RocksMetaStore#tuned}; this one checks that the store the
     * service opens is built from it: RocksDB records a database's options in its latest
     * {@code OPTIONS-*} file, so a store opened without them would show no filter policy there.
     */
    @Test
    void theServicesStoreIsOpenedWithBothFilters() throws Exception {
        Path db = dir.resolve("service");
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(db));
        await(store.close());
        Path latest;
        try (var files = Files.list(db)) {
            latest = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .max(Comparator.comparing(f -> Long.parseLong(f.getFileName().toString().substring("OPTIONS-".length()))))
                    .orElseThrow(() -> new AssertionError("no OPTIONS file in " + db));
        }
        List<String> options = Files.readAllLines(latest).stream().map(String::strip).toList();
        for (String expected : List.of("filter_policy=bloomfilter:" + (long) RocksMetaStore.BLOOM_BITS_PER_KEY + ":false",
                "whole_key_filtering=true", "memtable_whole_key_filtering=true", "memtable_prefix_bloom_size_ratio=0.020000")) {
            assertTrue(options.contains(expected), latest.getFileName() + " lacks " + expected);
        }
    }

    @Test
    void tablesWrittenWithoutFiltersStayReadable() throws Exception {
        Path db = dir.resolve("db");
        RocksDB.loadLibrary();
        try (Options plain = new Options().setCreateIfMissing(true);
             RocksDB old = RocksDB.open(plain, db.toString());
             FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            old.put(key("before/filters"), VALUE);
            old.flush(flush);
        }
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(db));
        try {
            Optional<byte[]> found = await(store.get("before/filters"));
            assertArrayEquals(VALUE, found.orElseThrow());
            assertEquals(Optional.empty(), await(store.get("never/written")));
        } finally {
            await(store.close());
        }
    }
}
