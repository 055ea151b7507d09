package lake.forward;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.bus.BusBatch;
import lake.election.LeaseRecord;
import lake.meta.MetaStore;
import lake.metasrv.Leadership;
import lake.metasrv.MetasrvException;
import lake.metasrv.NodeClock;
import lake.protocol.ApiError;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A follower's write path: forwards the request to the leader's API over the clustered event bus,
 * carrying the epoch of the lease it saw. The first attempt addresses the leader from this node's
 * leadership snapshot (its election verticle republishes the lease it read every round) without
 * reading the store; every later attempt reads the lease record itself. A stale snapshot costs at
 * most that retry, never a wrong answer: the leader refuses, before writing, any epoch it does not
 * lead, and that refusal is a certain "not applied".
 *
 * <p>It retries, within a bounded time, only when the previous attempt certainly did not apply:
 * no leader yet, no handler for the leader's address, the target answered {@code not_leader}
 * (it refused before writing — including when it no longer leads the epoch the follower saw), or
 * {@code fenced} (a paused leader's write met a newer lease in the store, which refused it whole).
 * When the outcome is unknown — the request left and no answer came, or the connection broke —
 * it answers {@code 504 outcome_unknown} rather than retrying blindly.
 *
 * <p>A write sent to a node that then leaves the cluster ({@link #lost(String)}: Hazelcast dropped
 * it, about a second after a crash, when its connections are reset) is answered at once with
 * {@code 504 outcome_unknown}: it may have applied before the node died, so it is never retried
 * and never called {@code not_leader}. The event bus itself would keep it waiting for its timeout.
 *
 * <p>When the lease names this node itself, there is nobody to forward to: it fails at once with
 * {@link LeaderIsThisNode}, so the caller can hand the write to this node's own fenced writer
 * as soon as the node learns its new leadership, instead of waiting out the retry window.
 */
public final class Forwarder {
    private static final long RETRY_PAUSE_MS = 100;

    private final Vertx vertx;
    private final String nodeId;
    private final String leaseKey;
    private final MetaStore store;
    private final Supplier<Leadership> snapshot;
    private final NodeClock clock;
    private final long requestTimeoutMs;
    private final long retryWindowMs;
    /**
     * Forwarded writes that queue up share a message to the leader: all of a node's, when its API
     * instances share one sender (its forwarding lane).
     */
    private final BusBatch.Sender batches;
    /**
     * Writes sent and not yet answered, by the node they were sent to, so that a node's departure
     * answers exactly its own. Concurrent: callers and answers may be on different threads.
     */
    private final Map<String, Set<Promise<JsonObject>>> awaiting = new ConcurrentHashMap<>();
    /** The node's count of forwarded writes awaiting their answer (all its forwarders), for its meters. */
    private final AtomicInteger inFlight;
    /** The node's liveness probe of the nodes that hold unanswered writes; null: Hazelcast's departures only. */
    private final lake.cluster.Liveness liveness;

    /**
     * @param snapshot      this node's latest leadership, as its election verticle published it
     * @param retryWindowMs how long to keep looking for a leader (about a TTL plus a renewal)
     */
    public Forwarder(Vertx vertx, String nodeId, String leaseKey, MetaStore store, Supplier<Leadership> snapshot,
                     NodeClock clock, long requestTimeoutMs, long retryWindowMs) {
        this(vertx, nodeId, leaseKey, store, snapshot, clock, requestTimeoutMs, retryWindowMs, BusBatch.Sender.standard(vertx));
    }

    /** As above, sending through {@code batches}, the node's forwarding lane (answers come back on the caller's context). */
    public Forwarder(Vertx vertx, String nodeId, String leaseKey, MetaStore store, Supplier<Leadership> snapshot,
                     NodeClock clock, long requestTimeoutMs, long retryWindowMs, BusBatch.Sender batches) {
        this(vertx, nodeId, leaseKey, store, snapshot, clock, requestTimeoutMs, retryWindowMs, batches, new AtomicInteger());
    }

    /** As above, counting the writes sent and not yet answered in {@code inFlight} (shared by a node's forwarders). */
    public Forwarder(Vertx vertx, String nodeId, String leaseKey, MetaStore store, Supplier<Leadership> snapshot,
                     NodeClock clock, long requestTimeoutMs, long retryWindowMs, BusBatch.Sender batches, AtomicInteger inFlight) {
        this(vertx, nodeId, leaseKey, store, snapshot, clock, requestTimeoutMs, retryWindowMs, batches, inFlight, null);
    }

    /**
     * As above, telling the node's {@code liveness} of every write sent and answered, so that a
     * node that dies with writes in flight is known dead before Hazelcast drops it.
     */
    public Forwarder(Vertx vertx, String nodeId, String leaseKey, MetaStore store, Supplier<Leadership> snapshot,
                     NodeClock clock, long requestTimeoutMs, long retryWindowMs, BusBatch.Sender batches, AtomicInteger inFlight,
                     lake.cluster.Liveness liveness) {
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.leaseKey = leaseKey;
        this.store = store;
        this.snapshot = snapshot;
        this.clock = clock;
        this.requestTimeoutMs = requestTimeoutMs;
        this.retryWindowMs = retryWindowMs;
        this.batches = batches;
        this.inFlight = inFlight;
        this.liveness = liveness;
    }

    /**
     * {@code node} left the cluster (Hazelcast dropped it) or refused a liveness probe (nothing
     * listens at its event-bus address): every write sent to it and not yet answered is answered now,
     * {@code 504 outcome_unknown} (it may have applied before the node went). Writes sent to other
     * nodes are untouched; later attempts find the leader afresh.
     */
    public void lost(String node) {
        lost(node, lake.cluster.Liveness.DROPPED);
    }

    /** As {@link #lost(String)}, saying how it was learnt ({@link lake.cluster.Liveness#PROBED} or {@code DROPPED}). */
    public void lost(String node, String how) {
        Set<Promise<JsonObject>> sent = awaiting.remove(node);
        if (sent == null) return;
        for (Promise<JsonObject> p : sent) {
            p.tryFail(new ApiError(504, "outcome_unknown", "the write was forwarded to " + node
                    + ", which left the cluster before answering (" + how + "); it may or may not have applied", null));
        }
    }

    /** The lease names this node: the write belongs to its own fenced writer. Certainly unapplied. */
    public static final class LeaderIsThisNode extends RuntimeException {
        public LeaderIsThisNode(String nodeId) {
            super("the lease names node " + nodeId + " itself", null, false, false);
        }
    }

    public static boolean isForwarded(MultiMap headers) {
        return headers.contains(Bus.FORWARDED_EPOCH_HEADER);
    }

    /**
     * Forwards {@code op} with {@code body}: the client's request bytes as received (decoded and
     * checked here already; the leader decodes them again with the same strict decoder), or a JSON
     * object (a request that came as one, which the leader decodes field by field).
     * {@code clientEpoch} is the epoch header the client sent and {@code token} its access token,
     * if any (the leader checks it again).
     */
    public Future<JsonObject> forward(String op, Object body, String clientEpoch, String token) {
        return forward(op, body, clientEpoch, token, deadline());
    }

    /** When a forwarding that starts now gives up (monotonic nanos). */
    public long deadline() {
        return clock.monoNanos() + retryWindowMs * 1_000_000L;
    }

    /** As {@link #forward(String, Object, String, String)}, giving up at {@code giveUpAt}. */
    public Future<JsonObject> forward(String op, Object body, String clientEpoch, String token, long giveUpAt) {
        return forward(op, body, clientEpoch, token, null, giveUpAt);
    }

    /**
     * As {@link #forward(String, Object, String, String, long)}, for a client this node
     * authenticated without a token (a client certificate): {@code vouch} names its principal and
     * carries the cluster secret, which the leader requires before it takes the name.
     */
    public Future<JsonObject> forward(String op, Object body, String clientEpoch, String token, Vouch vouch, long giveUpAt) {
        Optional<Target> known = fromSnapshot();
        Request request = new Request(op, body, clientEpoch, token, vouch);
        return known.isPresent() ? send(request, known.get(), giveUpAt) : attempt(request, giveUpAt);
    }

    private record Request(String op, Object body, String clientEpoch, String token, Vouch vouch) {}

    /** A principal this node authenticated, and the cluster secret that lets the leader believe it. */
    public record Vouch(String principal, String clusterSecret) {
        @Override
        public String toString() {
            return "Vouch[" + principal + "]";
        }
    }

    /** Where a forwarded write goes: the lease holder and the epoch it must still lead. */
    private record Target(String holder, long epoch) {}

    /** The snapshot's leader, when it names another node under a known epoch and an unexpired lease. */
    private Optional<Target> fromSnapshot() {
        Leadership l = snapshot.get();
        if (l.isLeader() || l.leader().isEmpty() || l.leader().get().equals(nodeId) || l.leaderEpoch() == 0) return Optional.empty();
        if (Long.compareUnsigned(l.expiresAtMs(), clock.wallMillis()) <= 0) return Optional.empty();
        return Optional.of(new Target(l.leader().get(), l.leaderEpoch()));
    }

    /** An attempt that reads the lease record to find the leader. */
    private Future<JsonObject> attempt(Request r, long giveUpAt) {
        return leader().compose(lease -> {
            if (lease.isEmpty()) {
                return retryOr(r, giveUpAt, new MetasrvException.NotLeader(
                        "no leader is available to take the write", null));
            }
            if (lease.get().holder().equals(nodeId)) return Future.failedFuture(new LeaderIsThisNode(nodeId));
            return send(r, new Target(lease.get().holder(), lease.get().epoch()), giveUpAt);
        });
    }

    private Future<JsonObject> send(Request r, Target leader, long giveUpAt) {
        DeliveryOptions opts = new DeliveryOptions().setSendTimeout(requestTimeoutMs)
                .addHeader(Bus.OP_HEADER, r.op())
                .addHeader(Bus.FORWARDED_EPOCH_HEADER, Long.toUnsignedString(leader.epoch()))
                .addHeader(Bus.FORWARDED_BY_HEADER, nodeId);
        if (r.clientEpoch() != null) opts.addHeader(Bus.EPOCH_HEADER, r.clientEpoch());
        if (r.token() != null) opts.addHeader(Bus.TOKEN_HEADER, r.token());
        if (r.token() == null && r.vouch() != null) {
            opts.addHeader(Bus.PRINCIPAL_HEADER, r.vouch().principal()).addHeader(Bus.SECRET_HEADER, r.vouch().clusterSecret());
        }
        // Answered on the caller's context, whoever completes it (the lane's answer, or lost()).
        Promise<JsonObject> answer = Vertx.currentContext() instanceof ContextInternal c ? c.promise() : Promise.promise();
        // Added atomically with respect to lost(), which takes the node's whole set away.
        Set<Promise<JsonObject>> toLeader = awaiting.compute(leader.holder(), (h, sent) -> {
            Set<Promise<JsonObject>> set = sent != null ? sent : ConcurrentHashMap.newKeySet();
            set.add(answer);
            return set;
        });
        inFlight.incrementAndGet();
        // Registered before sent(): whatever happens next, the counts come back down.
        answer.future().onComplete(ar -> {
            toLeader.remove(answer);
            inFlight.decrementAndGet();
            if (liveness != null) liveness.answered(leader.holder());
        });
        if (liveness != null) liveness.sent(leader.holder());
        batches.request(Bus.nodeForward(leader.holder()), r.body(), opts).onComplete(answer::tryComplete, answer::tryFail);
        return answer.future()
                .recover(t -> {
                    if (certainlyNotApplied(t)) return retryOr(r, giveUpAt, t);
                    if (t instanceof ReplyException re && re.failureType() != ReplyFailure.RECIPIENT_FAILURE) {
                        return Future.failedFuture(new ApiError(504, "outcome_unknown", "the write was forwarded to "
                                + leader.holder() + " and no answer came (" + re.failureType()
                                + "); it may or may not have applied", null));
                    }
                    return Future.failedFuture(t);
                });
    }

    private Future<JsonObject> retryOr(Request r, long giveUpAt, Throwable failure) {
        if (clock.monoNanos() - giveUpAt >= 0) {
            // Every attempt certainly did not apply: say so as not_leader, which a client may retry.
            boolean unreachable = failure instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS;
            return Future.failedFuture(unreachable
                    ? new MetasrvException.NotLeader("the leader is not reachable from node " + nodeId, null)
                    : failure);
        }
        Promise<Void> pause = Promise.promise();
        vertx.setTimer(RETRY_PAUSE_MS, id -> pause.complete());
        return pause.future().compose(v -> attempt(r, giveUpAt));
    }

    private static boolean certainlyNotApplied(Throwable t) {
        if (!(t instanceof ReplyException re)) return false;
        if (re.failureType() == ReplyFailure.NO_HANDLERS) return true;
        if (re.failureType() != ReplyFailure.RECIPIENT_FAILURE) return false;
        ApiError e = ApiError.fromReply(re);
        return e != null && (e.code().equals("not_leader") || e.code().equals("fenced"));
    }

    private Future<Optional<LeaseRecord>> leader() {
        return store.get(leaseKey).map(bytes -> bytes.map(LeaseRecord::decode)
                .filter(r -> !r.expiredAt(clock.wallMillis())));
    }
}
