package lake.metasrv;

import io.vertx.core.Future;
import lake.election.LeaseGuard;
import lake.election.LeaseRecord;
import lake.feed.ChangeRecord;
import lake.feed.Feed;
import lake.feed.FeedReads;
import lake.feed.RecordItems;
import lake.feed.Revisions;
import lake.feed.Sequencer;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.Transaction;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The leader's only write path. Every client write (a mutation or a transaction) becomes one
 * atomic store call whose guard is the exact lease record this node installed; the store checks
 * it in the same atomic step as the write's own conditions. Fails closed: no live local
 * authority, nothing is sent.
 *
 * <p>Every write that changes something gets a revision from the node's {@link Feed}, and its
 * change record is created (condition ABSENT) in the same store transaction, so a record exists
 * exactly when its write applied. The revision is settled once the outcome is known: applied,
 * refused, or, when the store's answer was lost, by a guarded void record at the same revision
 * (if it applies, the write can never; if the revision's key is taken, the write applied). A
 * revision that cannot be settled so leaves the feed's watermark behind it: the node steps down,
 * and the next leader's revisions start above every record (see {@link Feed}).
 *
 * <p>A write that comes back not applied is told apart by reading the lease (a guarded
 * mutation's {@code false} does not say which check failed, and a transaction's list of failed
 * operations need not name a failed guard on every backend):
 * <ul>
 *   <li>the lease still holds the exact guard bytes → the target's condition failed:
 *       {@code applied: false} (lease bytes never repeat, so the guard held at write time too);</li>
 *   <li>the lease holds this node's own later renewal (same holder, same epoch) → the write met a
 *       renewal in flight; it is retried with the fresh guard once this node learns it, so steady
 *       leadership never fails a write because of a renewal;</li>
 *   <li>anything else → the lease moved away: {@link MetasrvException.Fenced}, and the node steps
 *       down at once.</li>
 * </ul>
 */
public final class FencedWriter {

    /**
     * The outcome of an admitted write, with the epoch it was decided under; {@code failed} holds
     * the indexes of a transaction's operations whose conditions did not hold (empty otherwise);
     * {@code revision} is the applied write's revision (0 when it did not apply, or changed nothing).
     */
    public record Outcome(boolean applied, List<Integer> failed, long epoch, long revision) {
        public Outcome {
            failed = List.copyOf(failed);
            if (!applied && revision != 0) throw new IllegalArgumentException("a write not applied has no revision");
        }
    }

    private static final int MAX_RENEWAL_RETRIES = 3;
    /** Attempts at settling a revision whose write's answer was lost before the write is answered unknown (settling goes on). */
    private static final int SETTLE_ATTEMPTS = 3;
    /** Background tries at settling such a revision before the node gives its epoch up. */
    private static final int SETTLE_LATER_TRIES = 30;
    /** Writes one sequencer holds at most behind earlier writes to their keys; beyond, one that would wait is refused unsent. */
    static final int MAX_HELD = 10_000;
    /** Earlier revisions a write checks for at most (one store item each); with more, it waits. */
    static final int MAX_CHECKS = 8;

    private final String nodeId;
    private final String leaseKey;
    private final Supplier<Leadership> current;
    private final Supplier<Future<Leadership>> nextLeadership;
    private final LongFunction<MetaStore> storeAtEpoch;
    private final java.util.function.BiConsumer<String, Long> stepDown;
    private final LongSupplier monoNanos;
    private final LongSupplier wallMillis;
    private final Feed feed;
    private final java.util.concurrent.Executor ownLoop;
    private final java.util.function.BiConsumer<Long, Runnable> later;
    private final long orderWaitMs;
    private final boolean checkPredecessors;

    /**
     * @param current        this node's latest leadership, as its election verticle published it
     * @param nextLeadership completes with the next leadership this node publishes (bounded wait)
     * @param storeAtEpoch   the store, reached with every request carrying the given epoch
     * @param stepDown       tells the election verticle to give up leadership of the given epoch now, with a reason
     * @param feed           the node's revisions (one for every instance of its write path)
     * @param ownLoop        runs a task on this writer's event loop: the feed's sequencer may be
     *                       started by another instance, on another loop, and this writer's state
     *                       is confined to its own
     * @param later          runs a task on this writer's event loop after the given milliseconds
     * @param orderWaitMs    how long a write may wait for earlier writes to its keys before it
     *                       gives up unsent (below the request timeout, so its client hears it)
     * @param checkPredecessors send a write that conflicts with earlier ones still in flight at
     *                       once, checking in its transaction that their records exist, instead of
     *                       holding it until they settle (see {@link Sequencer#sendWithChecks})
     */
    public FencedWriter(String nodeId, String leaseKey, Supplier<Leadership> current,
                        Supplier<Future<Leadership>> nextLeadership, LongFunction<MetaStore> storeAtEpoch,
                        java.util.function.BiConsumer<String, Long> stepDown, LongSupplier monoNanos, LongSupplier wallMillis, Feed feed,
                        java.util.concurrent.Executor ownLoop, java.util.function.BiConsumer<Long, Runnable> later, long orderWaitMs,
                        boolean checkPredecessors) {
        this.nodeId = nodeId;
        this.leaseKey = leaseKey;
        this.current = current;
        this.nextLeadership = nextLeadership;
        this.storeAtEpoch = storeAtEpoch;
        this.stepDown = stepDown;
        this.monoNanos = monoNanos;
        this.wallMillis = wallMillis;
        this.feed = feed;
        this.ownLoop = ownLoop;
        this.later = later;
        this.orderWaitMs = orderWaitMs;
        this.checkPredecessors = checkPredecessors;
    }

    /** A revision held by one write across its attempts, settled exactly once. */
    private static final class Slot {
        final Sequencer sequencer;
        final long epoch;
        final long revision;
        /** The record the write stored, once known to have applied (published when settled). */
        ChangeRecord stored;
        /** The earlier revisions whose records the write's transaction checks for (empty: none). */
        long[] checks = new long[0];

        Slot(Sequencer sequencer, long epoch, ClientWrite write) {
            this.sequencer = sequencer;
            this.epoch = epoch;
            this.revision = sequencer.allocate(write.writtenKeys(), write.checkedKeys());
        }
    }

    public Future<Outcome> apply(ClientWrite write) {
        try {
            write.refuseLeaseKey(leaseKey);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        Admitted a;
        try {
            a = admit(write, null);
        } catch (RuntimeException refused) {
            return Future.failedFuture(refused);
        }
        if (write.changes().isEmpty()) return attempt(write, 0, null, a);
        return sequencer(a).compose(sequencer -> {
            Slot slot = new Slot(sequencer, a.guard.epoch(), write);
            return ordered(write, slot, a).compose(sendable -> attempt(write, 0, slot, sendable)).transform(done -> {
                // Unsettled: settling goes on in the background, which settles the slot (or retires its epoch).
                if (done.failed() && done.cause() instanceof Unsettled u) return Future.failedFuture(u.getCause());
                // Its outcome is known: the record exists, or never will.
                boolean unread = done.failed() && done.cause() instanceof MetaException.OutcomeUnknown;
                if (unread || (done.succeeded() && done.result().applied() && slot.stored == null)) {
                    slot.sequencer.settleFromStore(slot.revision);
                } else {
                    slot.sequencer.settle(slot.revision, done.succeeded() && done.result().applied() ? slot.stored : null);
                }
                return done.succeeded() ? Future.succeededFuture(done.result()) : Future.failedFuture(done.cause());
            });
        });
    }

    /**
     * Keeps writes that conflict in revision order (see {@link Sequencer}): with the write order
     * {@code wait}, {@code write} waits until every earlier write touching one of its keys has
     * settled; with {@code check}, only until they were handed to the store, and then carries
     * checks for their records ({@code slot.checks}). A write that waited is admitted again, since
     * its leadership may have changed meanwhile. Nothing is sent on failure.
     */
    private Future<Admitted> ordered(ClientWrite write, Slot slot, Admitted a) {
        if (!checkPredecessors) return held(write, slot, 0);
        int maxChecks = Math.min(MAX_CHECKS, Transaction.MAX_OPERATIONS - write.items() - 1);
        long[] checks = slot.sequencer.sendWithChecks(slot.revision, maxChecks);
        if (checks == null) return held(write, slot, maxChecks);
        slot.checks = checks;
        return Future.succeededFuture(a);
    }

    /**
     * Holds {@code write} until it may be sent: once every earlier conflicting revision has settled,
     * or, with {@code maxChecks > 0}, once those left are all on their way (it then checks for
     * their records). At most {@code orderWaitMs}, then it gives up: nothing of it applied. It is
     * admitted again, since its leadership may have changed meanwhile.
     */
    private Future<Admitted> held(ClientWrite write, Slot slot, int maxChecks) {
        slot.checks = new long[0];
        if (slot.sequencer.heldOver(slot.revision, MAX_HELD)) {
            return Future.failedFuture(new MetaException.RetryableBackend(MAX_HELD + " writes already wait for earlier writes to"
                    + " their keys (hot keys); this one would wait too, so it was not sent and did not apply", null));
        }
        io.vertx.core.Promise<long[]> turn = io.vertx.core.Promise.promise();
        long[] now;
        // This wait's own continuation: its deadline withdraws this wait, never a later one.
        Object waiter;
        if (maxChecks > 0) {
            java.util.function.Consumer<long[]> then = checks -> ownLoop.execute(() -> turn.tryComplete(checks));
            waiter = then;
            now = slot.sequencer.whenSendable(slot.revision, maxChecks, then);
        } else {
            java.util.function.Consumer<Boolean> then = go -> ownLoop.execute(() -> turn.tryComplete(go ? new long[0] : null));
            waiter = then;
            now = slot.sequencer.whenOrdered(slot.revision, then) ? new long[0] : null;
        }
        if (now != null) {
            slot.checks = now;
            return admitted(write, slot);
        }
        // Never sent after its client stopped waiting: past the deadline it gives up, certainly unsent.
        later.accept(orderWaitMs, () -> {
            if (slot.sequencer.cancelWait(slot.revision, waiter)) {
                turn.tryFail(new MetaException.RetryableBackend("an earlier write to one of this write's keys was still unsettled after "
                        + orderWaitMs + " ms; this one was not sent and did not apply", null));
            }
        });
        return turn.future().compose(checks -> {
            if (checks == null) {
                return Future.failedFuture(new MetasrvException.NotLeader("node " + nodeId + " gave up epoch "
                        + Long.toUnsignedString(slot.epoch) + ": an earlier write to one of this write's keys could not be settled;"
                        + " it was not sent", null));
            }
            slot.checks = checks;
            return admitted(write, slot);
        });
    }

    /** {@link #admit} as a future: leadership may have changed while the write waited. */
    private Future<Admitted> admitted(ClientWrite write, Slot slot) {
        try {
            return Future.succeededFuture(admit(write, slot));
        } catch (RuntimeException refused) {
            return Future.failedFuture(refused);
        }
    }

    /**
     * The revisions of the epoch this node leads now, started if need be: the watermark that the
     * feed's retention (and its readers) stay below. Fails {@code NotLeader} on a follower.
     */
    public Future<Sequencer> revisions() {
        Leadership l = current.get();
        if (!l.isLeader() || l.guard().isEmpty()) {
            return Future.failedFuture(new MetasrvException.NotLeader("node " + nodeId + " is not the leader", l.leader().orElse(null)));
        }
        LeaseGuard g = l.guard().get();
        return sequencer(new Admitted(g, storeAtEpoch.apply(g.epoch())));
    }

    /**
     * The epoch's sequencer, its callbacks on this writer's loop. A future another instance
     * created would run them on that instance's loop; once started, the sequencer is taken as is.
     */
    private Future<Sequencer> sequencer(Admitted a) {
        Sequencer ready = feed.started(a.guard.epoch());
        if (ready != null) return Future.succeededFuture(ready);
        io.vertx.core.Promise<Sequencer> here = io.vertx.core.Promise.promise();
        feed.sequencer(a.guard.epoch(), a.store).onComplete(done -> ownLoop.execute(() -> here.handle(done)));
        return here.future().recover(t -> Future.failedFuture(t instanceof Feed.StaleEpoch stale
                ? new MetasrvException.NotLeader("node " + nodeId + " no longer leads epoch " + Long.toUnsignedString(a.guard.epoch())
                        + ": " + stale.getMessage(), null) : t));
    }

    /** The guard and store a write is sent with, after the leadership checks. */
    private record Admitted(LeaseGuard guard, MetaStore store) {}

    /** Checks this node may write now; throws the refusal (nothing was sent). */
    private Admitted admit(ClientWrite write, Slot slot) {
        Leadership l = current.get();
        if (!l.isLeader()) {
            throw new MetasrvException.NotLeader("node " + nodeId + " is not the leader", l.leader().orElse(null));
        }
        if (!l.hasAuthorityAt(monoNanos.getAsLong())) {
            throw new MetasrvException.NotLeader("node " + nodeId + " is past its local lease deadline", null);
        }
        LeaseGuard guard = l.guard().orElseThrow();
        if (write.epoch() != null && write.epoch() != guard.epoch()) {
            throw new MetasrvException.EpochMismatch("request expects epoch " + Long.toUnsignedString(write.epoch()) + " but node "
                    + nodeId + " leads epoch " + Long.toUnsignedString(guard.epoch()));
        }
        if (slot != null && slot.epoch != guard.epoch()) {
            throw new MetasrvException.NotLeader("node " + nodeId + " leads epoch " + Long.toUnsignedString(guard.epoch())
                    + " now, not epoch " + Long.toUnsignedString(slot.epoch) + " the write began under; it did not apply", null);
        }
        return new Admitted(guard, storeAtEpoch.apply(guard.epoch()));
    }

    private Future<Outcome> attempt(ClientWrite write, int renewalRetries, Slot slot, Admitted a) {
        LeaseGuard guard = a.guard;
        List<Transaction.Op> record;
        ChangeRecord built;
        Future<ClientWrite.Verdict> sent;
        try {
            built = slot == null ? null : ChangeRecord.of(slot.revision, guard.epoch(), wallMillis.getAsLong(), write.changes(), write.event());
            record = slot == null ? List.of() : RecordItems.ops(built);
            if (slot != null && slot.checks.length > 0 && write.items() + record.size() + slot.checks.length > Transaction.MAX_OPERATIONS
                    && write.items() + record.size() <= Transaction.MAX_OPERATIONS) {
                // A record in several parts leaves no room for the checks: the write waits instead.
                return resend(write, slot);
            }
            if (write.items() + record.size() > Transaction.MAX_OPERATIONS) {
                throw new MetaException.InvalidArgument("the write's " + write.items() + " operations and its change record's "
                        + record.size() + " item(s) need " + (write.items() + record.size()) + " of a store transaction's "
                        + Transaction.MAX_OPERATIONS + " (the record takes one item per " + RecordItems.PART_BYTES + " bytes)");
            }
            sent = write.sendGuarded(a.store, leaseKey, guard.leaseBytes(), record, slot == null ? List.of() : checkOps(slot.checks));
            // Handed to the store (the bus keeps the order of what is handed to it): writes held
            // behind this one may now follow it, checking for its record.
            if (slot != null && checkPredecessors) slot.sequencer.handed(slot.revision);
        } catch (MetaException | IllegalArgumentException e) {
            return Future.failedFuture(e instanceof MetaException ? e : new MetaException.InvalidArgument(e.getMessage()));
        }
        return sent.transform(done -> {
            if (done.failed()) {
                return slot != null && done.cause() instanceof MetaException.OutcomeUnknown unknown
                        ? settleUnknownInOrder(slot, a, unknown) : Future.failedFuture(done.cause());
            }
            ClientWrite.Verdict v = done.result();
            if (v.recordTaken()) {
                String message = "revision " + Long.toUnsignedString(slot.revision) + "'s change record already exists; "
                        + "node " + nodeId + " steps down so that the next leader starts above it";
                stepDown.accept(message, guard.epoch());
                return Future.failedFuture(new MetaException.PermanentBackend(message, null));
            }
            if (!v.applied() && v.predecessorMissing()) return resend(write, slot);
            if (v.applied()) {
                if (slot != null) slot.stored = built;
                return Future.succeededFuture(new Outcome(true, List.of(), guard.epoch(), slot == null ? 0 : slot.revision));
            }
            // Even a transaction whose store names only operations is explained by the lease:
            // a backend need not report every failed condition (DynamoDB documents no such
            // promise), so "the guard was not named" does not prove the guard held.
            return explainRefusal(write, v, guard, a.store, renewalRetries, slot);
        });
    }

    /**
     * The write reached the store before an earlier revision it checks for had its record: it was
     * refused and wrote nothing. It keeps its revision, waits for the earlier ones to settle, and
     * is sent again without checks (or gives up, certainly not applied).
     */
    private Future<Outcome> resend(ClientWrite write, Slot slot) {
        return held(write, slot, 0).compose(again -> attempt(write, 0, slot, again));
    }

    private static List<Transaction.Op> checkOps(long[] revisions) {
        if (revisions.length == 0) return List.of();
        List<Transaction.Op> ops = new java.util.ArrayList<>(revisions.length);
        for (long r : revisions) ops.add(Transaction.Op.checkExists(Revisions.key(r)));
        return ops;
    }

    private Future<Outcome> explainRefusal(ClientWrite write, ClientWrite.Verdict verdict, LeaseGuard used,
                                           MetaStore store, int retries, Slot slot) {
        return store.get(leaseKey).compose(now -> {
            byte[] lease = now.orElse(null);
            if (lease != null && Arrays.equals(lease, used.leaseBytes())) {
                return Future.succeededFuture(new Outcome(false, verdict.failed(), used.epoch(), 0));
            }
            if (lease != null && retries < MAX_RENEWAL_RETRIES && isOwnRenewal(lease, used)) {
                // The same revision is sent again: the refused attempt wrote nothing.
                Leadership l = current.get();
                Future<Leadership> fresh = l.guard().filter(g -> Arrays.equals(g.leaseBytes(), lease)).isPresent()
                        ? Future.succeededFuture(l) : nextLeadership.get();
                return fresh.compose(x -> {
                    Admitted again;
                    try {
                        again = admit(write, slot);
                    } catch (RuntimeException refused) {
                        return Future.failedFuture(refused);
                    }
                    return attempt(write, retries + 1, slot, again);
                });
            }
            return Future.failedFuture(fenced(used, lease == null ? "the lease record is gone"
                    : "the lease record changed to " + describe(lease)));
        });
    }

    /**
     * A write sent with checks for earlier revisions' records lost its answer: its void record is
     * written only once those revisions are released, since a later write that checks for this
     * revision's record must find it only when everything before it is final
     * ({@link Sequencer#sendWithChecks}).
     */
    private Future<Outcome> settleUnknownInOrder(Slot slot, Admitted a, MetaException.OutcomeUnknown lost) {
        if (slot.checks.length == 0) return settleUnknown(slot, a, lost, 1);
        io.vertx.core.Promise<Boolean> turn = io.vertx.core.Promise.promise();
        if (slot.sequencer.whenOrdered(slot.revision, go -> ownLoop.execute(() -> turn.tryComplete(go)))) turn.complete(true);
        return turn.future().compose(go -> go ? settleUnknown(slot, a, lost, 1)
                : Future.failedFuture(new Unsettled(new MetaException.OutcomeUnknown(lost.getMessage() + "; node " + nodeId
                        + " gave up epoch " + Long.toUnsignedString(slot.epoch) + " before it could settle revision "
                        + Long.toUnsignedString(slot.revision), lost))));
    }

    /**
     * The store's answer to a write at {@code slot}'s revision was lost. A guarded void record at
     * that revision decides it: applied, the write never can (its record's key is taken), so it
     * did not apply; refused with the revision's key present, the write applied; refused with the
     * key absent, the lease moved, and with it any chance of the write committing.
     */
    private Future<Outcome> settleUnknown(Slot slot, Admitted a, MetaException.OutcomeUnknown lost, int attempt) {
        return a.store.transact(voidRecord(slot, a)).transform(done -> {
            if (done.succeeded()) return decided(done.result().applied(), Revisions.key(slot.revision), slot, a, lost);
            if (done.cause() instanceof MetaException.RetryableBackend && attempt < SETTLE_ATTEMPTS) {
                return settleUnknown(slot, a, lost, attempt + 1);
            }
            // Not decided now: the client hears so at once, and settling goes on in the background
            // while this node still leads the slot's epoch with authority.
            if (done.cause() instanceof MetaException.RetryableBackend) settleLater(slot, a, 1);
            else giveUp(slot, done.cause().getMessage());
            return Future.failedFuture(new Unsettled(new MetaException.OutcomeUnknown(lost.getMessage()
                    + "; its change record would be revision " + Long.toUnsignedString(slot.revision) + " of epoch "
                    + Long.toUnsignedString(slot.epoch), lost)));
        });
    }

    /** The guarded void record that settles {@code slot}'s revision (condition absent). */
    private Transaction voidRecord(Slot slot, Admitted a) {
        return Transaction.guarded(leaseKey, a.guard.leaseBytes(), List.of(Transaction.Op.create(Revisions.key(slot.revision),
                ChangeRecord.voidAt(slot.revision, slot.epoch, wallMillis.getAsLong()).encode())));
    }

    /**
     * Tries the void record again after a pause (backing off to a second). Any answer settles the
     * revision: applied, the write never can; refused, its record is there or its guard is gone.
     * Once this node no longer leads the slot's epoch with authority, or after
     * {@value #SETTLE_LATER_TRIES} tries that failed retryably (half a minute of pauses plus each
     * try's store timeout: the watermark waits behind the revision), it gives up.
     */
    private void settleLater(Slot slot, Admitted a, int tries) {
        later.accept(Math.min(1_000L, 50L << Math.min(tries, 5)), () -> {
            Leadership l = current.get();
            if (!l.isLeader() || l.epoch() != slot.epoch || !l.hasAuthorityAt(monoNanos.getAsLong())) {
                giveUp(slot, "this node no longer leads epoch " + Long.toUnsignedString(slot.epoch) + " with authority");
                return;
            }
            if (tries >= SETTLE_LATER_TRIES) {
                giveUp(slot, "the store failed to answer its void record " + tries + " times");
                return;
            }
            a.store.transact(voidRecord(slot, a)).onComplete(done -> {
                if (done.succeeded() && done.result().applied()) slot.sequencer.settle(slot.revision, null);
                else if (done.succeeded()) settleRead(slot);
                else if (done.cause() instanceof MetaException.RetryableBackend) settleLater(slot, a, tries + 1);
                else giveUp(slot, done.cause().getMessage());
            });
        });
    }

    /**
     * The void record was refused: the revision's fate is final. Settles it with the write's own
     * record if the store holds it (else nothing applied); a failed read leaves the run to readers
     * to take from the store.
     */
    private void settleRead(Slot slot) {
        FeedReads.read(storeAtEpoch.apply(slot.epoch), slot.revision - 1, slot.revision, 1).onComplete(read -> {
            if (read.failed()) {
                slot.sequencer.settleFromStore(slot.revision);
                return;
            }
            ChangeRecord held = read.result().isEmpty() ? null : read.result().get(0);
            boolean own = held != null && held.revision() == slot.revision && !held.isVoid() && held.epoch() == slot.epoch;
            slot.sequencer.settle(slot.revision, own ? held : null);
        });
    }

    /**
     * The revision stays unsettled, so its epoch's watermark can never pass it: no revision of
     * that epoch is handed out again, and the node leads again only from a later epoch (the
     * election installs one above it), whose lease write ends every write of this one.
     */
    private void giveUp(Slot slot, String why) {
        feed.retire(slot.epoch);
        slot.sequencer.abandon();
        stepDown.accept("revision " + Long.toUnsignedString(slot.revision) + " of epoch " + Long.toUnsignedString(slot.epoch)
                + " could not be settled (" + why + "); node " + nodeId + " steps down", slot.epoch);
    }

    private Future<Outcome> decided(boolean voidApplied, String key, Slot slot, Admitted a, MetaException.OutcomeUnknown lost) {
        if (voidApplied) return Future.failedFuture(didNotApply(slot, lost));
        return FeedReads.read(a.store, slot.revision - 1, slot.revision, 1).transform(read -> {
            if (read.failed()) return unread(slot, lost);
            ChangeRecord held = read.result().isEmpty() || read.result().get(0).revision() != slot.revision ? null : read.result().get(0);
            // Only this write's own record proves it applied: not a void record (an earlier
            // settling attempt whose answer was lost), and not another epoch's record at the same
            // revision (a later leader may reuse a revision no record held when it took over).
            if (held != null && !held.isVoid() && held.epoch() == slot.epoch) {
                slot.stored = held;
                return Future.succeededFuture(new Outcome(true, List.of(), slot.epoch, slot.revision));
            }
            if (held != null && held.isVoid()) return Future.failedFuture(didNotApply(slot, lost));
            // The void record was refused on its guard: the write, under the same guard, never
            // applied and never will. Whether this node is fenced is the lease's to say; its own
            // renewal is no reason to step down.
            return a.store.get(leaseKey).transform(lease -> {
                if (lease.succeeded() && lease.result().isPresent() && !isOwnRenewal(lease.result().get(), a.guard)
                        && !Arrays.equals(lease.result().get(), a.guard.leaseBytes())) {
                    return Future.failedFuture(fenced(a.guard, "the lease moved while the write's answer was lost; it did not apply"));
                }
                return Future.failedFuture(didNotApply(slot, lost));
            });
        });
    }

    /** The void record was refused, so the revision's fate is final (settled), but reading it failed. */
    private static Future<Outcome> unread(Slot slot, MetaException.OutcomeUnknown lost) {
        return Future.failedFuture(new MetaException.OutcomeUnknown(lost.getMessage() + "; revision "
                + Long.toUnsignedString(slot.revision) + " holds its record if it applied", lost));
    }

    private static MetaException.RetryableBackend didNotApply(Slot slot, MetaException.OutcomeUnknown lost) {
        return new MetaException.RetryableBackend("the write did not apply: its answer was lost (" + lost.getMessage()
                + "), and revision " + Long.toUnsignedString(slot.revision) + " is settled: no record of it will appear", lost);
    }

    /** A revision not settled when its write is answered: settling goes on in the background. */
    private static final class Unsettled extends RuntimeException {
        Unsettled(MetaException.OutcomeUnknown cause) { super(cause.getMessage(), cause, false, false); }
    }

    private boolean isOwnRenewal(byte[] lease, LeaseGuard used) {
        try {
            LeaseRecord r = LeaseRecord.decode(lease);
            return r.holder().equals(nodeId) && r.epoch() == used.epoch();
        } catch (RuntimeException corrupt) {
            return false;
        }
    }

    private MetasrvException.Fenced fenced(LeaseGuard used, String why) {
        String message = "write under epoch " + Long.toUnsignedString(used.epoch()) + " by node " + nodeId
                + " refused: " + why;
        stepDown.accept(message, used.epoch());
        return new MetasrvException.Fenced(message);
    }

    private static String describe(byte[] lease) {
        try {
            LeaseRecord r = LeaseRecord.decode(lease);
            return "holder " + r.holder() + " epoch " + Long.toUnsignedString(r.epoch());
        } catch (RuntimeException corrupt) {
            return "an unreadable record";
        }
    }

}
