package lake.meta.rocks;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import lake.meta.GuardedMutation;
import lake.meta.KeyValue;
import lake.meta.Keys;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.Transaction.Action;
import lake.meta.Transaction.Condition;
import lake.meta.TransactionOutcome;
import lake.meta.rocks.ConditionalWrite.Step;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Filter;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The embedded RocksDB {@link MetaStore}.
 *
 * <p>Thread model: mutations go to the single {@link RocksWriter} thread (group commit, one
 * fsynced WriteBatch per group); reads run on a small dedicated reader pool. No RocksDB call runs
 * on a Vert.x event loop ({@link EventLoops} fails loudly if one ever would), and every future
 * completes on the caller's Vert.x context when the caller has one.
 *
 * <p>Input is validated by {@link Keys} on the calling thread before anything is queued, so bad
 * input fails with {@link MetaException.InvalidArgument} and writes nothing.
 */
public final class RocksMetaStore implements MetaStore {
    private static final int READER_THREADS = 2;

    private final Path path;
    private final Options options;
    /** The Bloom filter policy the tables were configured with: a native handle that must outlive the db. */
    private final Filter filter;
    private final WriteOptions syncWrites;
    private final RocksDB db;
    private final RocksWriter writer;
    private final ExecutorService readers;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final Promise<Void> closed = Promise.promise();
    private volatile boolean accepting = true;

