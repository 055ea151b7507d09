package lake.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** The checks besides linearizability: fencing from replies and the store, and nothing lost. */
final class HistoryChecks {
    /** A broken invariant, with the operations or samples that show it. */
    record Violation(String kind, String what, List<String> evidence) {}

    private HistoryChecks() {}

    /**
     * No write acknowledged under epoch e is applied after a write under a later epoch: if
     * applied write a returned before applied write b was called, a's epoch ≤ b's.
     */
    static List<Violation> replyEpochsNeverGoBack(List<Op> history) {
        List<Violation> out = new ArrayList<>();
        List<Op> applied = history.stream().filter(o -> o.outcome() == Op.Outcome.APPLIED).toList();
        for (Op o : applied) {
            if (o.epoch() == null) out.add(new Violation("fencing", "an applied write without an epoch", List.of(o.toString())));
        }
        List<Op> byRet = applied.stream().filter(o -> o.epoch() != null).sorted(Comparator.comparingLong(Op::ret)).toList();
        List<Op> byCall = applied.stream().filter(o -> o.epoch() != null).sorted(Comparator.comparingLong(Op::call)).toList();
        Op witness = null;
        int j = 0;
        for (Op b : byCall) {
            while (j < byRet.size() && byRet.get(j).ret() < b.call()) {
                if (witness == null || byRet.get(j).epoch() > witness.epoch()) witness = byRet.get(j);
                j++;
            }
            if (witness != null && b.epoch() < witness.epoch()) {
                out.add(new Violation("fencing", "a write applied under epoch " + b.epoch() + " after one acknowledged under epoch "
                        + witness.epoch(), List.of(witness.toString(), b.toString())));
            }
        }
        return out;
    }

    /**
     * Lease epochs in the store never decrease (a sample read after another returned has an
     * epoch at least as high), and each epoch has one holder.
     */
    static List<Violation> leaseEpochs(List<LeaseMonitor.LeaseSample> samples, List<LeaseMonitor.RoleSample> roles) {
        List<Violation> out = new ArrayList<>();
        List<LeaseMonitor.LeaseSample> byRet = samples.stream().sorted(Comparator.comparingLong(LeaseMonitor.LeaseSample::ret)).toList();
        List<LeaseMonitor.LeaseSample> byCall = samples.stream().sorted(Comparator.comparingLong(LeaseMonitor.LeaseSample::call)).toList();
        LeaseMonitor.LeaseSample highest = null;
        int j = 0;
        for (LeaseMonitor.LeaseSample b : byCall) {
            while (j < byRet.size() && byRet.get(j).ret() < b.call()) {
                if (highest == null || byRet.get(j).epoch() > highest.epoch()) highest = byRet.get(j);
                j++;
            }
            if (highest != null && b.epoch() < highest.epoch()) {
                out.add(new Violation("fencing", "the lease epoch went back from " + highest.epoch() + " to " + b.epoch(),
                        List.of(highest.toString(), b.toString())));
            }
        }
        Map<Long, LeaseMonitor.LeaseSample> holderOf = new HashMap<>();
        for (LeaseMonitor.LeaseSample s : samples) {
            LeaseMonitor.LeaseSample first = holderOf.putIfAbsent(s.epoch(), s);
            if (first != null && !first.holder().equals(s.holder())) {
                out.add(new Violation("fencing", "two holders of lease epoch " + s.epoch(), List.of(first.toString(), s.toString())));
            }
        }
        // A node leads epoch e when it believes it leads and the store's lease names it under e.
        // (Its belief alone can outlive its lease for a moment — it steps down at its next round —
        // and writes nothing then: its deadline has passed and its guard no longer matches.)
        Map<Long, LeaseMonitor.RoleSample> leaderOf = new HashMap<>();
        for (LeaseMonitor.RoleSample r : roles) {
            if (!"leader".equals(r.role()) || r.epoch() == null || !r.node().equals(r.leader())) continue;
            LeaseMonitor.RoleSample first = leaderOf.putIfAbsent(r.epoch(), r);
            if (first != null && !first.node().equals(r.node())) {
                out.add(new Violation("fencing", "two nodes led epoch " + r.epoch(), List.of(first.toString(), r.toString())));
            }
        }
        return out;
    }

