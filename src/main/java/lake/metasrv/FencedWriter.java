package lake.metasrv;

import io.vertx.core.Future;
import lake.election.LeaseGuard;
import lake.election.LeaseRecord;
import lake.meta.MetaException;
import lake.meta.MetaStore;

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
     * the indexes of a transaction's operations whose conditions did not hold (empty otherwise).
     */
    public record Outcome(boolean applied, List<Integer> failed, long epoch) {
        public Outcome {
            failed = List.copyOf(failed);
        }
    }

    private static final int MAX_RENEWAL_RETRIES = 3;

    private final String nodeId;
    private final String leaseKey;
    private final Supplier<Leadership> current;
    private final Supplier<Future<Leadership>> nextLeadership;
    private final LongFunction<MetaStore> storeAtEpoch;
    private final Consumer<String> stepDown;
    private final LongSupplier monoNanos;

    /**
     * @param current        this node's latest leadership, as its election verticle published it
     * @param nextLeadership completes with the next leadership this node publishes (bounded wait)
     * @param storeAtEpoch   the store, reached with every request carrying the given epoch
     * @param stepDown       tells the election verticle to give up leadership now, with a reason
     */
    public FencedWriter(String nodeId, String leaseKey, Supplier<Leadership> current,
                        Supplier<Future<Leadership>> nextLeadership, LongFunction<MetaStore> storeAtEpoch,
                        Consumer<String> stepDown, LongSupplier monoNanos) {
        this.nodeId = nodeId;
        this.leaseKey = leaseKey;
        this.current = current;
        this.nextLeadership = nextLeadership;
        this.storeAtEpoch = storeAtEpoch;
        this.stepDown = stepDown;
        this.monoNanos = monoNanos;
    }

    public Future<Outcome> apply(ClientWrite write) {
        try {
            write.refuseLeaseKey(leaseKey);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return attempt(write, 0);
    }

    private Future<Outcome> attempt(ClientWrite mutation, int renewalRetries) {
        Leadership l = current.get();
        if (!l.isLeader()) {
            return Future.failedFuture(new MetasrvException.NotLeader(
                    "node " + nodeId + " is not the leader", l.leader().orElse(null)));
        }
        if (!l.hasAuthorityAt(monoNanos.getAsLong())) {
            return Future.failedFuture(new MetasrvException.NotLeader(
                    "node " + nodeId + " is past its local lease deadline", null));
        }
        LeaseGuard guard = l.guard().orElseThrow();
        if (mutation.epoch() != null && mutation.epoch() != guard.epoch()) {
            return Future.failedFuture(new MetasrvException.EpochMismatch("request expects epoch "
                    + Long.toUnsignedString(mutation.epoch()) + " but node " + nodeId + " leads epoch "
                    + Long.toUnsignedString(guard.epoch())));
        }
        byte[] lease = guard.leaseBytes();
        MetaStore store = storeAtEpoch.apply(guard.epoch());
        Future<ClientWrite.Verdict> sent;
        try {
            sent = mutation.sendGuarded(store, leaseKey, lease);
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return sent.compose(v -> v.applied()
                ? Future.succeededFuture(new Outcome(true, List.of(), guard.epoch()))
                // Even a transaction whose store names only operations is explained by the lease:
                // a backend need not report every failed condition (DynamoDB documents no such
                // promise), so "the guard was not named" does not prove the guard held.
                : explainRefusal(mutation, v, guard, store, renewalRetries));
    }

    private Future<Outcome> explainRefusal(ClientWrite mutation, ClientWrite.Verdict verdict, LeaseGuard used,
                                           MetaStore store, int retries) {
        return store.get(leaseKey).compose(now -> {
            byte[] lease = now.orElse(null);
            if (lease != null && Arrays.equals(lease, used.leaseBytes())) {
                return Future.succeededFuture(new Outcome(false, verdict.failed(), used.epoch()));
            }
            if (lease != null && retries < MAX_RENEWAL_RETRIES && isOwnRenewal(lease, used)) {
                Leadership l = current.get();
                Future<Leadership> fresh = l.guard().filter(g -> Arrays.equals(g.leaseBytes(), lease)).isPresent()
                        ? Future.succeededFuture(l) : nextLeadership.get();
                return fresh.compose(x -> attempt(mutation, retries + 1));
            }
            return Future.failedFuture(fenced(used, lease == null ? "the lease record is gone"
                    : "the lease record changed to " + describe(lease)));
        });
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
        stepDown.accept(message);
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
