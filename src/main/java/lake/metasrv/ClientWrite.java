package lake.metasrv;

import io.vertx.core.Future;
import lake.meta.MetaStore;

import java.util.List;

/**
 * A client's write before it is fenced: a single-key mutation or a multi-key transaction. The
 * {@link FencedWriter} treats both alike: it adds the exact lease record as the guard and sends
 * one atomic store call.
 */
public sealed interface ClientWrite permits ClientMutation, ClientTransaction {

    /** The epoch the client expects to be written under, or {@code null}. */
    Long epoch();

    /** Refuses ({@code InvalidArgument}, naming the operation) a write that touches {@code leaseKey}. */
    void refuseLeaseKey(String leaseKey);

    /** Sends this write guarded by the exact lease bytes {@code lease} at {@code leaseKey}, as one atomic store call. */
    Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease);

    /** What the store decided; {@code failed} names a transaction's failed operations (empty otherwise). */
    record Verdict(boolean applied, List<Integer> failed) {
        public Verdict {
            failed = List.copyOf(failed);
        }
    }
}
