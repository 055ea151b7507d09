package lake.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import lake.meta.GuardedMutation;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;
import lake.metasrv.Leadership;
import lake.protocol.Ops;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The metrics of one node, in the registry {@code GET /metrics} serves (Prometheus names in
 * docs/operations.md). Every meter carries the tag {@code node}.
 *
 * <p>Meters a healthy node records on every request are registered up front and looked up without
 * allocating (two map reads); only a rare outcome registers its timer on first use.
 */
public final class NodeMetrics {
    /** Outcome of a write whose condition held / did not hold; reads that succeeded are {@code ok}. */
    public static final String APPLIED = "applied";
    public static final String NOT_APPLIED = "not_applied";
    public static final String OK = "ok";

    /** Latency buckets (seconds) for the request histograms: 250 µs to 10 s. */
    private static final Duration[] BUCKETS = List.of(0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0,
            1_000.0, 2_500.0, 5_000.0, 10_000.0).stream()
            .map(ms -> Duration.ofNanos((long) (ms * 1_000_000))).toArray(Duration[]::new);

    private static final java.util.Set<String> KNOWN_OPS = java.util.stream.Stream.concat(
            java.util.stream.Stream.of(Ops.GET, Ops.SCAN, Ops.CAS, Ops.DELETE, Ops.TXN, Ops.LEADER,
                    Ops.RESIGN, Ops.READY, Ops.CLUSTER, Ops.ICEBERG, Ops.GRANTS, Ops.GRANT, Ops.REVOKE),
            Ops.CATALOG.stream()).collect(java.util.stream.Collectors.toUnmodifiableSet());

    private final MeterRegistry registry;
    private final String node;
    private final Map<String, Map<String, Timer>> requests = new ConcurrentHashMap<>();
    private final Map<Class<?>, Counter> storeErrors = new ConcurrentHashMap<>();
    private final Counter renewals;
    private final Counter renewalFailures;
    private final Counter watchersCutOff;
    private final Counter leadershipChanges;
    private final Counter fenced;
    private final Counter epochMismatch;
    /** Written only by the leadership consumer (one event loop); read by scrapes on any thread. */
    private volatile Leadership leadership;