    /**
     * Nothing lost: for each key read at the end, every acknowledged write's value is that final
     * value, or a later recorded operation (acknowledged or unknown, and not over before the write
     * was called) expected it — the only way a value leaves a key is a CAS or delete that names it,
     * and one that finished before the write began cannot have removed it.
     */
    static List<Violation> nothingLost(List<Op> history, Map<String, Op> finalReads) {
        List<Violation> out = new ArrayList<>();
        for (Map.Entry<String, Op> f : finalReads.entrySet()) {
            String key = f.getKey();
            String finalValue = f.getValue().read();
            for (Op w : history) {
                if (w.outcome() != Op.Outcome.APPLIED) continue;
                String written = writtenTo(w, key);
                if (written == null || written.equals(finalValue)) continue;
                boolean explained = history.stream().anyMatch(o -> (o.outcome() == Op.Outcome.APPLIED || o.outcome() == Op.Outcome.UNKNOWN)
                        && o.ret() > w.call() && expects(o, key, written));
                if (!explained) {
                    out.add(new Violation("lost", "acknowledged write " + written + " is gone from " + key
                            + " and no recorded operation replaced or deleted it", List.of(w.toString(), f.getValue().toString())));
                }
            }
        }
        return out;
    }

    /**
     * The paused leader, once another node took over, gets zero writes applied: none of the writes
     * queued on it while it was stopped is acknowledged, and none is in the store at the end (each
     * created a key nothing else writes, so a non-empty final read means it was applied).
     */
    static List<Violation> pausedLeaderWrites(List<Op> queued, Map<String, Op> finalReads) {
        List<Violation> out = new ArrayList<>();
        for (Op q : queued) {
            if (q.outcome() == Op.Outcome.APPLIED) {
                out.add(new Violation("fencing", "the resumed paused leader acknowledged a write", List.of(q.toString())));
            }
            Op last = finalReads.get(q.key());
            if (last != null && last.read() != null) {
                out.add(new Violation("fencing", "a write sent to the paused leader was applied", List.of(q.toString(), last.toString())));
            }
        }
        return out;
    }

    /**
     * Whether a write's unknown outcome was an answer from the node: {@code 504} with the error
     * code {@code outcome_unknown} (docs/http-api.md). {@link Workload} keeps a non-200/409/503
     * answer's status, a space and the body as the op's detail, and an
     * exception's text when there was no answer, so the body is there to check.
     */
    static boolean answeredOutcomeUnknown(Op q) {
        if (q.outcome() != Op.Outcome.UNKNOWN || q.detail() == null || !q.detail().startsWith("504 ")) return false;
        try {
            io.vertx.core.json.JsonObject error = new io.vertx.core.json.JsonObject(q.detail().substring(4)).getJsonObject("error");
            return error != null && "outcome_unknown".equals(error.getString("code"));
        } catch (RuntimeException notTheErrorBody) {
            return false;
        }
    }

    /**
     * One reading of a node's own wall clock: the campaign's (real) wall clock just before the
     * request, the time the node put in its answer, and the campaign's wall clock just after.
     */
    record ClockReading(long sentMs, long nodeMs, long receivedMs) {
        /** The node's wall clock minus real time, taking the node's answer as made halfway through the request. */
        long offsetMs() {
            return nodeMs - (sentMs + (receivedMs - sentMs) / 2);
        }

        /** How far {@link #offsetMs} can be from the truth: half the request's round trip. */
        long uncertaintyMs() {
            return (receivedMs - sentMs + 1) / 2;
        }

        String describe() {
            return String.format("%+d ms (+/- %d ms)", offsetMs(), uncertaintyMs());
        }
    }

    /**
     * Empty when {@code r} shows the node's wall clock off from real time by {@code expectedMs}
     * within {@code toleranceMs}, even at the edge of the reading's own uncertainty; otherwise
     * what was seen. A skew that libfaketime did not apply reads as about 0 and is refused.
     */
    static Optional<String> skewNotShown(ClockReading r, long expectedMs, long toleranceMs) {
        if (Math.abs(r.offsetMs() - expectedMs) + r.uncertaintyMs() <= toleranceMs) return Optional.empty();
        return Optional.of(String.format("its wall clock read %s from real time, not %+d ms within %d ms", r.describe(), expectedMs,
                toleranceMs));
    }

