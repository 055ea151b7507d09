package lake.catalog;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import lake.catalog.events.CatalogEvents;
import lake.catalog.model.CatalogException;
import lake.catalog.model.CatalogKeys;
import lake.catalog.model.CatalogNames;
import lake.catalog.model.Namespace;
import lake.catalog.model.PurgeJob;
import lake.catalog.model.Registration;
import lake.catalog.model.Table;
import lake.catalog.model.Tombstone;
import lake.meta.KeyValue;
import lake.meta.Transaction;
import lake.meta.Transaction.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static lake.catalog.model.CatalogNames.checkName;

/**
 * The purge queue (docs/catalog.md, "The life of a dropped table"): dropped tables whose files
 * are to be deleted, and every step of their purge as a fenced compare-and-set. A job enters
 * with a drop that asked for it ({@link Catalog#dropTable(String, String, String, List, String, JsonObject, boolean)}),
 * by {@link #request}, or when its retention ends ({@link #enqueueExpired}). The worker
 * ({@code lake.purge}) then {@link #claim claims} each batch before deleting it — the claim
 * checks the job's and the tombstone's exact bytes, so an undrop or another leader's claim in
 * between makes it fail and the worker deletes nothing — records its {@link #progress}, and
 * {@link #finish finishes} by deleting job and tombstone together.
 */
public final class PurgeQueue {
    public static final int MAX_PAGE = 1000;

    private final Catalog catalog;
    private final CatalogPort port;
    private final java.util.function.LongSupplier wallMillis;

    /** A job and the exact bytes it was read from (every change is conditioned on them). */
    public record Entry(PurgeJob job, byte[] bytes) {}

    public record Page(List<Entry> entries, String continuation) {
        public Page { entries = List.copyOf(entries); }
    }

    /** A dropped table: its tombstone and the exact bytes of it. */
    public record Dropped(Tombstone tombstone, byte[] bytes) {}

    /** The queue as {@code catalog} sees it: through its port, on its clock. */
    public PurgeQueue(Catalog catalog) {
        this.catalog = catalog;
        this.port = catalog.port();
        this.wallMillis = catalog.wallMillis;
    }

    /** One page of the queue in key order (by namespace, name, incarnation). */
    public Future<Page> page(String continuation, int limit) {
        return Catalog.start(() -> {
            CatalogNames.checkLimit(limit, MAX_PAGE);
            return port.scan(CatalogKeys.PURGE_QUEUE, continuation, limit).map(p -> new Page(
                    p.entries().stream().map(kv -> new Entry(PurgeJob.parse(kv.key(), kv.value()), kv.value())).toList(), p.continuation()));
        });
    }

    /**
     * Queues the purge of a dropped table now (its retention notwithstanding); the job as it is
     * after. A job already queued or purging is answered as it is; a refused one is queued again
     * (its reason may have gone: the other table sharing the location was dropped).
     */
    public Future<PurgeJob> request(String ns, String name, String incarnationId) {
        return request(ns, name, incarnationId, null);
    }

    /**
     * As {@link #request(String, String, String)}, of a dropped table of {@code engine} only
     * ({@code null}: any); {@link CatalogException.NotFound} naming its engine when the dropped
     * table found is of another (the Iceberg face's dropped views are not its dropped tables).
     */
    public Future<PurgeJob> request(String ns, String name, String incarnationId, String engine) {
        return Catalog.start(() -> {
            checkName("namespace", ns);
            checkName("table name", name);
            if (incarnationId != null) checkName("incarnation_id", incarnationId);
            return catalog.retrying("purge dropped table '" + ns + "." + name + "'", () -> catalog.readTombstone(ns, name, incarnationId)
                    .compose(tomb -> {
                        String found = tomb.value().registration().engine();
                        if (engine != null && !engine.equals(found)) {
                            return Future.failedFuture(new CatalogException.NotFound("the dropped table '" + ns + "." + name + "' is a "
                                    + found + " table, not " + engine));
                        }
                        String key = CatalogKeys.purgeJob(ns, name, tomb.value().incarnation());
                        return port.get(key).compose(stored -> {
                            PurgeJob existing = stored.map(b -> PurgeJob.parse(key, b)).orElse(null);
                            if (existing != null && existing.state() != PurgeJob.State.REFUSED) return Future.succeededFuture(Optional.of(existing));
                            PurgeJob job = PurgeJob.queued(ns, name, tomb.value().incarnation(), PurgeJob.Reason.REQUESTED, wallMillis.getAsLong());
                            Op write = existing == null ? Op.create(key, job.encode()) : Op.update(key, stored.get(), job.encode());
                            return catalog.apply(Transaction.of(List.of(Op.checkValue(tomb.value().key(), tomb.bytes()), write)), null)
                                    .map(o -> o.applied() ? Optional.of(job) : Optional.<PurgeJob>empty());
                        });
                    }));
        });
    }

