package lake.metasrv;

import io.vertx.core.Future;
import lake.feed.ChangeRecord;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.Transaction;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A webhook's delivery cursor moved from exactly {@code expected} ({@code null}: absent) to the
 * revision {@code delivered}, under the fence of the epoch that delivered: a deposed leader can
 * no more move it than write anything else. Not recorded (the feed's own bookkeeping).
 */
public record WebhookCursor(String name, byte[] expected, long delivered, long leaderEpoch) implements ClientWrite {
    public static final String PREFIX = "__lake_internal/webhooks/";

    public WebhookCursor {
        if (name == null || name.isEmpty()) throw new MetaException.InvalidArgument("a webhook cursor names its webhook");
        expected = expected == null ? null : expected.clone();
    }

    public static String key(String name) {
        return PREFIX + name;
    }

    /** The revision a stored cursor names. */
    public static long revision(byte[] stored) {
        try {
            return Long.parseUnsignedLong(new String(stored, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a webhook cursor is not an unsigned decimal: " + e.getMessage());
        }
    }

    public byte[] bytes() {
        return Long.toUnsignedString(delivered).getBytes(StandardCharsets.US_ASCII);
    }

    @Override public byte[] expected() { return expected == null ? null : expected.clone(); }

    @Override public Long epoch() { return leaderEpoch; }

    @Override public void refuseLeaseKey(String leaseKey) { }

    /** None: the cursor is not recorded. */
    @Override public List<ChangeRecord.Change> changes() { return List.of(); }

    /** None: unrecorded, it gets no revision, so nothing is ordered behind it. */
    @Override public java.util.Collection<String> writtenKeys() { return List.of(); }

    @Override public int items() { return 1; }

    @Override
    public Future<Verdict> sendGuarded(MetaStore store, String leaseKey, byte[] lease, List<Transaction.Op> record, List<Transaction.Op> checks) {
        if (!record.isEmpty() || !checks.isEmpty()) throw new IllegalStateException("a webhook cursor has no record and is ordered after nothing");
        Transaction.Op op = expected == null ? Transaction.Op.create(key(name), bytes()) : Transaction.Op.update(key(name), expected, bytes());
        return store.transact(Transaction.of(List.of(op)).withGuard(leaseKey, lease)).map(o -> Verdict.of(o, items(), 0, true));
    }
}
