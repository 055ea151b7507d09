package lake.server;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import lake.cluster.Forwarder;
import lake.cluster.Membership;
import lake.election.LeaseRecord;
import lake.meta.MetaStore;
import lake.metasrv.ClientMutation;
import lake.metasrv.FencedWriter;
import lake.metasrv.Leadership;
import lake.metasrv.NodeClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Serves the Metasrv API for one node on the event bus: the public addresses ({@code lake.v1.*},
 * which any clustered verticle may call) and the node's own address, used by its HTTP ingress.
 * Learns leadership only from its election verticle's publications; every write goes through the
 * {@link FencedWriter}. Replies carry {@link Bus#EPOCH_HEADER}; failures are {@code ReplyException}s
 * whose code is the HTTP status and whose message is the error JSON.
 */
public final class ApiVerticle extends VerticleBase {
    private static final Logger log = LoggerFactory.getLogger(ApiVerticle.class);

    public static final String GET = "get";
    public static final String SCAN = "scan";
    public static final String CAS = "cas";
    public static final String DELETE = "delete";
    public static final String LEADER = "leader";
    public static final String RESIGN = "resign";
    public static final String READY = "ready";
    public static final String CLUSTER = "cluster";

    private final ElectionSettings settings;
    private final NodeClock clock;
    private final boolean publicApi;
    private final boolean clustered;
    private final java.util.function.IntSupplier httpPort;
    private Forwarder forwarder;
    private Membership membership;
    private final AccessControl access;
    private final NodeMetrics metrics;
    private final long drainMs;
    /** Requests admitted and not yet answered; confined to this verticle's event loop. */
    private int inFlight;
    private Promise<Void> drained;
    private final List<MessageConsumer<?>> consumers = new ArrayList<>();
    private final List<Promise<Leadership>> waitingForLeadership = new ArrayList<>();
    private Leadership leadership;
    private BusMetaStore reads;
    private FencedWriter writer;

    /**
     * @param publicApi also answer on the shared {@code lake.v1.*} addresses
     * @param clustered serve {@link Bus#nodeForward} to the cluster and forward writes to the leader
     * @param httpPort  the bound HTTP port, announced to the cluster (0 until bound)
     * @param forwardWindowMs how long a follower keeps looking for a leader to forward a write to
     * @param access    checks the token of every {@code lake.v1.*} and forwarded request (the node's
     *                  own address is local, used by the HTTP ingress, which checks its requests itself)
     * @param drainMs   on stop, how long admitted requests may take to finish
     */
    public ApiVerticle(ElectionSettings settings, NodeClock clock, boolean publicApi, boolean clustered,
                       java.util.function.IntSupplier httpPort, long forwardWindowMs, long requestTimeoutMs,
                       AccessControl access, NodeMetrics metrics, long drainMs) {
        this.settings = settings;
        this.clock = clock;
        this.publicApi = publicApi;
        this.clustered = clustered;
        this.httpPort = httpPort;
        this.forwardWindowMs = forwardWindowMs;
        this.requestTimeoutMs = requestTimeoutMs;
        this.access = access;
        this.metrics = metrics;
        this.drainMs = drainMs;
    }

    private final long forwardWindowMs;
    private final long requestTimeoutMs;
    private long announceTimer = -1;

    @Override
    public Future<?> start() {
        String node = settings.nodeId();
        leadership = Leadership.follower(node, Optional.empty(), 0, "starting");
        reads = settings.store(vertx, () -> leadership.epoch());
        writer = new FencedWriter(node, settings.leaseKey(), () -> leadership, this::nextLeadership,
                epoch -> reads.withEpoch(epoch), this::stepDown, clock::monoNanos);

        consumers.add(vertx.eventBus().<Leadership>localConsumer(Bus.leadership(node), m -> learn(m.body())));
        consumers.add(vertx.eventBus().<JsonObject>localConsumer(Bus.nodeApi(node), m -> serve(m.headers().get(Bus.OP_HEADER), m)));
        membership = new Membership(vertx);
        if (clustered) {
            forwarder = new Forwarder(vertx, node, settings.leaseKey(), reads, clock, requestTimeoutMs, forwardWindowMs);
            // Forwarded writes arrive from other nodes, so they present the client's token like any bus request.
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.nodeForward(node),
                    m -> servePublic(String.valueOf(m.headers().get(Bus.OP_HEADER)), m)));
        }
        if (publicApi) {
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.KV_GET, m -> servePublic(GET, m)));
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.KV_SCAN, m -> servePublic(SCAN, m)));
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.KV_CAS, m -> servePublic(CAS, m)));
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.KV_DELETE, m -> servePublic(DELETE, m)));
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.LEADER, m -> servePublic(LEADER, m)));
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.LEADER_RESIGN, m -> servePublic(RESIGN, m)));
            consumers.add(vertx.eventBus().<JsonObject>consumer(Bus.CLUSTER, m -> servePublic(CLUSTER, m)));
        }
        List<Future<Void>> registered = new ArrayList<>();
        for (MessageConsumer<?> c : consumers) registered.add(c.completion());
        // Learn the current leadership once; publications keep it current from then on.
        return Future.all(registered).compose(v -> vertx.eventBus()
                .<Leadership>request(Bus.election(node), null, new DeliveryOptions().addHeader(Bus.OP_HEADER, "status"))
                .onSuccess(m -> learn(m.body())))
                .onSuccess(v -> {
                    announce();
                    announceTimer = vertx.setPeriodic(Membership.ENTRY_TTL_MS / 3, id -> announce());
                });
    }

    private void announce() {
        Leadership l = leadership;
        membership.announce(new JsonObject().put("node_id", settings.nodeId())
                .put("role", l.isLeader() ? "leader" : "follower")
                .put("epoch", l.isLeader() ? ApiRequests.u64(l.epoch()) : null)
                .put("http_port", httpPort.getAsInt()))
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
        for (MessageConsumer<?> c : consumers) {
            if (!c.address().equals(Bus.leadership(settings.nodeId()))) unregistered.add(c.unregister());
        }
        vertx.cancelTimer(announceTimer);
        Future<Void> withdrawn = membership.withdraw(settings.nodeId()).recover(t -> Future.succeededFuture());
        return Future.join(unregistered).transform(ignored -> withdrawn).transform(ignored -> {
            if (inFlight == 0) return Future.succeededFuture();
            drained = Promise.promise();
            long timer = vertx.setTimer(Math.max(1, drainMs), id -> drained.tryComplete());
            return drained.future().onComplete(ar -> vertx.cancelTimer(timer));
        });
    }

    private void servePublic(String op, Message<JsonObject> msg) {
        if (access.bus(msg, op.equals(CAS) || op.equals(DELETE) || op.equals(RESIGN))) serve(op, msg);
    }

    private void learn(Leadership next) {
        boolean roleChanged = leadership.isLeader() != next.isLeader() || leadership.epoch() != next.epoch();
        leadership = next;
        if (roleChanged && membership != null) announce();
        List<Promise<Leadership>> waiting = new ArrayList<>(waitingForLeadership);
        waitingForLeadership.clear();
        waiting.forEach(p -> p.tryComplete(next));
    }

    /** The next leadership this node publishes, or a failure once its current authority would have ended. */
    private Future<Leadership> nextLeadership() {
        Promise<Leadership> p = Promise.promise();
        waitingForLeadership.add(p);
        long waitMs = Math.max(1, Math.min(settings.ttlMs(), (leadership.deadlineNanos() - clock.monoNanos()) / 1_000_000L));
        vertx.setTimer(waitMs, id -> {
            if (waitingForLeadership.remove(p)) p.tryComplete(leadership);
        });
        return p.future();
    }

    private void stepDown(String reason) {
        log.warn("fenced rejection on node {}: {}", settings.nodeId(), reason);
        vertx.eventBus().request(Bus.election(settings.nodeId()), new JsonObject().put("reason", reason),
                new DeliveryOptions().addHeader(Bus.OP_HEADER, "step-down"));
    }

    private void serve(String op, Message<JsonObject> msg) {
        long startNanos = System.nanoTime();
        inFlight++;
        Future<JsonObject> result;
        try {
            result = handle(op == null ? "" : op, msg);
        } catch (RuntimeException e) {
            result = Future.failedFuture(e);
        }
        result.onComplete(ar -> {
            if (ar.succeeded()) {
                JsonObject body = ar.result();
                metrics.request(op, body.getValue("applied") instanceof Boolean applied
                        ? (applied ? NodeMetrics.APPLIED : NodeMetrics.NOT_APPLIED) : NodeMetrics.OK, System.nanoTime() - startNanos);
                DeliveryOptions opts = new DeliveryOptions();
                Object epoch = body.getValue("epoch");
                if (epoch != null) opts.addHeader(Bus.EPOCH_HEADER, String.valueOf(epoch));
                else if (leadership.leaderEpoch() != 0) opts.addHeader(Bus.EPOCH_HEADER, Long.toUnsignedString(leadership.leaderEpoch()));
                msg.reply(body, opts);
            } else {
                ApiError e = ApiError.from(ar.cause());
                metrics.request(op, e.code(), System.nanoTime() - startNanos);
                if (e.status() == 500) log.error("request {} failed", op, ar.cause());
                msg.fail(e.status(), e.toJson().encode());
            }
            // After the answer is on its way: a stop waiting to drain may now proceed.
            if (--inFlight == 0 && drained != null) drained.tryComplete();
        });
    }

    private Future<JsonObject> handle(String op, Message<JsonObject> msg) {
        JsonObject body = msg.body();
        return switch (op) {
            case GET -> {
                String key = ApiRequests.key(body);
                yield reads.get(key).compose(v -> v
                        .map(bytes -> Future.succeededFuture(new JsonObject().put("key", key).put("value", StoreProtocol.b64(bytes))))
                        .orElseGet(() -> Future.failedFuture(ApiError.notFound("key '" + key + "' not found"))));
            }
            case SCAN -> {
                ApiRequests.Scan s = ApiRequests.scan(body);
                yield reads.scanPrefix(s.prefix(), s.continuation(), s.limit()).map(StoreProtocol::page);
            }
            case CAS -> write(CAS, msg, ApiRequests.cas(body, ApiRequests.headerEpoch(msg.headers().get(Bus.EPOCH_HEADER))));
            case DELETE -> write(DELETE, msg, ApiRequests.delete(body, ApiRequests.headerEpoch(msg.headers().get(Bus.EPOCH_HEADER))));
            case CLUSTER -> membership.list().map(members -> new JsonObject().put("node_id", settings.nodeId()).put("members", members));
            case LEADER -> leader();
            case RESIGN -> vertx.eventBus().<JsonObject>request(Bus.election(settings.nodeId()), null,
                    new DeliveryOptions().addHeader(Bus.OP_HEADER, "resign")).map(Message::body);
            case READY -> leadership.hasAuthorityAt(clock.monoNanos())
                    ? Future.succeededFuture(new JsonObject().put("ready", true).put("role", "leader"))
                    : Future.failedFuture(new ApiError(503, "not_leader", "node " + settings.nodeId() + " cannot take writes", 1));
            default -> throw ApiError.invalid("unknown operation '" + op + "'");
        };
    }

    private Future<JsonObject> write(String op, Message<JsonObject> msg, ClientMutation m) {
        boolean forwarded = Forwarder.isForwarded(msg.headers());
        if (forwarded) {
            // The follower saw a lease of this epoch; refuse (certainly unapplied) unless we lead it.
            long seen = ApiRequests.headerEpoch(msg.headers().get(Bus.FORWARDED_EPOCH_HEADER));
            if (!leadership.isLeader() || leadership.epoch() != seen) {
                return Future.failedFuture(new lake.metasrv.MetasrvException.NotLeader("node " + settings.nodeId()
                        + " does not lead epoch " + Long.toUnsignedString(seen) + " (forwarded by "
                        + msg.headers().get(Bus.FORWARDED_BY_HEADER) + ")", null));
            }
        }
        return writer.apply(m)
                .map(o -> new JsonObject().put("applied", o.applied()).put("epoch", ApiRequests.u64(o.epoch())))
                .recover(t -> {
                    if (t instanceof lake.metasrv.MetasrvException.NotLeader && forwarder != null && !forwarded) {
                        return forwarder.forward(op, msg.body(), msg.headers().get(Bus.EPOCH_HEADER),
                                msg.headers().get(AccessControl.TOKEN_HEADER)).map(Message::body);
                    }
                    return Future.failedFuture(t);
                });
    }

    private Future<JsonObject> leader() {
        Leadership l = leadership;
        JsonObject out = new JsonObject().put("node_id", settings.nodeId())
                .put("role", l.isLeader() ? "leader" : "follower");
        return reads.get(settings.leaseKey()).map(bytes -> {
            Optional<LeaseRecord> lease = bytes.map(LeaseRecord::decode).filter(r -> !r.expiredAt(clock.wallMillis()));
            out.put("leader", lease.map(LeaseRecord::holder).orElse(null));
            out.put("epoch", lease.map(r -> ApiRequests.u64(r.epoch())).orElse(null));
            out.put("expires_at_ms", lease.map(LeaseRecord::expiresAtMs).orElse(null));
            return out;
        });
    }
}