    public NodeMetrics(MeterRegistry registry, String node) {
        this.registry = registry;
        this.node = node;
        this.leadership = Leadership.follower(node, Optional.empty(), 0, "starting");
        Gauge.builder("lake.leader", this, m -> m.leadership.isLeader() ? 1 : 0).tag("node", node)
                .description("1 while this node holds the lease, else 0").register(registry);
        Gauge.builder("lake.epoch", this, m -> m.leadership.epoch()).tag("node", node)
                .description("the fencing epoch this node leads under; 0 when it does not lead").register(registry);
        renewals = counter("lake.lease.renewals", "successful lease renewals by this node while leading");
        renewalFailures = counter("lake.lease.renewal.failures", "lease renewal rounds that failed while leading");
        watchersCutOff = counter("lake.watch.cutoffs", "SSE watchers cut off for falling behind (each told the revision to resume after)");
        Gauge.builder("lake.purge.queue.jobs", purgeQueue, java.util.concurrent.atomic.AtomicLong::get).tag("node", node)
                .description("dropped tables in the purge queue at the leader's last pass (queued, purging or refused)").register(registry);
        leadershipChanges = counter("lake.leadership.changes", "times this node became or stopped being leader, or changed epoch");
        fenced = counter("lake.fenced.rejections", "writes refused because the lease moved away from this node (409 fenced)");
        epochMismatch = counter("lake.epoch.mismatch.rejections", "writes refused because they named another epoch (409 epoch_mismatch)");
        Gauge.builder("lake.forward.in.flight", forwardsInFlight, java.util.concurrent.atomic.AtomicInteger::get).tag("node", node)
                .description("writes this node forwarded to the leader that await its answer now").register(registry);
        Gauge.builder("lake.grants.revision", grantsRevision, java.util.concurrent.atomic.AtomicLong::get).tag("node", node)
                .description("the change-feed revision this node's copy of the stored grants reflects (-1 before its first read)")
                .register(registry);
        for (Class<?> kind : MetaException.class.getPermittedSubclasses()) storeError(kind);
        storeError(MetaException.StoreLocked.class);
        storeError(MetaException.StoreClosed.class);
        for (String op : List.of(Ops.GET, Ops.SCAN)) timer(op, OK);
        for (String op : List.of(Ops.CAS, Ops.DELETE, Ops.TXN)) {
            timer(op, APPLIED);
            timer(op, NOT_APPLIED);
        }
        for (String ingress : List.of("http", "bus")) {
            for (String code : List.of("unauthorized", "forbidden")) authCounter(ingress, code);
        }
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition of every meter in the registry. */
    public String scrape() {
        return registry instanceof PrometheusMeterRegistry p ? p.scrape() : "";
    }

    private Counter counter(String name, String help) {
        return Counter.builder(name).tag("node", node).description(help).register(registry);
    }

    private Timer timer(String op, String outcome) {
        return requests.computeIfAbsent(op, o -> new ConcurrentHashMap<>()).computeIfAbsent(outcome, oc ->
                Timer.builder("lake.requests").tag("node", node).tag("op", op).tag("outcome", oc)
                        .description("API requests by operation and outcome (applied, not_applied, ok, or the error code)")
                        .serviceLevelObjectives(BUCKETS).register(registry));
    }

    private Counter storeError(Class<?> kind) {
        return storeErrors.computeIfAbsent(kind, k -> Counter.builder("lake.store.errors").tag("node", node)
                .tag("kind", k.getSimpleName()).description("store calls that failed, by MetaException kind").register(registry));
    }

    private Counter authCounter(String ingress, String code) {
        return Counter.builder("lake.auth.rejections").tag("node", node).tag("ingress", ingress).tag("code", code)
                .description("requests refused by access control").register(registry);
    }

    /** One answered API request: its operation, its outcome and how long it took. */
    public void request(String op, String outcome, long nanos) {
        // Only operations the API knows get their own series, so a bad lake-op cannot grow the registry.
        timer(op != null && KNOWN_OPS.contains(op) ? op : "unknown", outcome).record(nanos, TimeUnit.NANOSECONDS);
        if ("fenced".equals(outcome)) fenced.increment();
        else if ("epoch_mismatch".equals(outcome)) epochMismatch.increment();
    }

    /** One answered Iceberg REST request: its route (a bounded set of names), its status and how long it took. */
    public void icebergRequest(String route, int status, long nanos) {
        Timer.builder("lake.iceberg.requests").tag("node", node).tag("route", route).tag("status", String.valueOf(status))
                .description("Iceberg REST catalog requests by route and status").register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** An Iceberg client's metrics report ({@code POST .../tables/{t}/metrics}), accepted and counted. */
    public void icebergMetricsReport() {
        Counter.builder("lake.iceberg.metrics.reports").tag("node", node)
                .description("metrics reports received from Iceberg clients").register(registry).increment();
    }

    /** A leadership publication of this node's election verticle. */
    public void leadership(Leadership next) {
        Leadership previous = leadership;
        leadership = next;
        if (previous.isLeader() != next.isLeader() || previous.epoch() != next.epoch()) leadershipChanges.increment();
        else if (next.isLeader() && "renewed".equals(next.reason())) renewals.increment();
    }

    /** A campaign round of a leader that failed (it retries until its deadline, then steps down). */
    /** Writes this node forwarded to the leader that await its answer now (all its API instances). */
    private final java.util.concurrent.atomic.AtomicInteger forwardsInFlight = new java.util.concurrent.atomic.AtomicInteger();

    /** The count behind {@code lake_forward_in_flight}, which the node's forwarders keep. */
    public java.util.concurrent.atomic.AtomicInteger forwardsInFlight() {
        return forwardsInFlight;
    }

    /** Publishes {@code waiting}, the node's count of long polls held now, as {@code lake_catalog_waiting}. */
    public void waitingLongPolls(java.util.concurrent.atomic.AtomicInteger waiting) {
        Gauge.builder("lake.catalog.waiting", waiting, java.util.concurrent.atomic.AtomicInteger::get).tag("node", node)
                .description("catalog long polls (snapshot and resolve with wait_ms) this node holds now").register(registry);
    }

    private final java.util.concurrent.atomic.AtomicLong grantsRevision = new java.util.concurrent.atomic.AtomicLong(-1);

    /** The change-feed revision this node's stored grants reflect ({@code lake_grants_revision}); -1 before the first read. */
    public long grantsRevision() {
        return grantsRevision.get();
    }

    public void grantsRevision(long revision) {
        grantsRevision.set(revision);
    }

    /** Publishes {@code held}, the writes waiting for an earlier write on one of their keys, as {@code lake_writes_waiting_for_key}. */
    public void writesWaitingForKey(java.util.function.IntSupplier held) {
        // Strong: the supplier is often a method reference nothing else holds, and a gauge keeps
        // its object weakly by default, so it would read NaN after the next collection.
        Gauge.builder("lake.writes.waiting.for.key", held, h -> h.getAsInt()).tag("node", node).strongReference(true)
                .description("writes this leader holds until an earlier write on one of their keys settles (or is handed to the store), so they commit in revision order")
                .register(registry);
    }

    public void watchersCutOff() {
        watchersCutOff.increment();
    }

    /** An orphan sweep of one Iceberg table (on demand or periodic) reported {@code found} files and deleted {@code deleted}. */
    public void orphansSwept(int found, int deleted) {
        Counter.builder("lake.orphan.files.found").tag("node", node)
                .description("orphan files Iceberg tables' sweeps reported (docs/iceberg.md, \"Orphan files\")").register(registry).increment(found);
        Counter.builder("lake.orphan.files.deleted").tag("node", node)
                .description("orphan files Iceberg tables' sweeps deleted").register(registry).increment(deleted);
    }

    /** A webhook's receiver acknowledged {@code events} events (its cursor then moved past them). */
    public void webhookDelivered(String webhook, long events) {
        Counter.builder("lake.webhook.delivered").tag("node", node).tag("webhook", webhook)
                .description("change-feed events a webhook's receiver acknowledged (cursor stored)").register(registry).increment(events);
    }

    /** A webhook POST that failed (an error answer, no answer, or a stopped delivery). */
    public void webhookFailed(String webhook) {
        Counter.builder("lake.webhook.failures").tag("node", node).tag("webhook", webhook)
                .description("webhook POSTs that failed and delivery runs that stopped (each retried)").register(registry).increment();
    }

    /** Files the purge worker deleted ({@code lake_purge_files_deleted_total}). */
    public void purgeDeleted(long files) {
        Counter.builder("lake.purge.files.deleted").tag("node", node).description("files of dropped tables the purge worker deleted")
                .register(registry).increment(files);
    }

    /** A pass of the purge worker on the leader ({@code lake_purge_passes_total}). */
    public void purgePass() {
        Counter.builder("lake.purge.passes").tag("node", node).description("passes of the leader's purge worker (retention checked, queue worked on)")
                .register(registry).increment();
    }

    /** A batch the purge worker claimed in a fenced write and deleted ({@code lake_purge_batches_total}). */
    public void purgeBatch() {
        Counter.builder("lake.purge.batches").tag("node", node).description("purge batches claimed (fenced) and deleted")
                .register(registry).increment();
    }

    /** A dropped table purged: its files deleted, job and tombstone removed ({@code lake_purge_tables_total}). */
    public void purgeFinished() {
        Counter.builder("lake.purge.tables").tag("node", node).description("dropped tables purged to the end (tombstone removed)")
                .register(registry).increment();
    }

    /** A purge the worker refused: a location not the table's own, or shared ({@code lake_purge_refused_total}). */
    public void purgeRefused() {
        Counter.builder("lake.purge.refused").tag("node", node).description("purges refused: location not assigned, or shared with a live table")
                .register(registry).increment();
    }

    private final java.util.concurrent.atomic.AtomicLong purgeQueue = new java.util.concurrent.atomic.AtomicLong();

    /** Jobs in the purge queue at the leader's last pass ({@code lake_purge_queue_jobs}). */
    public void purgeQueueDepth(long jobs) {
        purgeQueue.set(jobs);
    }

    public void renewalFailed() {
        renewalFailures.increment();
    }

    void storeFailed(Throwable t) {
        if (t instanceof MetaException) storeError(t.getClass()).increment();
    }

    public void authRejected(String ingress, String code) {
        authCounter(ingress, code).increment();
    }

    /** {@code store}, counting every failed call in {@code lake_store_errors_total} by kind. */
    public MetaStore instrument(MetaStore store) {
        return new MetaStore() {
            private <T> Future<T> counted(Future<T> f) {
                return f.onFailure(NodeMetrics.this::storeFailed);
            }

            @Override public Future<Optional<byte[]>> get(String key) { return counted(store.get(key)); }
            @Override public Future<Boolean> cas(String k, byte[] e, byte[] v) { return counted(store.cas(k, e, v)); }
            @Override public Future<Boolean> delete(String k, byte[] e) { return counted(store.delete(k, e)); }
            @Override public Future<Boolean> guardedMutate(GuardedMutation m) { return counted(store.guardedMutate(m)); }
            @Override public Future<TransactionOutcome> transact(Transaction t) { return counted(store.transact(t)); }
            @Override public Future<ScanPage> scanPrefix(String p, String c, int l) { return counted(store.scanPrefix(p, c, l)); }
            @Override public Future<java.util.Optional<String>> lastKey(String p) { return counted(store.lastKey(p)); }
            @Override public Future<Void> close() { return store.close(); }
        };
    }
}