    /**
     * Queues every dropped table whose retention has ended by now (the node's
     * {@code defaultRetentionMs}, or its namespace's {@value CatalogNames#RETENTION_PROPERTY}),
     * reading at most {@code maxTombstones} tombstones from {@code continuation}; the count queued and where to go on.
     * A tombstone written before drops were timed never expires by itself (purge it on request).
     */
    public Future<Swept> enqueueExpired(long defaultRetentionMs, String continuation, int maxTombstones) {
        return Catalog.start(() -> port.scan(CatalogKeys.TOMBSTONES, continuation, Math.min(maxTombstones, MAX_PAGE)).compose(p -> {
            long now = wallMillis.getAsLong();
            Map<String, Future<Long>> retention = new HashMap<>();
            List<Future<Boolean>> queued = new ArrayList<>();
            for (KeyValue kv : p.entries()) {
                Tombstone t = Tombstone.parse(kv.key(), kv.value());
                if (t.droppedMs() == null || t.incarnation() == null) continue;
                queued.add(retention.computeIfAbsent(t.namespace(), ns -> retentionMs(ns, defaultRetentionMs)).compose(ms -> {
                    if (Long.compareUnsigned(now, t.droppedMs()) < 0 || now - t.droppedMs() < ms) return Future.succeededFuture(false);
                    PurgeJob job = PurgeJob.queued(t.namespace(), t.name(), t.incarnation(), PurgeJob.Reason.RETENTION, now);
                    // Only while the tombstone is exactly as read (not undropped, not purged) and no job exists.
                    return catalog.apply(Transaction.of(List.of(Op.checkValue(kv.key(), kv.value()), Op.create(job.key(), job.encode()))), null)
                            .map(o -> o.applied());
                }));
            }
            return Future.join(queued).transform(done -> {
                int n = 0;
                for (Future<Boolean> f : queued) if (f.succeeded() && f.result()) n++;
                Throwable failed = queued.stream().filter(Future::failed).map(Future::cause).findFirst().orElse(null);
                return failed != null && n == 0 ? Future.failedFuture(failed) : Future.succeededFuture(new Swept(n, p.continuation()));
            });
        }));
    }

    /** What one {@link #enqueueExpired} call queued, and the continuation of the tombstones left to read ({@code null}: all read). */
    public record Swept(int queued, String continuation) {}

    /** How long tables dropped from {@code ns} are kept: its property, else {@code defaultMs} (also when the namespace is gone). */
    public Future<Long> retentionMs(String ns, long defaultMs) {
        return port.get(CatalogKeys.namespace(ns)).map(v -> {
            if (v.isEmpty()) return defaultMs;
            String p = Namespace.parse(ns, v.get()).properties().get(CatalogNames.RETENTION_PROPERTY);
            return p == null ? defaultMs : CatalogNames.retentionMs(ns, p);
        });
    }

    /**
     * When a tombstone's retention ends; {@code null} when it never ends by itself: a drop from
     * before drops were timed, or a retention so long its end is past what a long holds (a
     * "keep forever" setting such as {@link Long#MAX_VALUE}, for a legal hold).
     */
    public static Long expiresMs(Tombstone t, long retentionMs) {
        if (t.droppedMs() == null) return null;
        long end = t.droppedMs() + retentionMs;
        return end < t.droppedMs() ? null : end; // both are non-negative: a sum below either overflowed
    }

    /** The job's tombstone as stored now, if it still exists. */
    public Future<Optional<Dropped>> tombstone(PurgeJob job) {
        String key = CatalogKeys.tombstone(job.namespace(), job.name(), job.incarnation());
        return port.get(key).map(v -> v.map(b -> new Dropped(Tombstone.parse(key, b), b)));
    }

