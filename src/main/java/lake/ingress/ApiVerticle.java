package lake.ingress;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import lake.api.AccessControl;
import lake.api.NodeApi;
import lake.bus.Bus;
import lake.bus.BusBatch;
import lake.cluster.Membership;
import lake.metasrv.Leadership;
import lake.protocol.ApiError;
import lake.protocol.ApiRequests;
import lake.protocol.Ops;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Serves the Metasrv API of one node on the event bus: the public addresses ({@code lake.v1.*},
 * which any clustered verticle may call), the node's clustered forwarding address, and its local
 * address. Each request is handed to this verticle's own {@link NodeApi}. Replies carry
 * {@link Bus#EPOCH_HEADER}; failures are {@code ReplyException}s whose code is the HTTP status and
 * whose message is the error JSON. Also announces the node in the cluster's membership.
 */
public final class ApiVerticle extends VerticleBase {
    private static final Logger log = LoggerFactory.getLogger(ApiVerticle.class);

    /** The HTTP address this node announces to the cluster's membership. */
    private final String httpHost;
    private final NodeApi.Config config;
    private final boolean publicApi;
    private final IntSupplier httpPort;
    private final AccessControl access;
    private final long drainMs;
    /** Requests admitted and not yet answered; confined to this verticle's event loop. */
    private int inFlight;
    private Promise<Void> drained;
    private final List<MessageConsumer<?>> consumers = new ArrayList<>();
    private NodeApi api;
    private long announceTimer = -1;
    private long compactionTimer = -1;
    private long orphanTimer = -1;
    private long heartbeatTimer = -1;
    private lake.watch.Publisher publisher;
    private lake.webhook.WebhookSinks webhooks;
    /** Keeps the node's stored grants following the feed. */
    private lake.grants.GrantsFollower grants;
    private long webhookTimer = -1;
    private long purgeTimer = -1;
    /** How often a leader that published nothing meanwhile publishes its watermark, so every tail knows where the feed stands. */
    static final long FEED_HEARTBEAT_MS = 500;
    private volatile boolean stopped;


    /**
     * @param publicApi also answer on the shared {@code lake.v1.*} addresses
     * @param httpPort  the bound HTTP port, announced to the cluster (0 until bound)
     * @param access    checks the token of every {@code lake.v1.*} and forwarded request (the node's
     *                  own address is local: only code in this process can send to it)
     * @param drainMs   on stop, how long admitted requests may take to finish
     */
    public ApiVerticle(NodeApi.Config config, boolean publicApi, String httpHost, IntSupplier httpPort, AccessControl access,
                       long drainMs) {
        this.config = config;
        this.httpHost = httpHost;
        this.publicApi = publicApi;
        this.httpPort = httpPort;
        this.access = access;
        this.drainMs = drainMs;
    }

    @Override
    public Future<?> start() {
        String node = config.settings().nodeId();
        api = new NodeApi(context, config);
        webhooks = api.webhookSinks(config.feedSettings().webhooks());
        api.onRoleChange(() -> {
            announce();
            webhooks.check();
            // A new leader starts its revisions at once: its first publication tells every tail
            // where the new epoch begins, before its first write.
            if (api.leadership().isLeader()) api.revisions().onFailure(t -> log.debug("change feed not started: {}", t.toString()));
        });
        consumers.add(vertx.eventBus().<Object>localConsumer(Bus.nodeApi(node), m -> serve(m.headers().get(Bus.OP_HEADER), m, lake.security.Caller.INTERNAL)));
        if (config.clustered()) {
            // Forwarded writes arrive from other nodes, so they present the client's token like any bus request.
            consumers.add(vertx.eventBus().<Object>consumer(Bus.nodeForward(node), this::serveForwarded));
            // A follower sends the writes of one event-loop turn several to a message (BusBatch); each item
            // presents its own client's token and is served exactly as if it came alone.
            consumers.add(vertx.eventBus().<Object>consumer(BusBatch.address(Bus.nodeForward(node)),
                    m -> BusBatch.serve(m, this::answerForwarded)));
        }
        if (publicApi) {
            consumers.add(vertx.eventBus().<Object>consumer(Bus.KV_GET, m -> servePublic(Ops.GET, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.KV_SCAN, m -> servePublic(Ops.SCAN, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.KV_CAS, m -> servePublic(Ops.CAS, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.KV_DELETE, m -> servePublic(Ops.DELETE, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.KV_TXN, m -> servePublic(Ops.TXN, m)));
            for (String op : Ops.CATALOG) {
                consumers.add(vertx.eventBus().<Object>consumer(Ops.catalogAddress(op), m -> servePublic(op, m)));
            }
            consumers.add(vertx.eventBus().<Object>consumer(Bus.LEADER, m -> servePublic(Ops.LEADER, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.WATCH, m -> servePublic(Ops.WATCH, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.REVISION, m -> servePublic(Ops.REVISION, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.CATALOG_EVENTS, m -> servePublic(Ops.CATALOG_EVENTS, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.LEADER_RESIGN, m -> servePublic(Ops.RESIGN, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.CLUSTER, m -> servePublic(Ops.CLUSTER, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.GRANTS, m -> servePublic(Ops.GRANTS, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.GRANT, m -> servePublic(Ops.GRANT, m)));
            consumers.add(vertx.eventBus().<Object>consumer(Bus.REVOKE, m -> servePublic(Ops.REVOKE, m)));
        }
        List<Future<Void>> registered = new ArrayList<>();
        for (MessageConsumer<?> c : consumers) registered.add(c.completion());
        publisher = new lake.watch.Publisher(context, config.feed(), new lake.watch.TailFeeder(config.tail(), api.reads()),
                config.store().secret());
        return Future.all(registered).compose(v -> api.start()).compose(v -> publisher.start()).onSuccess(v -> {
            grants = api.grantsFollower();
            grants.start();
            heartbeatTimer = vertx.setPeriodic(FEED_HEARTBEAT_MS, id -> heartbeat());
            if (!config.feedSettings().webhooks().isEmpty()) webhookTimer = vertx.setPeriodic(1_000, id -> webhooks.check());
            webhooks.check();
            announce();
            announceTimer = vertx.setPeriodic(Membership.ENTRY_TTL_MS / 3, id -> announce());
            Chore<?> compaction = feedCompaction();
            compactionTimer = vertx.setPeriodic(config.feedSettings().compactIntervalMs(), id -> compaction.run());
            Chore<?> purges = purgePasses();
            purgeTimer = vertx.setPeriodic(config.lifecycle().purgeIntervalMs(), id -> purges.run());
            long sweepEvery = api.orphanSweepIntervalMs();
            Chore<?> sweeps = orphanSweep();
            if (sweepEvery > 0) orphanTimer = vertx.setPeriodic(sweepEvery, id -> sweeps.run());
        });
    }

    /** The leader's periodic orphan sweep of every Iceberg table (none while one runs); what it found is logged and metered. */
    private Chore<lake.orphans.OrphanSweep.Round> orphanSweep() {
        return new Chore<>(vertx, () -> api.sweepOrphans(), done -> {
            if (done.failed()) log.warn("orphan sweep failed: {}", done.cause().toString());
            else if (done.result().found() > 0 || done.result().skipped() > 0) {
                log.info("orphan sweep: {} table(s), {} orphan file(s) found, {} deleted, {} table(s) skipped", done.result().tables(),
                        done.result().found(), done.result().deleted(), done.result().skipped());
            }
            return false;
        }, () -> stopped);
    }

    /** Rounds of the feed's retention; another at once while expired records remain (so it keeps up with any write rate). */
    private Chore<lake.watch.Compactor.Round> feedCompaction() {
        return new Chore<>(vertx, () -> api.compactFeed(), done -> {
            if (done.failed()) {
                log.debug("change feed compaction failed: {}", done.cause().toString());
                return false;
            }
            if (done.result().records() > 0) {
                log.debug("change feed compacted {} record(s), floor {}", done.result().records(),
                        Long.toUnsignedString(done.result().floor()));
            }
            return done.result().more();
        }, () -> stopped);
    }

    /** Passes of the purge worker; another soon while it had more to delete than one pass may. */
    private Chore<lake.purge.PurgeWorker.Pass> purgePasses() {
        return new Chore<>(vertx, () -> api.purgePass(), done -> {
            if (done.failed()) {
                log.warn("purge pass failed (retried next tick): {}", done.cause().toString());
                return false;
            }
            lake.purge.PurgeWorker.Pass p = done.result();
            if (p.queued() + p.batches() + p.finished() + p.refused() > 0) {
                log.debug("purge pass: {} queued by retention, {} batch(es), {} file(s) deleted, {} finished, {} refused",
                        p.queued(), p.batches(), p.deleted(), p.finished(), p.refused());
            }
            return p.batches() > 0;
        }, () -> stopped);
    }

    /** The leader's watermark, published when nothing else was: tails that missed a run, or just started, catch up. */
    private void heartbeat() {
        if (stopped || publisher.sentSinceLastAsked() || !api.leadership().isLeader()) return;
        api.revisions().onSuccess(lake.feed.Sequencer::heartbeat);
    }

    private void announce() {
        Leadership l = api.leadership();
        api.membership().announce(new JsonObject(new lake.wire.ClusterInfo.Member(config.settings().nodeId(),
                l.isLeader() ? "leader" : "follower", l.isLeader() ? (Long) l.epoch() : null, httpHost, httpPort.getAsInt(),
                // When this entry was last refreshed (this node's wall clock): the console shows a member
                // that stopped refreshing by its age, before the entry expires.
                config.clock().wallMillis()).toMap()))
                .onFailure(t -> log.debug("membership announcement failed: {}", t.getMessage()));
    }

    /**
     * Stops taking requests, then lets those already admitted finish, for at most {@code drainMs}
     * so that a stuck store cannot hold up shutdown. The leadership feed stays on meanwhile: a
     * write in flight may be waiting for a renewal.
     */
    @Override
    public Future<?> stop() {
        List<Future<Void>> unregistered = new ArrayList<>();
        for (MessageConsumer<?> c : consumers) unregistered.add(c.unregister());
        vertx.cancelTimer(announceTimer);
        stopped = true;
        vertx.cancelTimer(compactionTimer);
        vertx.cancelTimer(orphanTimer);
        vertx.cancelTimer(heartbeatTimer);
        vertx.cancelTimer(webhookTimer);
        vertx.cancelTimer(purgeTimer);
        if (grants != null) grants.stop();
        Future<Void> withdrawn = api.membership().withdraw(config.settings().nodeId()).recover(t -> Future.succeededFuture());
        return Future.join(unregistered).transform(ignored -> withdrawn).transform(ignored -> {
            if (inFlight == 0) return Future.succeededFuture();
            drained = Promise.promise();
            long timer = vertx.setTimer(Math.max(1, drainMs), id -> drained.tryComplete());
            return drained.future().onComplete(ar -> vertx.cancelTimer(timer));
        }).transform(ignored -> publisher == null ? Future.succeededFuture() : publisher.stop())
                .transform(ignored -> webhooks == null ? Future.succeededFuture() : webhooks.stop())
                .transform(ignored -> api.stop());
    }

    /** Authenticates (401 here); what the principal may do is decided by {@link NodeApi} once the request is decoded. */
    private void servePublic(String op, Message<Object> msg) {
        inFlight++; // from arrival: a stop drains a request still waiting for its token's key too
        access.bus(msg.headers(), op).onComplete(ar -> {
            if (ar.succeeded()) serve(op, msg, ar.result());
            else fail(msg, ar.cause());
            settled();
        });
    }

    /** A write a follower forwarded: its client's token, or the principal the follower vouches for ({@link AccessControl#forwarded}). */
    private void serveForwarded(Message<Object> msg) {
        String op = String.valueOf(msg.headers().get(Bus.OP_HEADER));
        inFlight++;
        access.forwarded(msg.headers(), op).onComplete(ar -> {
            if (ar.succeeded()) serve(op, msg, ar.result());
            else fail(msg, ar.cause());
            settled();
        });
    }

    /** One request fewer in flight; the last one lets a stop that waits to drain proceed. */
    private void settled() {
        if (--inFlight == 0 && drained != null) drained.tryComplete();
    }

    private static void fail(Message<Object> msg, Throwable refused) {
        ApiError e = ApiError.from(refused);
        msg.fail(e.status(), e.toJson().encode());
    }

    private Future<BusBatch.Answer> answerForwarded(io.vertx.core.MultiMap headers, Object body) {
        String op = String.valueOf(headers.get(Bus.OP_HEADER));
        // Counted from arrival: a stop drains a write still waiting for its token's key too.
        inFlight++;
        return access.forwarded(headers, op).transform(authenticated -> {
            if (authenticated.failed()) {
                settled();
                ApiError refused = ApiError.from(authenticated.cause());
                return Future.succeededFuture(BusBatch.Answer.fail(refused.status(), refused.toJson().encode()));
            }
            return answerAuthenticated(op, body, headers, authenticated.result());
        });
    }

    private Future<BusBatch.Answer> answerAuthenticated(String op, Object body, io.vertx.core.MultiMap headers, lake.security.Caller caller) {
        return api.serve(op, body, headers, caller).transform(ar -> {
            if (--inFlight == 0 && drained != null) drained.tryComplete();
            if (ar.succeeded()) return Future.succeededFuture(BusBatch.Answer.ok(ar.result()));
            ApiError e = ApiError.from(ar.cause());
            return Future.succeededFuture(BusBatch.Answer.fail(e.status(), e.toJson().encode()));
        });
    }

    private void serve(String op, Message<Object> msg, lake.security.Caller caller) {
        inFlight++;
        api.serve(op, msg.body(), msg.headers(), caller).onComplete(ar -> {
            if (ar.succeeded()) {
                JsonObject body = ar.result();
                DeliveryOptions opts = new DeliveryOptions();
                Object epoch = body.getValue("epoch");
                Leadership l = api.leadership();
                if (epoch != null) opts.addHeader(Bus.EPOCH_HEADER, String.valueOf(epoch));
                else if (l.leaderEpoch() != 0) opts.addHeader(Bus.EPOCH_HEADER, Long.toUnsignedString(l.leaderEpoch()));
                msg.reply(body, opts);
            } else {
                ApiError e = ApiError.from(ar.cause());
                msg.fail(e.status(), e.toJson().encode());
            }
            // After the answer is on its way: a stop waiting to drain may now proceed.
            if (--inFlight == 0 && drained != null) drained.tryComplete();
        });
    }
}
