package lake.node;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.bus.BusMetaStore;
import lake.bus.LocalCodec;
import lake.bus.StoreLink;
import lake.election.Election;
import lake.election.ElectionSettings;
import lake.election.LeaseRecord;
import lake.election.LeaseStatus;
import lake.meta.MetaException;
import lake.metasrv.Leadership;
import lake.metasrv.NodeClock;
import lake.metrics.NodeMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Owns this node's leadership. Campaigns through the store on a timer, keeps the current lease
 * guard and the local authority deadline (monotonic, from the start of the winning campaign), and
 * publishes every change on {@link Bus#leadership(String)}.
 *
 * <p>A renewal that fails with a retryable fault (a DynamoDB transaction conflict with an in-flight
 * guarded mutation, throttling, a timeout) is retried with jitter until the local deadline; only
 * then does the node step down. Any other fault, or seeing another holder, steps down at once.
 *
 * <p>Control requests on {@link Bus#election(String)}, header {@code lake-op}: {@code status},
 * {@code campaign} (run a round now), {@code step-down} (body {@code {"reason"}}), {@code resign}.
 */
public final class ElectionVerticle extends VerticleBase {
    private static final Logger log = LoggerFactory.getLogger(ElectionVerticle.class);

    private final ElectionSettings settings;
    private final StoreLink storeLink;
    private final NodeClock clock;
    private final NodeMetrics metrics;
    private Election election;
    private String codec;
    private Leadership leadership;
    /** Rounds never overlap: each starts after the previous one completed. */
    private Future<Leadership> lastRound = Future.succeededFuture();
    private long roundTimer = -1;
    private long deadlineTimer = -1;
    /** After a resignation this node stays out of the race for one TTL, so a standby can take over. */
    private long noCampaignBeforeNanos;
    private boolean holdingOff;
    /** Whether the last round failed; logs a failing streak once, not every round. */
    private boolean campaignsFailing;
    /**
     * Completed when this node's own last {@link Bus#LEASE_RELEASED} announcement has come back to
     * its own consumer. A clustered publish reaches local consumers only after a subscription
     * lookup, so without waiting for it a stop right after resigning unregisters the consumer
     * first and Vert.x logs a "Discarding message" warning at every such stop.
     */
    private io.vertx.core.Promise<Void> ownReleaseSeen;
    /** The bound on that wait: a stop is never held up by it for longer. */
    private static final long OWN_RELEASE_WAIT_MS = 1_000;

    public ElectionVerticle(ElectionSettings settings, StoreLink storeLink, NodeClock clock, NodeMetrics metrics) {
        this(settings, storeLink, clock, metrics, () -> 0);
    }

    /** @param minEpoch the lowest epoch this node may lead (its change feed retires epochs it cannot settle) */
    public ElectionVerticle(ElectionSettings settings, StoreLink storeLink, NodeClock clock, NodeMetrics metrics,
                            java.util.function.LongSupplier minEpoch) {
        this.settings = settings;
        this.storeLink = storeLink;
        this.clock = clock;
        this.metrics = metrics;
        this.minEpoch = minEpoch;
    }

    private final java.util.function.LongSupplier minEpoch;

    @Override
    public Future<?> start() {
        codec = LocalCodec.register(vertx, Leadership.class);
        BusMetaStore store = storeLink.open(vertx, () -> leadership.epoch());
        election = new Election(store, settings.leaseKey(), settings.nodeId(), settings.ttlMs());
        leadership = Leadership.follower(settings.nodeId(), Optional.empty(), 0, "starting");
        Future<Void> registered = vertx.eventBus().<JsonObject>localConsumer(Bus.election(settings.nodeId()), this::control)
                .completion();
        // A leader that resigns says so, so standbys campaign at once instead of at their next round.
        // It carries the released record, so the round is one CAS from those bytes instead of a read and a CAS.
        Future<Void> released = vertx.eventBus().<Object>consumer(Bus.LEASE_RELEASED, m -> {
            // Anything else on this address (from a member of another version, or a forger) is at most an ordinary round.
            JsonObject body = m.body() instanceof JsonObject o ? o : new JsonObject();
            if (settings.nodeId().equals(body.getValue("node_id"))) {
                // Its own (or one claiming to be: that only ends the wait in stop() early).
                if (ownReleaseSeen != null) ownReleaseSeen.tryComplete();
            } else if (settings.renewMs() > 0) {
                round(releasedLease(body));
            }
        }).completion();
        Future<Void> ready = Future.all(registered, released).mapEmpty();
        if (settings.renewMs() > 0) ready.onSuccess(v -> round());
        return ready;
    }

    @Override
    public Future<?> stop() {
        vertx.cancelTimer(roundTimer);
        vertx.cancelTimer(deadlineTimer);
        if (ownReleaseSeen == null) return Future.succeededFuture();
        return ownReleaseSeen.future().timeout(OWN_RELEASE_WAIT_MS, java.util.concurrent.TimeUnit.MILLISECONDS).otherwiseEmpty();
    }

    private void control(Message<JsonObject> msg) {
        String op = Objects.requireNonNullElse(msg.headers().get(Bus.OP_HEADER), "status");
        switch (op) {
            case "status" -> msg.reply(leadership, new DeliveryOptions().setCodecName(codec));
            case "campaign" -> round().onComplete(ar -> msg.reply(leadership, new DeliveryOptions().setCodecName(codec)));
            case "step-down" -> {
                String reason = msg.body() == null ? "requested" : msg.body().getString("reason", "requested");
                Long epoch = msg.body() == null ? null : msg.body().getLong("epoch");
                // A step-down names the epoch it is about: one about an epoch this node no longer
                // leads (its own renewal into a later one, say) leaves the new leadership alone.
                if (epoch == null || epoch == leadership.epoch()) stepDown(reason);
                msg.reply(leadership, new DeliveryOptions().setCodecName(codec));
            }
            case "resign" -> resign().onComplete(ar -> {
                if (ar.succeeded()) msg.reply(new JsonObject(new lake.wire.Resigned(ar.result()).toMap()));
                else msg.fail(500, String.valueOf(ar.cause().getMessage()));
            });
            default -> msg.fail(400, "unknown election operation '" + op + "'");
        }
    }

    /** Runs one round now (after any round in flight) and schedules the next one. */
    private Future<Leadership> round() {
        return round(null);
    }

    /** As {@link #round()}; with {@code released}, a record a leader announced it resigned, it tries to take that over first. */
    private Future<Leadership> round(byte[] released) {
        lastRound = lastRound.transform(ignored -> campaignOnce(released));
        return lastRound;
    }

    /** The record a {@link Bus#LEASE_RELEASED} announcement carries, or null when it carries none that decodes. */
    private static byte[] releasedLease(JsonObject announcement) {
        Object lease = announcement.getValue("lease");
        if (!(lease instanceof String s)) return null;
        try {
            return java.util.Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private Future<Leadership> campaignOnce(byte[] released) {
        vertx.cancelTimer(roundTimer);
        if (holdingOff && clock.monoNanos() - noCampaignBeforeNanos < 0) {
            scheduleRound(settings.renewMs());
            return Future.succeededFuture(leadership);
        }
        holdingOff = false;
        long startNanos = clock.monoNanos();
        // A leader has nothing to take over: an announcement that reaches it (its own round won
        // first, or a replay) is an ordinary round, which renews.
        long lowest = minEpoch.getAsLong();
        return (released == null || leadership.isLeader() ? election.campaign(clock.wallMillis(), lowest)
                : election.takeOverReleased(clock.wallMillis(), released, lowest))
                .compose(status -> {
                    // Lost: step down at once, learning the lease the campaign read (no second read).
                    if (status instanceof LeaseStatus.Follower f) onFollower(f.lease());
                    return Future.succeededFuture(status);
                })
                .transform(ar -> {
                    if (ar.succeeded()) {
                        if (campaignsFailing) log.info("node {} campaigns again", settings.nodeId());
                        campaignsFailing = false;
                        if (ar.result() instanceof LeaseStatus.Leader l) onLeader(l, startNanos);
                        scheduleRound(settings.renewMs());
                    } else {
                        onFailure(ar.cause());
                    }
                    return Future.succeededFuture(leadership);
                });
    }

    private void onLeader(LeaseStatus.Leader l, long startNanos) {
        long lowest = minEpoch.getAsLong();
        if (lowest != 0 && Long.compareUnsigned(l.guard().epoch(), lowest) < 0) {
            // Won at an epoch retired while this round was in flight: lead only from the next
            // round, which renews into a later epoch.
            vertx.setTimer(1, id -> round());
            return;
        }
        boolean wasLeader = leadership.isLeader();
        long previousEpoch = leadership.epoch();
        long deadline = startNanos + settings.authorityNanos();
        String reason = !wasLeader ? "won the lease" : previousEpoch != l.guard().epoch() ? "epoch changed" : "renewed";
        publish(Leadership.leader(settings.nodeId(), l.guard(), l.expiresAtMs(), deadline, reason));
        armDeadline(deadline);
    }

    /**
     * Follows {@code lease}. A follower republishes when holder, epoch or expiry changed, so its
     * snapshot names the current lease within one round: forwarded writes are addressed from it.
     */
    private void onFollower(Optional<LeaseRecord> lease) {
        Optional<String> holder = lease.map(LeaseRecord::holder);
        if (leadership.isLeader()) {
            stepDown("lease is held by " + holder.orElse("nobody"), lease);
        } else if (!leadership.leader().equals(holder) || leadership.leaderEpoch() != lease.map(LeaseRecord::epoch).orElse(0L)
                || leadership.expiresAtMs() != lease.map(LeaseRecord::expiresAtMs).orElse(0L)) {
            publish(Leadership.follower(settings.nodeId(), lease, "leader is " + holder.orElse("unknown")));
        }
    }

    private void onFailure(Throwable t) {
        boolean retryable = t instanceof MetaException.RetryableBackend;
        if (leadership.isLeader()) metrics.renewalFailed();
        if (leadership.isLeader() && retryable && leadership.hasAuthorityAt(clock.monoNanos())) {
            long remainingMs = (leadership.deadlineNanos() - clock.monoNanos()) / 1_000_000L;
            long delay = Math.max(1, Math.min(remainingMs, 20 + ThreadLocalRandom.current().nextLong(80)));
            log.warn("node {} lease renewal failed ({}); retrying in {} ms, {} ms of authority left",
                    settings.nodeId(), t.getMessage(), delay, remainingMs);
            scheduleRound(delay);
            return;
        }
        if (leadership.isLeader()) {
            stepDown("lease renewal failed: " + t.getMessage());
        } else if (!campaignsFailing) {
            // Once per streak: a standby that cannot reach the store cannot take over either.
            log.warn("node {} cannot campaign: {}", settings.nodeId(), t.getMessage());
        }
        campaignsFailing = true;
        scheduleRound(settings.renewMs());
    }

    /** Gives the lease up when this node leads; {@code false} when it had nothing to give up. */
    private Future<Boolean> resign() {
        Future<Boolean> done = lastRound.transform(ignored -> !leadership.isLeader() ? Future.succeededFuture(false)
                : election.resign(clock.wallMillis(), leadership.guard().orElseThrow().leaseBytes()).map(expired -> {
                    if (expired.isPresent()) {
                        long epoch = LeaseRecord.decode(expired.get()).epoch();
                        holdingOff = true;
                        noCampaignBeforeNanos = clock.monoNanos() + settings.ttlMs() * 1_000_000L;
                        stepDown(Leadership.RESIGNED);
                        ownReleaseSeen = io.vertx.core.Promise.promise();
                        vertx.eventBus().publish(Bus.LEASE_RELEASED, new JsonObject().put("node_id", settings.nodeId())
                                .put("epoch", Long.toUnsignedString(epoch))
                                .put("lease", java.util.Base64.getEncoder().encodeToString(expired.get())));
                    }
                    return expired.isPresent();
                }));
        lastRound = done.transform(ignored -> Future.succeededFuture(leadership));
        return done;
    }

    private void stepDown(String reason) {
        stepDown(reason, Optional.empty());
    }

    private void stepDown(String reason, Optional<LeaseRecord> newLease) {
        vertx.cancelTimer(deadlineTimer);
        if (!leadership.isLeader()) return;
        publish(Leadership.follower(settings.nodeId(), newLease, reason));
    }

    private void armDeadline(long deadlineNanos) {
        vertx.cancelTimer(deadlineTimer);
        long delayMs = Math.max(1, (deadlineNanos - clock.monoNanos()) / 1_000_000L + 1);
        deadlineTimer = vertx.setTimer(delayMs, id -> {
            if (leadership.isLeader() && !leadership.hasAuthorityAt(clock.monoNanos())) {
                stepDown("local lease deadline passed without a renewal");
            }
        });
    }

    private void scheduleRound(long delayMs) {
        vertx.cancelTimer(roundTimer);
        if (settings.renewMs() > 0 && delayMs > 0) roundTimer = vertx.setTimer(delayMs, id -> round());
    }

    private void publish(Leadership next) {
        Leadership previous = leadership;
        leadership = next;
        if (previous.isLeader() != next.isLeader() || previous.epoch() != next.epoch()) {
            // A step-down names the epoch given up; a win, the epoch taken.
            log.info("leadership node={} role={} epoch={} leader={} reason={}", settings.nodeId(),
                    next.isLeader() ? "leader" : "follower",
                    Long.toUnsignedString(next.isLeader() ? next.epoch() : previous.epoch()),
                    next.leader().orElse("-"), next.reason());
        }
        vertx.eventBus().publish(Bus.leadership(settings.nodeId()), next, new DeliveryOptions().setCodecName(codec));
    }
}