    /**
     * Claims one more batch of at most {@code batchFiles} files, in {@code phase} after {@code from}, for the leader of {@code epoch}:
     * the job moves to {@code purging} only while it and its tombstone are exactly as read. Empty
     * when either changed (undropped, purged by hand, claimed by another leader): then nothing may
     * be deleted. The phase is recorded before its first file goes, so a next leader never looks
     * for the files of a phase done in files already deleted.
     */
    public Future<Optional<Entry>> claim(Entry e, Dropped tomb, long epoch, PurgeJob.Phase phase, String from, int batchFiles) {
        PurgeJob next = e.job().claimed(epoch, phase, from, batchFiles);
        return update(e, next, List.of(Op.checkValue(tomb.tombstone().key(), tomb.bytes())));
    }

    /**
     * Records a batch done: {@code last} its last file (the next batch starts after it), {@code count}
     * the files it deleted, {@code outside} the files it named outside the location and left.
     */
    public Future<Optional<Entry>> progress(Entry e, String last, long count, long outside) {
        return update(e, e.job().progressed(last, count, outside), List.of());
    }

    /**
     * Records a batch done ({@code last}, {@code count}, {@code outside} as for {@link #progress};
     * none when {@code last} is {@code null}) and, with a {@code claimEpoch}, claims one more batch
     * of {@code phase} for that epoch, starting after the point just recorded — one transaction,
     * which with a claim also checks the tombstone's bytes, as {@link #claim} does. So a worker
     * keeps one delete in flight while it records the batch before and claims the batch after.
     */
    public Future<Optional<Entry>> advance(Entry e, Dropped tomb, String last, long count, long outside, Long claimEpoch, PurgeJob.Phase phase,
                                           int batchFiles) {
        PurgeJob next = last == null ? e.job() : e.job().progressed(last, count, outside);
        if (claimEpoch == null) return update(e, next, List.of());
        return update(e, next.claimed(claimEpoch, phase, next.after(), batchFiles), List.of(Op.checkValue(tomb.tombstone().key(), tomb.bytes())));
    }

    /** The job refused ({@code why}): nothing is deleted until it is requested again. */
    public Future<Optional<Entry>> refuse(Entry e, String why) {
        return update(e, e.job().refused(why), List.of());
    }

    /** The purge done: job and tombstone deleted together, on their exact bytes; the event names what was deleted. */
    public Future<Boolean> finish(Entry e, Dropped tomb, JsonObject detail) {
        PurgeJob j = e.job();
        JsonObject event = CatalogEvents.tombstonePurged(j.namespace(), j.name(), j.incarnation()).put("files_deleted", j.deleted())
                .put("reason", j.reason().name().toLowerCase(java.util.Locale.ROOT));
        if (detail != null) event.mergeIn(detail);
        return catalog.apply(Transaction.of(List.of(Op.delete(j.key(), e.bytes()), Op.delete(tomb.tombstone().key(), tomb.bytes()))), event)
                .map(o -> o.applied());
    }

    /** A job whose tombstone is gone (purged by hand): removed, on its exact bytes. */
    public Future<Boolean> discard(Entry e) {
        return catalog.apply(Transaction.of(List.of(Op.delete(e.job().key(), e.bytes()),
                Op.checkAbsent(CatalogKeys.tombstone(e.job().namespace(), e.job().name(), e.job().incarnation())))), null).map(o -> o.applied());
    }

    /** One page of every live table's registration, across namespaces (a purge's check for tables sharing its location). */
    public Future<Catalog.TablePage> liveTables(String continuation, int limit) {
        return Catalog.start(() -> {
            CatalogNames.checkLimit(limit, MAX_PAGE);
            return port.scan(CatalogKeys.TABLES, continuation, limit).map(p -> new Catalog.TablePage(p.entries().stream().map(kv -> {
                String[] seg = CatalogKeys.segments(CatalogKeys.TABLES, kv.key());
                return new Table(seg[0], seg[1], Registration.parse("registration " + kv.key(), kv.value()));
            }).toList(), p.continuation()));
        });
    }

    private Future<Optional<Entry>> update(Entry e, PurgeJob next, List<Op> checks) {
        byte[] bytes = next.encode();
        List<Op> ops = new ArrayList<>(checks.size() + 1);
        ops.add(Op.update(e.job().key(), e.bytes(), bytes));
        ops.addAll(checks);
        return catalog.apply(Transaction.of(ops), null).map(o -> o.applied() ? Optional.of(new Entry(next, bytes)) : Optional.empty());
    }

    /** The job of a dropped table's incarnation, if one is queued. */
    public Future<Optional<Entry>> job(String ns, String name, String incarnation) {
        String key = CatalogKeys.purgeJob(ns, name, incarnation);
        return port.get(key).map(v -> v.map(b -> new Entry(PurgeJob.parse(key, b), b)));
    }
}
