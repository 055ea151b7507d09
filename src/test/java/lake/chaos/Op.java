package lake.chaos;

import java.util.List;

/**
 * One recorded client operation on one key: who sent it, through which node, when it was called
 * and when it returned (monotonic nanoseconds; {@link #NEVER} for an unknown outcome, which may
 * take effect at any time after its call), and what it returned.
 *
 * <p>Values are strings, unique per write in a campaign, so every write is identifiable; {@code
 * null} is "absent". A CAS with {@code expected == null} creates; a delete always names the
 * value it expects.
 */
public record Op(int id, int client, String node, String key, Kind kind, String expected, String value,
                 long call, long ret, Outcome outcome, String read, Long epoch, String detail, List<Sub> txn, List<Integer> failed) {

    /** One operation of a transaction: the key must hold {@code expected} (null = absent); if every one holds, {@code value} is put. */
    public record Sub(String key, String expected, String value) {}

    /** Any operation but a transaction. */
    public Op(int id, int client, String node, String key, Kind kind, String expected, String value,
              long call, long ret, Outcome outcome, String read, Long epoch, String detail) {
        this(id, client, node, key, kind, expected, value, call, ret, outcome, read, epoch, detail, null, null);
    }

    /** The keys this operation touches. */
    public List<String> keys() {
        return kind == Kind.TXN ? txn.stream().map(Sub::key).toList() : List.of(key);
    }

    /** The return time of an operation whose outcome is unknown: it never returned. */
    public static final long NEVER = Long.MAX_VALUE;

    public enum Kind { GET, CAS, DELETE, TXN }

    /**
     * {@code OK}: a read with its value; {@code APPLIED}/{@code NOT_APPLIED}: a write's definite
     * answer; {@code UNKNOWN}: a write that may or may not have taken effect (timeout, 504, 500,
     * a lost connection); {@code FAILED}: an answer that certainly changed nothing (503, 409, a
     * refused connection, a read that failed), kept for the counts but not for the checks.
     */
    public enum Outcome { OK, APPLIED, NOT_APPLIED, UNKNOWN, FAILED }

    public boolean isWrite() {
        return kind != Kind.GET;
    }

    /** Part of the history the checks see: everything but definite failures and reads without a value. */
    public boolean checked() {
        return outcome != Outcome.FAILED && !(kind == Kind.GET && outcome == Outcome.UNKNOWN);
    }

    /** A write the cluster answered (applied or not): proof that a leader was serving. */
    public boolean answeredWrite() {
        return isWrite() && (outcome == Outcome.APPLIED || outcome == Outcome.NOT_APPLIED);
    }

    // Convenience constructors for hand-written histories (the checker's tests).

    public static Op get(int id, String key, long call, long ret, String read) {
        return new Op(id, 0, "-", key, Kind.GET, null, null, call, ret, Outcome.OK, read, null, "");
    }

    public static Op cas(int id, String key, String expected, String value, long call, long ret, Outcome outcome) {
        return new Op(id, 0, "-", key, Kind.CAS, expected, value, call, outcome == Outcome.UNKNOWN ? NEVER : ret, outcome, null, null, "");
    }

    /** A transaction; {@code failed} names the sub-operations whose condition failed when it was not applied. */
    public static Op txn(int id, List<Sub> subs, long call, long ret, Outcome outcome, List<Integer> failed) {
        return new Op(id, 0, "-", subs.get(0).key(), Kind.TXN, null, null, call, outcome == Outcome.UNKNOWN ? NEVER : ret, outcome,
                null, null, "", subs, failed);
    }

    public static Op delete(int id, String key, String expected, long call, long ret, Outcome outcome) {
        return new Op(id, 0, "-", key, Kind.DELETE, expected, null, call, outcome == Outcome.UNKNOWN ? NEVER : ret, outcome, null, null, "");
    }

    @Override
    public String toString() {
        String what = switch (kind) {
            case GET -> "get " + key + " -> " + (outcome == Outcome.OK ? String.valueOf(read) : outcome);
            case CAS -> "cas " + key + " " + expected + " => " + value + " -> " + outcome;
            case DELETE -> "delete " + key + " " + expected + " -> " + outcome;
            case TXN -> "txn " + txn + " -> " + outcome + (failed == null || failed.isEmpty() ? "" : " failed " + failed);
        };
        return String.format("#%d c%d via %s [%d, %s] %s%s", id, client, node, call,
                ret == NEVER ? "inf" : Long.toString(ret), what, epoch == null ? "" : " epoch " + epoch);
    }
}
