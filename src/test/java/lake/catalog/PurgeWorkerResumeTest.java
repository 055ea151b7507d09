package lake.catalog;

import io.vertx.core.Vertx;
import lake.catalog.model.CatalogKeys;
import lake.catalog.model.PurgeJob;
import lake.catalog.model.Table;
import lake.config.LifecycleSettings;
import lake.meta.MetaStore;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.purge.PurgeWorker;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The purge worker's resume point ({@code after}) against a warehouse whose bulk delete fails for
 * some keys (S3 {@code DeleteObjects} answers per key: {@code InternalError}, {@code SlowDown}):
 * a batch with a failed key must not move the resume point past it, or the next listing — which
 * starts after that point — never sees the file again and the purge finishes with it left
 * behind. Every file is deleted exactly once, and the job's count is exact. Over a real RocksDB
 * store; the warehouse is in memory.
 */
class PurgeWorkerResumeTest extends CatalogFixture {
    @TempDir Path dir;

    @Override
    protected MetaStore openStore(Vertx vertx) {
        return RocksMetaStore.open(RocksConfig.defaults(dir.resolve("db")));
    }

    @Test
    void aBatchWithAFailedDeleteDoesNotMoveTheResumePointPastIt() throws Exception {
        newNamespace("ns");
        Table t = newTable("ns", "t");
        String location = t.registration().location();
        String incarnation = t.registration().incarnationId().orElseThrow();
        Warehouse io = new Warehouse();
        for (int i = 0; i < 12; i++) io.files.add(location + "/data/f" + String.format("%02d", i));
        io.failOnce.add(location + "/data/f03");
        io.failOnce.add(location + "/data/f09");
        String other = ROOT + "/ns/other/x/keep";
        io.files.add(other);

        await(catalog.dropTable("ns", "t"));
        PurgeQueue queue = new PurgeQueue(catalog);
        await(queue.request("ns", "t", incarnation));
        PurgeWorker worker = new PurgeWorker(vertx.getOrCreateContext(), io, ROOT, new LifecycleSettings(3_600_000, 100, 5), NOTHING);

        List<PurgeWorker.Pass> passes = new ArrayList<>();
        for (int i = 0; i < 5 && await(queue.job("ns", "t", incarnation)).isPresent(); i++) passes.add(await(worker.pass(queue, 1, 16)));

        assertThat(io.files).as("nothing of the table is left behind; another location untouched (passes: " + passes + ")").containsExactly(other);
        assertThat(io.deletions).as("every file deleted once").hasSize(12).allSatisfy((f, n) -> assertThat(n).as(f).isEqualTo(1));
        assertThat(io.missing).as("no delete of a file already gone").isEmpty();
        assertThat(await(queue.job("ns", "t", incarnation))).as("the job finished").isEmpty();
        assertThat(raw(CatalogKeys.tombstone("ns", "t", incarnation))).as("the tombstone went with it").isNull();
        assertThat(passes.stream().mapToLong(PurgeWorker.Pass::deleted).sum()).as("files counted as deleted").isEqualTo(12);
    }

    @Test
    void theResumePointStaysWhereAFailedBatchBegan() throws Exception {
        newNamespace("ns");
        Table t = newTable("ns", "t");
        String location = t.registration().location();
        String incarnation = t.registration().incarnationId().orElseThrow();
        Warehouse io = new Warehouse();
        for (int i = 0; i < 12; i++) io.files.add(location + "/data/f" + String.format("%02d", i));
        io.failOnce.add(location + "/data/f07");

        await(catalog.dropTable("ns", "t"));
        PurgeQueue queue = new PurgeQueue(catalog);
        await(queue.request("ns", "t", incarnation));
        PurgeWorker worker = new PurgeWorker(vertx.getOrCreateContext(), io, ROOT, new LifecycleSettings(3_600_000, 100, 5), NOTHING);

        PurgeWorker.Pass first = await(worker.pass(queue, 1, 16));
        PurgeJob job = await(queue.job("ns", "t", incarnation)).orElseThrow().job();
        assertThat(first.batches()).as("the pass stops at the failed batch").isEqualTo(2);
        assertThat(job.deleted()).as("its count holds what was deleted").isEqualTo(9);
        assertThat(job.after()).as("the resume point: the end of the last batch deleted whole").isEqualTo(location + "/data/f04");
        assertThat(io.files).containsExactly(location + "/data/f07", location + "/data/f10", location + "/data/f11");
    }

    private static final PurgeWorker.Meters NOTHING = new PurgeWorker.Meters() {
        @Override public void deleted(long files) {}
        @Override public void batch() {}
        @Override public void finished() {}
        @Override public void refused() {}
        @Override public void queueDepth(long jobs) {}
        @Override public void pass() {}
    };

    /** Files in memory; a bulk delete fails the first time for each path in {@link #failOnce}, as S3 reports per key. */
    static final class Warehouse implements FileIO, SupportsPrefixOperations, SupportsBulkOperations {
        final Set<String> files = new ConcurrentSkipListSet<>();
        final Set<String> failOnce = ConcurrentHashMap.newKeySet();
        final Map<String, Integer> deletions = new ConcurrentHashMap<>();
        final List<String> missing = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
            int failed = 0;
            Set<String> seen = new HashSet<>();
            for (String p : paths) {
                if (!seen.add(p)) continue;
                if (failOnce.remove(p)) {
                    failed++;
                } else if (files.remove(p)) {
                    deletions.merge(p, 1, Integer::sum);
                } else {
                    missing.add(p);
                }
            }
            if (failed > 0) throw new BulkDeletionFailureException(failed);
        }

        @Override
        public void deleteFile(String path) {
            deleteFiles(List.of(path));
        }

        @Override
        public Iterable<FileInfo> listPrefix(String prefix) {
            return files.stream().filter(f -> f.startsWith(prefix)).map(f -> new FileInfo(f, 1, 0)).toList();
        }

        @Override
        public void deletePrefix(String prefix) {
            throw new UnsupportedOperationException("no prefix deletes");
        }

        @Override
        public InputFile newInputFile(String path) {
            throw new UnsupportedOperationException();
        }

        @Override
        public OutputFile newOutputFile(String path) {
            throw new UnsupportedOperationException();
        }
    }
}