    /**
     * The watcher saw exactly the writes that applied (issue 36): on every key, each change it was
     * shown is a write that applied or whose outcome is unknown (never one answered not applied,
     * never a value nobody wrote), at most once; every acknowledged write is among them; revisions
     * only rise; each change follows the one before it as its condition requires (a CAS or
     * transaction from exactly its expected value, a delete from exactly its expected value; a key
     * starts absent); the key's final value is in the chain, followed only by writes of unknown
     * outcome (one may land after the final read); and it saw no key the round did not write.
     * {@code finalReads} covers the keys the round wrote; they started absent.
     */
    static List<Violation> watchedFeed(List<Op> history, List<FeedWatcher.Change> watched, Map<String, Op> finalReads) {
        List<Violation> out = new ArrayList<>();
        long last = 0;
        for (FeedWatcher.Change c : watched) {
            if (c.revision() < last) out.add(new Violation("feed", "the watcher was shown revision " + c.revision() + " after " + last, List.of(c.toString())));
            last = Math.max(last, c.revision());
        }
        for (FeedWatcher.Change c : watched) {
            if (!finalReads.containsKey(c.key())) {
                out.add(new Violation("feed", c.key() + ": the watcher saw a key the round never wrote", List.of(c.toString())));
            }
        }
        for (String key : finalReads.keySet()) {
            java.util.Set<String> seen = new java.util.HashSet<>();
            String previous = null;
            String finalValue = finalReads.get(key).read();
            // Where the chain last held the final value (-1: the absent start), and whether every change after it is unknown's.
            int finalAt = finalValue == null ? -1 : -2;
            boolean onlyUnknownAfter = true;
            int index = -1;
            for (FeedWatcher.Change c : watched) {
                if (!c.key().equals(key)) continue;
                index++;
                if (java.util.Objects.equals(c.value(), finalValue)) {
                    finalAt = index;
                    onlyUnknownAfter = true;
                }
                if (c.value() == null) {
                    String from = previous;
                    boolean explained = from != null && history.stream().anyMatch(o -> o.kind() == Op.Kind.DELETE && o.key().equals(key)
                            && from.equals(o.expected()) && (o.outcome() == Op.Outcome.APPLIED || o.outcome() == Op.Outcome.UNKNOWN));
                    if (!explained) out.add(new Violation("feed", key + ": a deletion the watcher saw follows " + from
                            + ", which no applied (or unknown) delete expected", List.of(c.toString())));
                    boolean byUnknown = from != null && history.stream().anyMatch(o -> o.kind() == Op.Kind.DELETE && o.key().equals(key)
                            && from.equals(o.expected()) && o.outcome() == Op.Outcome.UNKNOWN);
                    if (finalAt != index && !byUnknown) onlyUnknownAfter = false;
                    previous = null;
                    continue;
                }
                Op w = history.stream().filter(o -> c.value().equals(writtenTo(o, key))).findFirst().orElse(null);
                if (finalAt != index && (w == null || w.outcome() != Op.Outcome.UNKNOWN)) onlyUnknownAfter = false;
                if (w == null) {
                    out.add(new Violation("feed", key + ": the watcher saw a value no client wrote", List.of(c.toString())));
                } else if (w.outcome() != Op.Outcome.APPLIED && w.outcome() != Op.Outcome.UNKNOWN) {
                    out.add(new Violation("feed", key + ": the watcher saw a write answered " + w.outcome(), List.of(c.toString(), w.toString())));
                } else if (!java.util.Objects.equals(expectedOf(w, key), previous)) {
                    out.add(new Violation("feed", key + ": the watcher saw " + c.value() + " right after " + previous + ", but that write expected "
                            + expectedOf(w, key), List.of(c.toString(), w.toString())));
                }
                if (!seen.add(c.value())) out.add(new Violation("feed", key + ": the watcher saw " + c.value() + " twice", List.of(c.toString())));
                previous = c.value();
            }
            for (Op w : history) {
                String written = writtenTo(w, key);
                if (w.outcome() == Op.Outcome.APPLIED && written != null && !seen.contains(written)) {
                    out.add(new Violation("feed", key + ": acknowledged write " + written + " never reached the watcher", List.of(w.toString())));
                }
            }
            if (finalAt == -2 || (!java.util.Objects.equals(previous, finalValue) && !onlyUnknownAfter)) {
                out.add(new Violation("feed", key + ": the watcher's last change is " + previous + ", the key's final value " + finalValue,
                        List.of(finalReads.get(key).toString())));
            }
        }
        return out;
    }

    /** The value {@code w} required {@code key} to hold ({@code null}: absent). */
    private static String expectedOf(Op w, String key) {
        if (w.kind() == Op.Kind.TXN) {
            for (Op.Sub sub : w.txn()) if (sub.key().equals(key)) return sub.expected();
        }
        return w.expected();
    }

    /** The value {@code w} put at {@code key}, or null. */
    private static String writtenTo(Op w, String key) {
        if (w.kind() == Op.Kind.CAS) return w.key().equals(key) ? w.value() : null;
        if (w.kind() == Op.Kind.TXN) {
            for (Op.Sub sub : w.txn()) if (sub.key().equals(key)) return sub.value();
        }
        return null;
    }

    /** Whether {@code o} is a write conditioned on {@code key} holding {@code value}. */
    private static boolean expects(Op o, String key, String value) {
        if (o.kind() == Op.Kind.CAS || o.kind() == Op.Kind.DELETE) return o.key().equals(key) && value.equals(o.expected());
        if (o.kind() == Op.Kind.TXN) {
            for (Op.Sub sub : o.txn()) if (sub.key().equals(key) && value.equals(sub.expected())) return true;
        }
        return false;
    }
}
