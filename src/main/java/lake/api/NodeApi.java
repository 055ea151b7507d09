package lake.api;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.bus.BusBatch;
import lake.bus.BusMetaStore;
import lake.bus.StoreLink;
import lake.bus.StoreProtocol;
import lake.catalogapi.CatalogApi;
import lake.catalogapi.CatalogWatch;
import lake.cluster.Clustering;
import lake.cluster.Membership;
import lake.config.access.CatalogGrant.Privilege;
import lake.election.ElectionSettings;
import lake.election.LeaseRecord;
import lake.forward.Forwarder;
import lake.metasrv.ClientWrite;
import lake.metasrv.FencedWriter;
import lake.metasrv.Leadership;
import lake.metasrv.MetasrvException;
import lake.metasrv.NodeClock;
import lake.metrics.NodeMetrics;
import lake.protocol.ApiError;
import lake.protocol.ApiRequests;
import lake.protocol.Ops;
import lake.protocol.StrictJson;
import lake.security.Action;
import lake.security.Audit;
import lake.security.Caller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The Metasrv API of one node, as one event-loop context serves it: every operation, with every
 * write going through a {@link FencedWriter}. Each ingress verticle instance (every HTTP ingress
 * instance, and the bus API verticle) owns one, confined to its own context, so a request is
 * decided on the thread that received it and only the store is a message away.
 *
 * <p>It learns leadership only from the election verticle's publications, like every other
 * component; it owns no shared state. Answers are JSON bodies; failures are {@link ApiError}s,
 * {@link MetasrvException}s or store exceptions, turned into the HTTP / bus error by
 * {@link ApiError#from}. Callers authenticate before calling; this class authorizes each decoded
 * request against the caller's grants ({@link AccessControl#authorize}) before anything is read,
 * written or forwarded, and audits admin actions where they are received.
 */
public final class NodeApi {
    private static final Logger log = LoggerFactory.getLogger(NodeApi.class);

    private static final java.util.Set<String> WITHOUT_FIELDS = java.util.Set.of(Ops.LEADER, Ops.RESIGN, Ops.READY, Ops.CLUSTER, Ops.REVISION);

    /**
     * How long a write that found the lease naming this node waits for the node's leadership
     * publication before looking again (the election verticle publishes right after its write).
     */
    private static final long SELF_LEADERSHIP_WAIT_MS = 100;

    /**
     * What every instance of one node's API shares: settings, clock and meters, where the catalog
     * places tables, the node's count of waiting long polls (bounded by {@link #MAX_WAITING}), its
     * forwarding lane ({@code null}: each instance forwards through a sender of its own), and its
     * liveness probe of the nodes holding forwarded writes ({@code null}: departures only).
     */
    public record Config(ElectionSettings settings, StoreLink store, NodeClock clock, boolean clustered, long forwardWindowMs,
                         long requestTimeoutMs, NodeMetrics metrics, String catalogRoot, AtomicInteger waiting,
                         AccessControl access, lake.iceberg.rest.IcebergService iceberg, BusBatch.Sender forwardingLane,
                         lake.cluster.Liveness liveness, lake.feed.Feed feed, lake.config.FeedSettings feedSettings,
                         lake.watch.Tail tail, lake.config.LifecycleSettings lifecycle) {}

    /** Long polls one node holds at once; more are refused with 503, never queued. */
    public static final int MAX_WAITING = 4096;

    private final Vertx vertx;
    private final Context context;
    private final ElectionSettings settings;
    /** The cluster secret, with which this node vouches for a principal it forwards without a token. */
    private final String storeSecret;
    private final NodeClock clock;
    private final NodeMetrics metrics;
    private final List<Promise<Leadership>> waitingForLeadership = new ArrayList<>();
    private final Membership membership;
    private final BusMetaStore reads;
    private final lake.watch.Watches watches;
    /** {@code POST /iceberg/v1/events}, from {@link #watches}. */
    private final lake.iceberg.events.EventsQuery icebergEvents;
    private final lake.grants.Grants grants;
    private final Config config;
    private final AtomicInteger waiting;
    private final FencedWriter writer;
    private final lake.watch.Compactor compactor;
    private final Forwarder forwarder;
    private final CatalogWatch watch;
    private final CatalogApi catalog;
    private final AccessControl access;
    private final lake.iceberg.rest.IcebergService iceberg;
    private lake.iceberg.rest.IcebergRouter icebergRouter;
    /** Deletes queued purges while this node leads; {@code null} without a warehouse FileIO (no Iceberg service). */
    private final lake.purge.PurgeWorker purger;
    private MessageConsumer<Leadership> feed;
    /** Node ids of the members that leave the cluster (clustered nodes only). */
    private MessageConsumer<String> departures;
    private Leadership leadership;
    private Runnable onRoleChange = () -> {};

    /** Create on the context that will call it; {@link #start()} before the first request. */
    public NodeApi(Context context, Config config) {
        this.vertx = context.owner();
        this.context = context;
        this.settings = config.settings();
        this.storeSecret = config.store().secret();
        this.config = config;
        this.clock = config.clock();
        this.metrics = config.metrics();
        this.access = config.access();
        String node = settings.nodeId();
        leadership = Leadership.follower(node, Optional.empty(), 0, "starting");
        reads = config.store().open(vertx, () -> leadership.epoch());
        writer = new FencedWriter(node, settings.leaseKey(), () -> leadership, this::nextLeadership,
                reads::withEpoch, this::stepDown, clock::monoNanos, clock::wallMillis, config.feed(),
                task -> context.runOnContext(v -> task.run()), (ms, task) -> vertx.setTimer(ms, id -> task.run()),
                Math.max(1, config.requestTimeoutMs() / 2), config.feedSettings().writeOrder() == lake.config.FeedSettings.WriteOrder.CHECK);
        membership = new Membership(vertx);
        // Every instance forwards through the node's one lane (when it has one), so the writes of all
        // its event loops share messages to the leader.
        forwarder = !config.clustered() ? null : new Forwarder(vertx, node, settings.leaseKey(), reads, () -> leadership, clock,
                config.requestTimeoutMs(), config.forwardWindowMs(),
                config.forwardingLane() != null ? config.forwardingLane() : BusBatch.Sender.standard(vertx),
                metrics.forwardsInFlight(), config.liveness());
        compactor = new lake.watch.Compactor(reads, writer::apply, clock::wallMillis, config.feedSettings().retentionMs(),
                config.feedSettings().maxRecords());
        watch = new CatalogWatch(vertx, reads, config.waiting(), MAX_WAITING);
        watches = new lake.watch.Watches(context, config.tail(), reads);
        icebergEvents = new lake.iceberg.events.EventsQuery(watches, feedSource(settings.leaseKey()));
        grants = new lake.grants.Grants(reads, writer::apply, clock::wallMillis);
        waiting = config.waiting();
        catalog = new CatalogApi(vertx, reads, writer, config.catalogRoot(), clock, watch, config.lifecycle().tableRetentionMs());
        iceberg = config.iceberg();
        // Without a warehouse FileIO the worker still runs: it refuses each job, saying why (the tombstone stays listed).
        purger = new lake.purge.PurgeWorker(context, iceberg == null ? null : iceberg.io(), config.catalogRoot(), config.lifecycle(),
                new lake.purge.PurgeWorker.Meters() {
                    @Override public void deleted(long files) { metrics.purgeDeleted(files); }
                    @Override public void batch() { metrics.purgeBatch(); }
                    @Override public void finished() { metrics.purgeFinished(); }
                    @Override public void refused() { metrics.purgeRefused(); }
                    @Override public void queueDepth(long jobs) { metrics.purgeQueueDepth(jobs); }
                    @Override public void pass() { metrics.purgePass(); }
                });
    }

    /**
     * Subscribes to the node's leadership and learns the current one; in a cluster, also to the
     * members that leave, whose forwarded writes still awaiting an answer are then answered at once
     * ({@link Forwarder#lost}).
     */
    public Future<Void> start() {
        feed = vertx.eventBus().localConsumer(Bus.leadership(settings.nodeId()), m -> learn(m.body()));
        Future<Void> listening = feed.completion();
        if (forwarder != null) {
            departures = vertx.eventBus().<String>localConsumer(Clustering.MEMBER_LEFT, m -> forwarder.lost(m.body(),
                    java.util.Objects.requireNonNullElse(m.headers().get(lake.cluster.Liveness.REASON_HEADER), lake.cluster.Liveness.DROPPED)));
            listening = listening.compose(v -> departures.completion());
        }
        watches.start();
        return listening.compose(v -> watch.start()).compose(v -> vertx.eventBus()
                .<Leadership>request(Bus.election(settings.nodeId()), null, new DeliveryOptions().addHeader(Bus.OP_HEADER, "status"))
                .onSuccess(m -> learn(m.body()))).mapEmpty();
    }

    /** Stops learning leadership; call once no request is in flight. */
    public Future<Void> stop() {
        watches.stop();
        Future<Void> watching = watch.stop();
        if (departures != null) watching = Future.join(watching, departures.unregister()).mapEmpty();
        return feed == null ? watching : Future.join(watching, feed.unregister()).mapEmpty();
    }

    /**
     * The catalog port of this node (its store's reads, its fenced writer) for callers on other
     * threads (lake.iceberg's workers): every call hops onto this API's context, where the writer
     * is confined, and completes there. Writes on a follower fail with NotLeader.
     */
    public lake.catalog.CatalogPort catalogPort() {
        lake.catalog.CatalogPort inner = catalog.port(null);
        return new lake.catalog.CatalogPort() {
            @Override public Future<Optional<byte[]>> get(String key) { return onContext(() -> inner.get(key)); }
            @Override public Future<lake.meta.ScanPage> scan(String prefix, String continuation, int limit) {
                return onContext(() -> inner.scan(prefix, continuation, limit));
            }
            @Override public Future<lake.meta.TransactionOutcome> transact(lake.meta.Transaction t, JsonObject event) {
                return onContext(() -> inner.transact(t, event));
            }
        };
    }

    private <T> Future<T> onContext(Supplier<Future<T>> body) {
        Promise<T> p = Promise.promise();
        context.runOnContext(v -> {
            try {
                body.get().onComplete(p);
            } catch (RuntimeException e) {
                p.tryFail(e);
            }
        });
        return p.future();
    }

    public Leadership leadership() {
        return leadership;
    }

    public Membership membership() {
        return membership;
    }

    /** Runs on this context whenever this node's role or epoch changes. */
    public void onRoleChange(Runnable action) {
        this.onRoleChange = action;
    }

    /**
     * Serves one request and records its latency and outcome. {@code headers} carries the bus
     * headers of the request: the client's {@link Bus#EPOCH_HEADER}, its token (passed on when a
     * write is forwarded) and, on a forwarded write, {@link Bus#FORWARDED_EPOCH_HEADER}.
     */
    public Future<JsonObject> serve(String op, Object body, MultiMap headers, Caller caller) {
        return serve(op, body, headers, Future.future(never -> {}), caller);
    }

    /** As {@link #serve(String, Object, MultiMap, Caller)}; a long poll stops waiting once {@code abandoned} completes. */
    public Future<JsonObject> serve(String op, Object body, MultiMap headers, Future<?> abandoned, Caller caller) {
        long startNanos = System.nanoTime();
        String name = op == null ? "" : op;
        Future<JsonObject> result;
        try {
            result = handle(name, body, headers, abandoned, caller);
        } catch (RuntimeException e) {
            result = Future.failedFuture(e);
        }
        return result.onComplete(ar -> {
            if (ar.succeeded()) {
                metrics.request(name, ar.result().getValue("applied") instanceof Boolean applied
                        ? (applied ? NodeMetrics.APPLIED : NodeMetrics.NOT_APPLIED) : NodeMetrics.OK, System.nanoTime() - startNanos);
            } else {
                ApiError e = ApiError.from(ar.cause());
                metrics.request(name, e.code(), System.nanoTime() - startNanos);
                if (e.status() == 500) log.error("request {} failed", name, ar.cause());
            }
        });
    }

    /**
     * What {@code caller} sees of the feed under {@code prefix}: the keys it may read (filtered,
     * never refused), decided against its grants as they are when each record is shown.
     */
    private lake.watch.Watches.Filter filter(Caller caller, String prefix) {
        if (caller.principal() == null) return lake.watch.Watches.Filter.keys(prefix, key -> true);
        lake.security.LivePrincipal live = new lake.security.LivePrincipal(access.principals(), caller.principal());
        return lake.watch.Watches.Filter.keys(prefix, key -> {
            lake.config.access.AuthToken p = live.now();
            return p != null && lake.security.Authorizer.keyInside(p, key);
        });
    }

    /**
     * The catalog's events {@code caller} sees: an event carries the objects' metadata, so it is
     * shown only to a principal that may read every namespace it names whole (a grant on one
     * table does not show that table's events), decided against its grants as they are when each
     * event is shown (a revoke reaches an open stream at its next event).
     */
    private lake.watch.Watches.Filter eventsFilter(Caller caller) {
        if (caller.principal() == null) return lake.watch.Watches.Filter.events(lake.catalog.events.CatalogEvents::namespaces, ns -> true);
        lake.security.LivePrincipal live = new lake.security.LivePrincipal(access.principals(), caller.principal());
        return lake.watch.Watches.Filter.events(lake.catalog.events.CatalogEvents::namespaces, ns -> {
            lake.security.CatalogAccess now = live.access();
            return now != null && now.readsAllIn(ns);
        });
    }

    private static ApiError feedNotReady() {
        return new ApiError(503, "feed_not_ready", "this node has not yet heard the change feed's position from a leader", 1);
    }

    /** The answer to a watch that failed: {@code 410} for a compacted revision, else as any failure. */
    private static Throwable watchFailure(Throwable t) {
        if (t instanceof lake.watch.Watches.Gone g) {
            JsonObject details = new JsonObject().put("compact_revision", ApiRequests.u64(g.floor()));
            if (g.oldest() != 0) details.put("oldest_revision", ApiRequests.u64(g.oldest()));
            return new ApiError(410, "compacted", g.getMessage(), null, details);
        }
        return t;
    }

    private Future<JsonObject> watch(lake.watch.Watches.Filter filter, ApiRequests.Watch request, Future<?> abandoned) {
        Long current = watches.currentRevision();
        if (current == null && (request.waitMs() == 0 || request.after() == null)) return Future.failedFuture(feedNotReady());
        // Without `after`, changes from now on (as etcd's watch without a revision).
        ApiRequests.Watch w = request.after() != null ? request
                : new ApiRequests.Watch(request.prefix(), current, request.limit(), request.waitMs());
        if (w.waitMs() == 0) {
            return watches.read(filter, w.after(), w.limit()).map(NodeApi::pageJson).recover(t -> Future.failedFuture(watchFailure(t)));
        }
        if (waiting.incrementAndGet() > MAX_WAITING) {
            waiting.decrementAndGet();
            return Future.failedFuture(new ApiError(503, "too_many_waiters", "this node already holds " + MAX_WAITING
                    + " waiting requests; retry, or ask without wait_ms", 1));
        }
        Promise<JsonObject> answer = Promise.promise();
        long[] timer = {-1};
        lake.watch.Watches.Watch watch;
        try {
            watch = watches.watch(filter, w.after(), w.limit(), new lake.watch.Watches.Receiver() {
            @Override public lake.watch.Watches.Flow deliver(lake.watch.Watches.Page page) {
                answer.tryComplete(pageJson(page));
                return lake.watch.Watches.Flow.STOP;
            }

            @Override public void fail(Throwable cause) {
                answer.tryFail(watchFailure(cause));
            }
        });
        } catch (RuntimeException e) {
            waiting.decrementAndGet();
            return Future.failedFuture(e);
        }
        if (!answer.future().isComplete()) {
            timer[0] = vertx.setTimer(w.waitMs(), new io.vertx.core.Handler<Long>() {
                long expiredAt = -1;

                @Override public void handle(Long id) {
                    // wait_ms bounds the wait for new records, not a read of records already there: answering
                    // empty while one is in flight would send a watcher behind the tail back to read them again,
                    // and one whose read takes longer than wait_ms (a loaded store) would never get a page. So
                    // the read in flight is let finish (a page, or the cursor moved past what it filtered out).
                    if (expiredAt < 0) expiredAt = watch.cursor();
                    if (watch.reading() && watch.cursor() == expiredAt) {
                        timer[0] = vertx.setTimer(20, this);
                        return;
                    }
                    watch.cancel();
                    answer.tryComplete(pageJson(new lake.watch.Watches.Page(List.of(), watch.cursor(), false)));
                }
            });
            abandoned.onComplete(gone -> {
                watch.cancel();
                answer.tryFail(new ApiError(499, "abandoned", "the client stopped waiting", null));
            });
        }
        return answer.future().onComplete(done -> {
            vertx.cancelTimer(timer[0]);
            watch.cancel();
            waiting.decrementAndGet();
        });
    }

    private static JsonObject pageJson(lake.watch.Watches.Page page) {
        List<Object> events = new ArrayList<>(page.records().size());
        for (lake.feed.ChangeRecord r : page.records()) events.add(lake.watch.Watches.render(r));
        return new JsonObject(lake.wire.WatchEvent.Page.toMap(events, page.cursor(), page.more()));
    }

    /** Throws the refusal ({@code 403}) unless {@code caller} may watch (the feed with a prefix, or the catalog's events). */
    public void authorizeWatch(Caller caller, boolean catalogEvents) {
        access.authorize(caller, new Action.Open(catalogEvents ? Ops.CATALOG_EVENTS : Ops.WATCH));
    }

    /** The feed's current revision on this node ({@code null} until its tail heard from a leader). */
    public Long currentRevision() {
        return watches.currentRevision();
    }

    /**
     * Checks that {@code caller} may stream the feed from {@code after} (SSE): authorized like a
     * long poll, and failing {@code 410} at once when {@code after} is compacted, before the stream
     * answers {@code 200}.
     */
    public Future<Void> openStream(Caller caller, String prefix, long after) {
        try {
            access.authorize(caller, new Action.Open(prefix == null ? Ops.CATALOG_EVENTS : Ops.WATCH));
        } catch (ApiError refused) {
            return Future.failedFuture(refused);
        }
        return watches.read(streamFilter(caller, prefix), after, 1).<Void>mapEmpty().recover(t -> Future.failedFuture(watchFailure(t)));
    }

    /**
     * Streams the change feed under {@code prefix} after {@code after} to {@code receiver}, filtered
     * to the keys {@code caller} may read; with {@code prefix == null}, the catalog's events.
     */
    public lake.watch.Watches.Watch stream(Caller caller, String prefix, long after, lake.watch.Watches.Receiver receiver) {
        return watches.watch(streamFilter(caller, prefix), after, ApiRequests.MAX_WATCH_LIMIT, receiver);
    }

    private lake.watch.Watches.Filter streamFilter(Caller caller, String prefix) {
        return prefix == null ? eventsFilter(caller) : filter(caller, prefix);
    }

    /** The answer an SSE stream ends with when its watch fails. */
    public static ApiError watchError(Throwable t) {
        return ApiError.from(watchFailure(t));
    }

    /** Keeps this node's stored grants (in the node's {@link lake.security.Principals}) following the change feed; one per node. */
    public lake.grants.GrantsFollower grantsFollower() {
        return new lake.grants.GrantsFollower(context, reads, watches, watches::currentRevision,
                book -> access.principals().storedGrants(book.byPrincipal()), metrics::grantsRevision);
    }

    /** The webhooks of {@code hooks}, delivered from this instance's context while this node leads. */
    public lake.webhook.WebhookSinks webhookSinks(List<lake.config.Webhook> hooks) {
        return new lake.webhook.WebhookSinks(context, hooks, () -> leadership, reads, writer::apply, watches,
                watches::currentRevision, lake.catalog.events.CatalogEvents::namespaces,
                feedSource(settings.leaseKey()),
                new lake.webhook.WebhookSinks.Meters() {
                    @Override public void delivered(String webhook, long events) { metrics.webhookDelivered(webhook, events); }

                    @Override public void failed(String webhook) { metrics.webhookFailed(webhook); }
                });
    }

    /** The CloudEvents {@code source} of every event this feed's faces send: the feed, named by its lease key. */
    private static String feedSource(String leaseKey) {
        return "urn:lake-metasrv:" + java.net.URLEncoder.encode(leaseKey, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The revisions of the epoch this node leads (fails on a follower): the leader's heartbeat publishes their watermark. */
    public Future<lake.feed.Sequencer> revisions() {
        return writer.revisions();
    }

    /** The store as this instance reads it. */
    public lake.meta.MetaStore reads() {
        return reads;
    }

    private void learn(Leadership next) {
        boolean roleChanged = leadership.isLeader() != next.isLeader() || leadership.epoch() != next.epoch();
        leadership = next;
        if (roleChanged) onRoleChange.run();
        List<Promise<Leadership>> waiting = new ArrayList<>(waitingForLeadership);
        waitingForLeadership.clear();
        waiting.forEach(p -> p.tryComplete(next));
    }

    /**
     * The next leadership this node publishes, or the current one once its current authority would
     * have ended.
     */
    private Future<Leadership> nextLeadership() {
        return nextLeadership(Math.min(settings.ttlMs(), (leadership.deadlineNanos() - clock.monoNanos()) / 1_000_000L));
    }

    /** The next leadership this node publishes, or the current one after {@code waitMs}. */
    private Future<Leadership> nextLeadership(long waitMs) {
        Promise<Leadership> p = Promise.promise();
        waitingForLeadership.add(p);
        vertx.setTimer(Math.max(1, waitMs), id -> {
            if (waitingForLeadership.remove(p)) p.tryComplete(leadership);
        });
        return p.future();
    }

    private void stepDown(String reason, long epoch) {
        log.warn("fenced rejection on node {}: {}", settings.nodeId(), reason);
        // Marked as a fenced step-down, so the epoch timeline can say why leadership changed;
        // about its epoch only, so a later leadership of this node is left alone.
        vertx.eventBus().request(Bus.election(settings.nodeId()), new JsonObject().put("reason", Leadership.FENCED_PREFIX + reason)
                        .put("epoch", epoch), new DeliveryOptions().addHeader(Bus.OP_HEADER, "step-down"));
    }

    /**
     * Decodes {@code raw} (a JSON object, JSON text, or {@code null} for operations without
     * fields) with the one strict decoder, then serves it. Nothing reaches the store before the
     * whole request has been decoded.
     */
    private Future<JsonObject> handle(String op, Object raw, MultiMap headers, Future<?> abandoned, Caller caller) {
        JsonObject body = raw == null ? new JsonObject() : StrictJson.busBody(raw);
        if (WITHOUT_FIELDS.contains(op)) ApiRequests.none(body, op);
        // What a follower forwards: the client's own text when it came as text (decoded and checked
        // here already; the leader decodes it again as any request), so nothing is re-encoded.
        Object forwardable = raw instanceof io.vertx.core.buffer.Buffer ? raw : body;
        return switch (op) {
            case Ops.GET -> {
                String key = ApiRequests.get(body);
                access.authorize(caller, new Action.Key(op, key, false));
                yield reads.get(key).compose(v -> v
                        .map(bytes -> Future.succeededFuture(new JsonObject(lake.wire.Entry.toMap(key, bytes))))
                        .orElseGet(() -> Future.failedFuture(ApiError.notFound("key '" + key + "' not found"))));
            }
            case Ops.SCAN -> {
                ApiRequests.Scan s = ApiRequests.scan(body);
                access.authorize(caller, new Action.Scan(op, s.prefix()));
                // Hidden keys leave a short page; its continuation is still the store's (ApiRequests.Scan.hides).
                yield reads.scanPrefix(s.prefix(), s.continuation(), s.limit()).map(p -> new JsonObject(lake.wire.EntryPage.toMap(
                        p.entries().stream().filter(kv -> !s.hides(kv.key(), settings.leaseKey())).toList(),
                        kv -> lake.wire.Entry.toMap(kv.key(), kv.value()), p.continuation())));
            }
            case Ops.CAS, Ops.DELETE, Ops.TXN -> {
                Caller c = caller;
                ClientWrite w = op.equals(Ops.CAS) ? ApiRequests.cas(body, headers)
                        : op.equals(Ops.DELETE) ? ApiRequests.delete(body, headers) : ApiRequests.txn(body, headers);
                access.authorize(caller, w instanceof lake.metasrv.ClientMutation m ? new Action.Key(op, m.key(), true)
                        : new Action.Keys(op, ((lake.metasrv.ClientTransaction) w).transaction().ops().stream()
                                .map(lake.meta.Transaction.Op::key).toList()));
                yield fenced(op, forwardable, headers, w, c);
            }
            // Each member entry as its node announced it (ApiVerticle writes it from lake.wire's
            // ClusterInfo.Member): passed through, not decoded and rendered again, so one node's
            // entry (an older or newer version's) never fails the listing.
            case Ops.CLUSTER -> membership.list().map(members -> new JsonObject().put("node_id", settings.nodeId()).put("members", members));
            case Ops.LEADER -> leader();
            case Ops.WATCH -> {
                ApiRequests.Watch w = ApiRequests.watch(body);
                access.authorize(caller, new Action.Open(op));
                yield watch(filter(caller, w.prefix()), w, abandoned);
            }
            case Ops.CATALOG_EVENTS -> {
                ApiRequests.Watch w = ApiRequests.catalogEvents(body);
                access.authorize(caller, new Action.Open(op));
                yield watch(eventsFilter(caller), w, abandoned);
            }
            case Ops.REVISION -> {
                access.authorize(caller, new Action.Open(op));
                Long revision = watches.currentRevision();
                if (revision == null) yield Future.failedFuture(feedNotReady());
                yield Future.succeededFuture(new JsonObject().put("revision", ApiRequests.u64(revision)));
            }
            case Ops.GRANTS -> {
                lake.grants.GrantRequest.Listing l = lake.grants.GrantRequest.list(body);
                access.authorize(caller, new Action.Grants(op, l.principal(), l.namespace()));
                yield grants.list(l.principal(), l.namespace());
            }
            case Ops.GRANT, Ops.REVOKE -> {
                boolean grant = op.equals(Ops.GRANT);
                lake.grants.GrantRequest g = grant ? lake.grants.GrantRequest.grant(body) : lake.grants.GrantRequest.revoke(body);
                access.authorize(caller, new Action.GrantChange(op, g.principal(), g.namespace(), g.name(), g.privileges(), grant));
                if (grant) grantable(g);
                String by = caller.name();
                Future<JsonObject> changed = write(op, forwardable, headers, caller, () -> leadership.isLeader() ? grants.change(g, grant, by)
                        : Future.failedFuture(new MetasrvException.NotLeader("node " + settings.nodeId() + " is not the leader",
                                leadership.leader().orElse(null))));
                // Audited once, where the request arrived: who changed whose grant on what, asking
                // what, and what is held after (the leader's answer).
                if (!Forwarder.isForwarded(headers)) {
                    changed.onComplete(ar -> Audit.grantChange(caller.ingress(), caller.name(), op, g.principal(), g.namespace(), g.name(),
                            g.privileges() == null ? null : g.privileges().stream().map(lake.config.access.CatalogGrant.Privilege::label).sorted().toList(),
                            ar.succeeded() ? ar.result() : null, ar.succeeded() ? "ok" : ApiError.from(ar.cause()).code()));
                }
                yield changed;
            }
            case Ops.RESIGN -> {
                access.authorize(caller, new Action.Admin(op, null));
                yield audited(caller, headers, op, null, vertx.eventBus().<JsonObject>request(Bus.election(settings.nodeId()), null,
                        new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign")).map(Message::body));
            }
            case Ops.READY -> leadership.hasAuthorityAt(clock.monoNanos())
                    ? Future.succeededFuture(new JsonObject().put("ready", true).put("role", "leader"))
                    : Future.failedFuture(new ApiError(503, "not_leader", "node " + settings.nodeId() + " cannot take writes", 1));
            case Ops.ICEBERG -> {
                if (iceberg == null) throw ApiError.notFound("this node serves no Iceberg catalog");
                lake.iceberg.rest.IcebergRequest r = IcebergWire.decode(body);
                if (r.queriesEvents()) {
                    // A read of the change feed, served here on any node: no worker, no leader.
                    access.authorize(caller, new Action.IcebergCatalog(op, false));
                    yield icebergEvents.serve(r.body(), r.accept(), eventsFilter(caller))
                            .map(a -> IcebergWire.encode(new lake.iceberg.rest.IcebergResponse(a.status(), a.headers(), a.body())));
                }
                // The role here (a mutation needs read-write); the router decides each object the
                // route touches from the caller's grants (IcebergGate), on the node that runs it.
                try {
                    access.authorize(caller, new Action.IcebergCatalog(op, r.mutation()));
                } catch (ApiError refused) {
                    // In Iceberg's error model (ForbiddenException), as the router's own refusals, so engines show it as theirs.
                    yield Future.succeededFuture(IcebergWire.encode(lake.iceberg.rest.IcebergRouter.error(
                            new org.apache.iceberg.exceptions.ForbiddenException("Forbidden: %s", refused.getMessage()))));
                }
                if (!r.mutation()) yield runIceberg(r, caller);
                // A mutation runs on the leader only (its catalog writes are fenced there): elsewhere it goes there whole.
                Future<JsonObject> written = write(Ops.ICEBERG, body, headers, caller, () -> leadership.isLeader() ? runIceberg(r, caller)
                        : Future.failedFuture(new MetasrvException.NotLeader("node " + settings.nodeId() + " is not the leader",
                                leadership.leader().orElse(null))));
                // The answer is the router's, whatever its status: the audit line says how it ended.
                yield r.createsOrDropsNamespace() ? audited(caller, headers, "iceberg " + r.method() + " namespace", null, written,
                        a -> a.getInteger("status") < 300 ? "ok" : "iceberg_" + a.getInteger("status")) : written;
            }
            default -> {
                if (!Ops.CATALOG.contains(op)) throw ApiError.invalid("unknown operation '" + op + "'");
                Supplier<Future<JsonObject>> prepared = catalog.prepare(op, body, ApiRequests.headerEpoch(headers, Bus.EPOCH_HEADER), abandoned);
                // Decoded (so "namespace" is valid where the operation needs it); decided before it runs.
                String namespace = body.getValue("namespace") instanceof String ns ? ns : null;
                Action action = catalogAction(op, namespace, body.getValue("name") instanceof String n ? n : null);
                access.authorize(caller, action);
                if (op.equals(Ops.UNDROP_TABLE)) {
                    // Where it goes back is a create there (its own name by default), besides the drop it undoes.
                    String toNs = body.getValue("to_namespace") instanceof String t ? t : namespace;
                    access.authorize(caller, new Action.CatalogObject(op, toNs, null, Privilege.CREATE));
                }
                lake.security.CatalogAccess grants = lake.security.CatalogAccess.of(caller.principal());
                if (op.equals(Ops.LIST_NAMESPACES) && !grants.unrestricted()) {
                    yield filtered(Ops.LIST_NAMESPACES, new JsonObject(), lake.wire.catalog.NamePage.Listing.NAMESPACES,
                            lake.catalogapi.CatalogApi.MAX_NAMESPACE_PAGE, grants::seesNamespace, new java.util.ArrayList<>(), null);
                }
                if (op.equals(Ops.LIST_TABLES) && !grants.readsAllIn(namespace)) {
                    yield filtered(Ops.LIST_TABLES, new JsonObject().put("namespace", namespace), lake.wire.catalog.NamePage.Listing.TABLES,
                            lake.catalogapi.CatalogApi.MAX_TABLE_PAGE, name -> grants.reads(namespace, name), new java.util.ArrayList<>(), null);
                }
                if (!Ops.CATALOG_WRITES.contains(op)) yield prepared.get();
                // A catalog write runs only on the leader: elsewhere it goes to the leader whole.
                Future<JsonObject> written = write(op, forwardable, headers, caller, () -> leadership.isLeader() ? prepared.get()
                        : Future.failedFuture(new MetasrvException.NotLeader("node " + settings.nodeId() + " is not the leader",
                                leadership.leader().orElse(null))));
                yield action instanceof Action.Admin || action instanceof Action.NamespaceChange
                        ? audited(caller, headers, op, namespace, written) : written;
            }
        };
    }

    private lake.iceberg.rest.IcebergRouter icebergRouter() {
        if (icebergRouter == null) icebergRouter = iceberg.router(catalogPort(), clock::wallMillis, metrics::icebergMetricsReport, metrics::orphansSwept);
        return icebergRouter;
    }

    /**
     * One periodic orphan sweep of every Iceberg table (docs/iceberg.md, "Orphan files"), on the
     * leader's Iceberg workers; nothing on a follower or a node without Iceberg. It stops before the
     * next table once the node no longer leads. The node's {@code ApiVerticle} runs it every
     * {@code orphan_sweep_interval_ms}.
     */
    public Future<lake.orphans.OrphanSweep.Round> sweepOrphans() {
        if (!leadership.isLeader() || iceberg == null) return Future.succeededFuture(new lake.orphans.OrphanSweep.Round(0, 0, 0, 0));
        return Future.fromCompletionStage(iceberg.sweepOrphans(icebergRouter(), iceberg.orphans().sweepDelete(), () -> leadership.isLeader()), context);
    }

    /** How often the leader sweeps every Iceberg table for orphan files ({@code orphan_sweep_interval_ms}; 0: never). */
    public long orphanSweepIntervalMs() {
        return iceberg == null ? 0 : iceberg.orphans().sweepIntervalMs();
    }

    /** Runs an Iceberg request on the service's worker threads; its answer completes on this context. */
    private Future<JsonObject> runIceberg(lake.iceberg.rest.IcebergRequest r, Caller caller) {
        Promise<JsonObject> p = Promise.promise();
        iceberg.submit(icebergRouter(), r, new IcebergGate(caller, metrics)).whenComplete((response, failure) -> context.runOnContext(v -> {
            // Whatever escaped the router (an Error included) still answers in the spec's error model.
            p.complete(IcebergWire.encode(failure == null ? response : lake.iceberg.rest.IcebergRouter.error(failure)));
        }));
        return p.future();
    }

    /**
     * Refuses (400) a grant its principal could never use: to an admin or a principal configured
     * without grants (both already hold everything; a stored grant would not narrow them, and
     * says nothing), or of more than {@code read} to a read-only principal.
     */
    private void grantable(lake.grants.GrantRequest g) {
        Optional<lake.config.access.AuthToken> named = access.principals().byName(g.principal());
        if (named.isEmpty()) return; // not in the tokens file: a principal still to come, or an OIDC one
        lake.config.access.AuthToken t = named.get();
        if (t.admin() || !t.restricted()) {
            throw ApiError.invalid("principal '" + g.principal() + "' is configured " + (t.admin() ? "as an admin" : "without grants")
                    + " and already holds every privilege; give its tokens-file entry \"grants\": [] to manage its grants here");
        }
        if (!t.readWrite() && !g.privileges().equals(java.util.Set.of(lake.config.access.CatalogGrant.Privilege.READ))) {
            throw ApiError.invalid("principal '" + g.principal() + "' is read-only: it may hold only \"read\"");
        }
    }

    /** What a catalog operation on {@code namespace} (and table {@code name}) is, for access control. */
    private static Action catalogAction(String op, String namespace, String name) {
        return switch (op) {
            // Admins; or a `create`/`drop` grant on the namespace itself or one above it, as at /iceberg.
            case Ops.CREATE_NAMESPACE -> new Action.NamespaceChange(op, namespace, Privilege.CREATE);
            case Ops.DROP_NAMESPACE -> new Action.NamespaceChange(op, namespace, Privilege.DROP);
            case Ops.PURGE_TOMBSTONE, Ops.PURGE_TABLE -> new Action.Admin(op, namespace);
            case Ops.LIST_NAMESPACES -> new Action.Open(op);
            case Ops.SNAPSHOT, Ops.LIST_TOMBSTONES, Ops.LIST_PURGES -> new Action.WholeCatalog(op);
            case Ops.CREATE_TABLE -> new Action.CatalogObject(op, namespace, null, Privilege.CREATE);
            case Ops.GET_NAMESPACE -> new Action.CatalogObject(op, namespace, null, Privilege.READ);
            // Only seeing the namespace: the listing shows the tables the principal may read.
            case Ops.LIST_TABLES -> new Action.CatalogObject(op, namespace, null, null);
            case Ops.RESOLVE -> new Action.CatalogObject(op, namespace, name, Privilege.READ);
            case Ops.COMMIT_VERSION -> new Action.CatalogObject(op, namespace, name, Privilege.WRITE);
            case Ops.DROP_TABLE, Ops.UNDROP_TABLE -> new Action.CatalogObject(op, namespace, name, Privilege.DROP);
            default -> throw new IllegalStateException("no access rule for catalog operation " + op);
        };
    }

    /**
     * A listing as a principal with grants may see it, in one page: every page is read and
     * filtered by {@code shown}, so the answer reveals neither how many entries are hidden nor
     * where (pages cut short would). What it holds is bounded by the principal's own grants (the
     * namespaces granted or above a grant; the tables it may read one by one).
     */
    private Future<JsonObject> filtered(String op, JsonObject base, lake.wire.catalog.NamePage.Listing listing, int pageLimit,
                                        java.util.function.Predicate<String> shown, List<String> out, String continuation) {
        JsonObject page = base.copy().put("limit", pageLimit);
        if (continuation != null) page.put("continuation", continuation);
        return catalog.prepare(op, page, null, null).get().compose(p -> {
            for (Object n : p.getJsonArray(listing.field)) if (n instanceof String name && shown.test(name)) out.add(name);
            String next = p.getString("continuation");
            if (next != null) return filtered(op, base, listing, pageLimit, shown, out, next);
            return Future.succeededFuture(new JsonObject(new lake.wire.catalog.NamePage(listing, out, null).toMap()));
        });
    }

    /**
     * Audits an admin action once, on the node that received it (not again on the leader a
     * follower forwards it to), with its outcome.
     */
    private static Future<JsonObject> audited(Caller caller, MultiMap headers, String op, String namespace, Future<JsonObject> action) {
        return audited(caller, headers, op, namespace, action, answer -> "ok");
    }

    /** As above, for an action whose answer says itself how it ended ({@code outcome}: "ok" or a code). */
    private static Future<JsonObject> audited(Caller caller, MultiMap headers, String op, String namespace, Future<JsonObject> action,
                                              java.util.function.Function<JsonObject, String> outcome) {
        if (Forwarder.isForwarded(headers)) return action;
        return action.onComplete(ar -> Audit.admin(caller.ingress(), caller.name(), op, namespace,
                ar.succeeded() ? outcome.apply(ar.result()) : ApiError.from(ar.cause()).code()));
    }

    private Future<JsonObject> fenced(String op, Object body, MultiMap headers, ClientWrite m, Caller caller) {
        return write(op, body, headers, caller, () -> writer.apply(m).map(NodeApi::outcome));
    }

    /** Runs {@code local} on the leader; a follower forwards the request (see {@link #writeOrForward}). */
    private Future<JsonObject> write(String op, Object body, MultiMap headers, Caller caller, Supplier<Future<JsonObject>> local) {
        boolean forwarded = Forwarder.isForwarded(headers);
        if (forwarded) {
            // The follower saw a lease of this epoch; refuse (certainly unapplied) unless we lead it.
            long seen = ApiRequests.headerEpoch(headers, Bus.FORWARDED_EPOCH_HEADER);
            if (!leadership.isLeader() || leadership.epoch() != seen) {
                return Future.failedFuture(new MetasrvException.NotLeader("node " + settings.nodeId()
                        + " does not lead epoch " + Long.toUnsignedString(seen) + " (forwarded by "
                        + headers.get(Bus.FORWARDED_BY_HEADER) + ")", null));
            }
        }
        if (forwarder == null || forwarded) return local.get();
        // A principal named by a client certificate has no token to pass on: this node vouches for
        // it with the cluster secret (without one configured the leader cannot believe it: 401).
        Forwarder.Vouch vouch = headers.get(Bus.TOKEN_HEADER) == null && caller.principal() != null
                && storeSecret != null ? new Forwarder.Vouch(caller.principal().name(), storeSecret) : null;
        return writeOrForward(op, body, headers, vouch, local, forwarder.deadline());
    }

    /**
     * This node's fenced writer, or, while it does not lead, the leader through the forwarder.
     * A write that finds the lease naming this node itself (it has just won, and is about to
     * publish its leadership) goes back to the local writer once that publication arrives,
     * within the same window, rather than waiting the window out.
     */
    private Future<JsonObject> writeOrForward(String op, Object body, MultiMap headers, Forwarder.Vouch vouch,
                                              Supplier<Future<JsonObject>> local, long giveUpAt) {
        return local.get().recover(t -> {
            if (!(t instanceof MetasrvException.NotLeader)) return Future.failedFuture(t);
            return forwarder.forward(op, body, headers.get(Bus.EPOCH_HEADER), headers.get(Bus.TOKEN_HEADER), vouch, giveUpAt)
                    .recover(f -> {
                        if (!(f instanceof Forwarder.LeaderIsThisNode)) return Future.failedFuture(f);
                        if (clock.monoNanos() - giveUpAt >= 0) return Future.failedFuture(t);
                        // Learned meanwhile (between the writer's refusal and the lease read): go now.
                        Future<Leadership> ready = leadership.isLeader() ? Future.succeededFuture(leadership)
                                : nextLeadership(SELF_LEADERSHIP_WAIT_MS);
                        return ready.compose(l -> writeOrForward(op, body, headers, vouch, local, giveUpAt));
                    });
        });
    }

    /** Batches one compaction round of the change feed may write. */
    private static final int COMPACTION_BATCHES = 16;

    /**
     * One round of the change feed's retention, on the leader (nothing on a follower): completes
     * with what it compacted. The node's {@code ApiVerticle} runs it periodically; one per node.
     */
    public Future<lake.watch.Compactor.Round> compactFeed() {
        if (!leadership.isLeader()) return Future.succeededFuture(lake.watch.Compactor.Round.NONE);
        long epoch = leadership.epoch();
        return writer.revisions().compose(revisions -> compactor.round(COMPACTION_BATCHES, epoch, revisions::watermark))
                // The floor travels with the feed's publications: every tail drops what compaction removed.
                .onSuccess(round -> config.feed().compacted(round.floor()));
    }

    /** The purge's catalog never mints an id (it only claims, records and removes), but a Catalog takes a source. */
    private final java.util.Random purgeIds = new java.security.SecureRandom();

    /** Batches one purge pass may delete before it yields to the next tick. */
    private static final int PURGE_BATCHES = 16;

    /**
     * One pass of the purge worker on the leader (nothing on a follower):
     * tables whose retention ended queued, then queued purges worked on, every write fenced with
     * the epoch this node leads in now. The node's {@code ApiVerticle} runs it periodically.
     */
    public Future<lake.purge.PurgeWorker.Pass> purgePass() {
        if (!leadership.isLeader()) {
            purger.forget(); // a follower keeps no table's file names: a next term names them again
            return Future.succeededFuture(lake.purge.PurgeWorker.Pass.NONE);
        }
        long epoch = leadership.epoch();
        lake.catalog.CatalogPort port = catalog.port(epoch);
        lake.catalog.Catalog c = new lake.catalog.Catalog(port, config.catalogRoot(), clock::wallMillis, purgeIds);
        return purger.pass(new lake.catalog.PurgeQueue(c), epoch, PURGE_BATCHES);
    }

    /** {@code {"applied","epoch"}}, and for a transaction not applied, {@code "failed"}: the indexes whose conditions failed. */
    private static JsonObject outcome(FencedWriter.Outcome o) {
        return new JsonObject(new lake.wire.WriteResult(o.applied(), o.epoch(), o.failed(), o.revision()).toMap());
    }

    private Future<JsonObject> leader() {
        Leadership l = leadership;
        return reads.get(settings.leaseKey()).map(bytes -> {
            Optional<LeaseRecord> lease = bytes.map(LeaseRecord::decode).filter(r -> !r.expiredAt(clock.wallMillis()));
            return new JsonObject(new lake.wire.LeaderInfo(settings.nodeId(), l.isLeader() ? "leader" : "follower",
                    lease.map(LeaseRecord::holder).orElse(null), lease.map(LeaseRecord::epoch).orElse(null),
                    lease.map(LeaseRecord::expiresAtMs).orElse(null)).toMap());
        });
    }
}