    private RocksMetaStore(Path path, Options options, Filter filter, RocksDB db, RocksConfig config) {
        this.path = path;
        this.options = options;
        this.filter = filter;
        this.db = db;
        this.syncWrites = new WriteOptions().setSync(true);
        AtomicInteger readerIds = new AtomicInteger();
        this.readers = Executors.newFixedThreadPool(READER_THREADS, r -> {
            Thread t = new Thread(r, "rocks-reader-" + readerIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.writer = new RocksWriter(db, syncWrites, config, this::releaseHandles);
        this.writer.start();
    }

    /**
     * Opens (creating when missing) the store at {@code config.path()}. Blocking: call it from a
     * worker or with {@link #open(Vertx, RocksConfig)}, never on an event loop.
     *
     * @throws MetaException.StoreLocked when another process (or another open store) holds the directory
     */
    public static RocksMetaStore open(RocksConfig config) {
        EventLoops.requireOffEventLoop("RocksMetaStore.open");
        Path path = config.path().toAbsolutePath();
        try {
            Files.createDirectories(path);
        } catch (IOException e) {
            throw new MetaException.PermanentBackend("cannot create data directory " + path + ": " + e.getMessage(), e);
        }
        RocksDB.loadLibrary();
        Filter filter = new BloomFilter(BLOOM_BITS_PER_KEY);
        Options options = tuned(filter);
        try {
            return new RocksMetaStore(path, options, filter, RocksDB.open(options, path.toString()), config);
        } catch (RocksDBException e) {
            options.close();
            filter.close();
            if (RocksErrors.isLockHeld(e)) throw new MetaException.StoreLocked(path.toString(), e);
            throw RocksErrors.map("open of " + path, e);
        }
    }

    /** Bits per key of the tables' and the memtable's Bloom filters: about a 1 % false-positive rate. */
    static final double BLOOM_BITS_PER_KEY = 10;

    /**
     * The database's options. Most lookups the writer makes are of keys that do not exist: every
     * create (a guarded put with {@code expected: null}, a catalog registration) checks that its
     * key is absent. Without filters such a lookup searches every level-0 table and one table per
     * level below, so its cost grows with the store and with how far compaction lags (profiled on
     * 5 December 2026: 0.16 ms of writer CPU per 1,000 creates after a compaction, 2.36 ms during
     * one). Whole-key Bloom filters on the tables, and on the memtable, answer "absent" from
     * memory in almost every case; the writer is the store's one serial stage, so this time is
     * every write's latency. Tables written before the filters keep working without them.
     */
    static Options tuned(Filter filter) {
        BlockBasedTableConfig tables = new BlockBasedTableConfig().setFilterPolicy(filter).setWholeKeyFiltering(true);
        return new Options().setCreateIfMissing(true).setKeepLogFileNum(4).setTableFormatConfig(tables)
                .setMemtablePrefixBloomSizeRatio(0.02).setMemtableWholeKeyFiltering(true);
    }

    /** Opens the store on a Vert.x worker thread; the future completes on the caller's context. */
    public static Future<RocksMetaStore> open(Vertx vertx, RocksConfig config) {
        return vertx.executeBlocking(() -> open(config), false);
    }

    /** The absolute data directory this store holds. */
    public Path path() {
        return path;
    }

    /** The writer's counters: groups, fsynced writes and mutations evaluated so far. */
    public RocksStats stats() {
        return writer.stats();
    }

    // ---- reads --------------------------------------------------------------------------------

    @Override
    public Future<Optional<byte[]>> get(String key) {
        byte[] k;
        try {
            k = Keys.validateKey(key);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return read("get", () -> Optional.ofNullable(db.get(k)));
    }

    @Override
    public Future<ScanPage> scanPrefix(String prefix, String continuation, int limit) {
        byte[] prefixBytes;
        String resumeAfter;
        try {
            prefixBytes = Keys.validatePrefix(prefix);
            Keys.validateLimit(limit);
            resumeAfter = ScanPage.resumeAfter(prefix, continuation);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return read("scan", () -> scan(prefixBytes, resumeAfter, limit));
    }

    @Override
    public Future<Optional<String>> lastKey(String prefix) {
        byte[] prefixBytes;
        try {
            prefixBytes = Keys.validatePrefix(prefix);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return read("last key", () -> last(prefixBytes));
    }

    /**
     * Seeks to the last key below the prefix's successor (the prefix with its last byte that is
     * not 0xff incremented, the rest dropped) or, when the prefix has none, to the very last key.
     */
    private Optional<String> last(byte[] prefix) throws RocksDBException {
        try (RocksIterator it = db.newIterator()) {
            byte[] successor = successor(prefix);
            if (successor == null) {
                it.seekToLast();
            } else {
                it.seekForPrev(successor);
                if (it.isValid() && Arrays.equals(it.key(), successor)) it.prev();
            }
            Optional<String> found = it.isValid() && startsWith(it.key(), prefix)
                    ? Optional.of(new String(it.key(), StandardCharsets.UTF_8)) : Optional.empty();
            it.status();
            return found;
        }
    }

    /** The least byte string greater than every string that starts with {@code prefix}; null if none is. */
    static byte[] successor(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xff) {
                byte[] s = Arrays.copyOf(prefix, i + 1);
                s[i]++;
                return s;
            }
        }
        return null;
    }

    /** One page: seek, then walk ascending byte order while keys carry the prefix. */
    private ScanPage scan(byte[] prefix, String resumeAfter, int limit) {
        List<KeyValue> entries = new ArrayList<>(Math.min(limit, 1024));
        try (RocksIterator it = db.newIterator()) {
            if (resumeAfter == null) {
                it.seek(prefix);
            } else {
                byte[] after = resumeAfter.getBytes(StandardCharsets.UTF_8);
                it.seek(after);
                if (it.isValid() && Arrays.equals(it.key(), after)) it.next();
            }
            String last = null;
            while (it.isValid() && startsWith(it.key(), prefix)) {
                if (entries.size() == limit) {
                    return new ScanPage(entries, ScanPage.continuationAfter(new String(prefix, StandardCharsets.UTF_8), last));
                }
                last = new String(it.key(), StandardCharsets.UTF_8);
                entries.add(new KeyValue(last, it.value()));
                it.next();
            }
            it.status();
        } catch (RocksDBException e) {
            throw RocksErrors.map("scan", e);
        }
        return new ScanPage(entries, null);
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    private interface RocksRead<T> {
        T run() throws RocksDBException;
    }

    private <T> Future<T> read(String what, RocksRead<T> call) {
        Context context = Vertx.currentContext();
        Promise<T> promise = Promise.promise();
        if (!accepting) return Future.failedFuture(new MetaException.StoreClosed());
        try {
            readers.execute(() -> {
                try {
                    EventLoops.requireOffEventLoop("RocksMetaStore." + what);
                    CallerContext.succeed(context, promise, call.run());
                } catch (RocksDBException e) {
                    CallerContext.fail(context, promise, RocksErrors.map(what, e));
                } catch (RuntimeException e) {
                    CallerContext.fail(context, promise, e);
                }
            });
        } catch (RejectedExecutionException e) {
            return Future.failedFuture(new MetaException.StoreClosed());
        }
        return promise.future();
    }

    // ---- mutations ----------------------------------------------------------------------------

    @Override
    public Future<Boolean> cas(String key, byte[] expected, byte[] value) {
        byte[] k;
        try {
            k = Keys.validateKey(key);
            Keys.validateExpected("expected value", expected);
            Keys.validateValue("value", value);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        Step step = expected == null
                ? new Step(key, k, Condition.ABSENT, null, Action.PUT, value.clone())
                : new Step(key, k, Condition.VALUE, expected.clone(), Action.PUT, value.clone());
        return submit(null, null, null, new Step[] {step}, TransactionOutcome::applied);
    }

    @Override
    public Future<Boolean> delete(String key, byte[] expected) {
        byte[] k;
        try {
            k = Keys.validateKey(key);
            Keys.validateValue("expected value", expected);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        Step step = new Step(key, k, Condition.VALUE, expected.clone(), Action.DELETE, null);
        return submit(null, null, null, new Step[] {step}, TransactionOutcome::applied);
    }

    /** The mutation's one-operation guarded transaction, through the same unit as {@link #transact}. */
    @Override
    public Future<Boolean> guardedMutate(GuardedMutation m) {
        if (m == null) return Future.failedFuture(new MetaException.InvalidArgument("mutation must not be null"));
        return submit(m.asTransaction(), TransactionOutcome::applied);
    }

    /** One writer unit: the guard and every operation are checked in one step of the single writer. */
    @Override
    public Future<TransactionOutcome> transact(Transaction t) {
        if (t == null) return Future.failedFuture(new MetaException.InvalidArgument("transaction must not be null"));
        return submit(t, outcome -> outcome);
    }

    private <T> Future<T> submit(Transaction t, Function<TransactionOutcome, T> result) {
        // Transaction validated every key; its accessors hand out copies the unit then owns.
        List<Transaction.Op> ops = t.ops();
        Step[] steps = new Step[ops.size()];
        for (int i = 0; i < steps.length; i++) {
            Transaction.Op op = ops.get(i);
            steps[i] = new Step(op.key(), op.key().getBytes(StandardCharsets.UTF_8), op.condition(), op.expected(),
                    op.action(), op.value());
        }
        byte[] guardExpected = t.guardExpected();
        String guardKey = guardExpected == null ? null : t.guardKey().orElseThrow();
        return submit(guardKey, guardKey == null ? null : guardKey.getBytes(StandardCharsets.UTF_8), guardExpected, steps, result);
    }

    private <T> Future<T> submit(String guardKey, byte[] guardKeyBytes, byte[] guardExpected, Step[] steps,
                                 Function<TransactionOutcome, T> result) {
        if (!accepting) return Future.failedFuture(new MetaException.StoreClosed());
        ConditionalWrite<T> w = new ConditionalWrite<>(guardKey, guardKeyBytes, guardExpected, steps, Vertx.currentContext(), result);
        writer.submit(w);
        return w.future();
    }

    // ---- lifecycle ----------------------------------------------------------------------------

    /**
     * Stops accepting calls, lets the writer finish what is queued, waits for in-flight reads,
     * then releases every native handle. Idempotent: only the first call closes, and every call's
     * future completes when that close has (on the caller's context, when it has one).
     */
    @Override
    public Future<Void> close() {
        if (closing.compareAndSet(false, true)) {
            accepting = false;
            writer.requestStop();
        }
        Context context = Vertx.currentContext();
        if (context == null) return closed.future();
        Promise<Void> onCaller = Promise.promise();
        closed.future().onComplete(ar -> CallerContext.run(context, () -> onCaller.handle(ar)));
        return onCaller.future();
    }

    /** Runs on the writer thread once it has stopped: no writer, then no reader, touches the db any more. */
    private void releaseHandles() {
        try {
            readers.shutdown();
            boolean drained = false;
            while (!drained) {
                try {
                    drained = readers.awaitTermination(1, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    // Keep waiting: closing the db under a running read would crash the JVM.
                }
            }
            syncWrites.close();
            db.closeE();
            options.close();
            filter.close();
            CallerContext.contained(closed::tryComplete);
        } catch (RocksDBException e) {
            // closeE releases the db's native handle even when closing reports an error.
            options.close();
            filter.close();
            CallerContext.contained(() -> closed.tryFail(RocksErrors.map("close of " + path, e)));
        }
    }
}
