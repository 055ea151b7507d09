package lake.chaos;

import lake.chaos.HistoryChecks.Violation;
import lake.chaos.LeaseMonitor.LeaseSample;
import lake.chaos.LeaseMonitor.RoleSample;
import lake.chaos.Op.Kind;
import lake.chaos.Op.Outcome;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static lake.chaos.Op.get;
import static org.assertj.core.api.Assertions.assertThat;

/** The fencing and durability checks: one hand-written history that breaks each, and one that passes them all. */
class HistoryChecksTest {
    /** A CAS answered under {@code epoch}. */
    private static Op write(int id, String key, String expected, String value, long call, long ret, Outcome outcome, Long epoch) {
        return new Op(id, 0, "n1", key, Kind.CAS, expected, value, call, outcome == Outcome.UNKNOWN ? Op.NEVER : ret, outcome, null,
                epoch, "");
    }

    private static Op delete(int id, String key, String expected, long call, long ret, Long epoch) {
        return new Op(id, 0, "n1", key, Kind.DELETE, expected, null, call, ret, Outcome.APPLIED, null, epoch, "");
    }

    private static List<String> whats(List<Violation> vs) {
        return vs.stream().map(Violation::what).toList();
    }

    @Test
    void aWriteAppliedUnderAnOlderEpochAfterANewerOneIsReported() {
        List<Violation> back = HistoryChecks.replyEpochsNeverGoBack(List.of(
                write(1, "k", null, "a", 0, 10, Outcome.APPLIED, 2L),
                write(2, "k", "a", "b", 20, 30, Outcome.APPLIED, 1L)));
        assertThat(whats(back)).containsExactly("a write applied under epoch 1 after one acknowledged under epoch 2");

        List<Violation> noEpoch = HistoryChecks.replyEpochsNeverGoBack(List.of(write(1, "k", null, "a", 0, 10, Outcome.APPLIED, null)));
        assertThat(whats(noEpoch)).containsExactly("an applied write without an epoch");
    }

    @Test
    void leaseEpochsGoingBackOrSharedAreReported() {
        List<Violation> back = HistoryChecks.leaseEpochs(List.of(
                new LeaseSample(0, 10, "n1", 3, 1_000),
                new LeaseSample(20, 30, "n1", 2, 2_000)), List.of());
        assertThat(whats(back)).containsExactly("the lease epoch went back from 3 to 2");

        List<Violation> twoHolders = HistoryChecks.leaseEpochs(List.of(
                new LeaseSample(0, 10, "n1", 3, 1_000),
                new LeaseSample(20, 30, "n2", 3, 2_000)), List.of());
        assertThat(whats(twoHolders)).containsExactly("two holders of lease epoch 3");

        List<Violation> twoLeaders = HistoryChecks.leaseEpochs(List.of(), List.of(
                new RoleSample(0, 10, "n1", "leader", "n1", 3L),
                new RoleSample(0, 10, "n2", "leader", "n2", 3L)));
        assertThat(whats(twoLeaders)).containsExactly("two nodes led epoch 3");
    }

    @Test
    void anAcknowledgedWriteMissingAtTheEndIsReportedUnlessALaterOperationRemovedIt() {
        Op created = write(1, "k", null, "a", 0, 10, Outcome.APPLIED, 1L);
        Op finalRead = get(9, "k", 100, 110, null);
        assertThat(whats(HistoryChecks.nothingLost(List.of(created, finalRead), Map.of("k", finalRead))))
                .containsExactly("acknowledged write a is gone from k and no recorded operation replaced or deleted it");

        // A delete naming a that finished before a was even written cannot have removed it.
        Op earlierDelete = delete(0, "k", "a", -20, -10, 1L);
        assertThat(HistoryChecks.nothingLost(List.of(earlierDelete, created, finalRead), Map.of("k", finalRead))).hasSize(1);

        // A later delete (even with an unknown outcome) explains it.
        Op laterDelete = new Op(2, 0, "n1", "k", Kind.DELETE, "a", null, 20, Op.NEVER, Outcome.UNKNOWN, null, null, "");
        assertThat(HistoryChecks.nothingLost(List.of(created, laterDelete, finalRead), Map.of("k", finalRead))).isEmpty();
    }

    @Test
    void aWriteQueuedOnThePausedLeaderThatWasAcknowledgedOrAppliedIsReported() {
        Op acknowledged = write(1, "p/0", null, "x", 0, 9_000, Outcome.APPLIED, 1L);
        Op stillThere = get(9, "p/0", 10_000, 10_010, "x");
        assertThat(whats(HistoryChecks.pausedLeaderWrites(List.of(acknowledged), Map.of("p/0", stillThere))))
                .containsExactly("the resumed paused leader acknowledged a write", "a write sent to the paused leader was applied");

        // Refused, yet in the store: applied all the same.
        Op refused = write(2, "p/1", null, "y", 0, 9_000, Outcome.NOT_APPLIED, 2L);
        Op present = get(10, "p/1", 10_000, 10_010, "y");
        assertThat(whats(HistoryChecks.pausedLeaderWrites(List.of(refused), Map.of("p/1", present))))
                .containsExactly("a write sent to the paused leader was applied");
    }

    /** An unknown outcome of a write with {@code detail} as Workload records it. */
    private static Op unknown(int id, String detail) {
        return new Op(id, 100, "n1", "p/0", Kind.CAS, null, "x", 0, Op.NEVER, Outcome.UNKNOWN, null, null, detail);
    }

    @Test
    void onlyA504OutcomeUnknownCountsAsAnAnswerToAQueuedWrite() {
        assertThat(HistoryChecks.answeredOutcomeUnknown(
                unknown(1, "504 {\"error\":{\"code\":\"outcome_unknown\",\"message\":\"the write's outcome is unknown\"}}"))).isTrue();
        // Another code under 504, another status, no answer at all, a body that is not the error body.
        assertThat(HistoryChecks.answeredOutcomeUnknown(unknown(2, "504 {\"error\":{\"code\":\"backend_unavailable\"}}"))).isFalse();
        assertThat(HistoryChecks.answeredOutcomeUnknown(unknown(3, "500 {\"error\":{\"code\":\"outcome_unknown\"}}"))).isFalse();
        assertThat(HistoryChecks.answeredOutcomeUnknown(unknown(4, "java.net.http.HttpTimeoutException: request timed out"))).isFalse();
        assertThat(HistoryChecks.answeredOutcomeUnknown(unknown(5, "504 Gateway Timeout"))).isFalse();
        assertThat(HistoryChecks.answeredOutcomeUnknown(unknown(6, "504 {\"error\":\"outcome_unknown\"}"))).isFalse();
        // A definite answer is not an unknown one, whatever its detail.
        assertThat(HistoryChecks.answeredOutcomeUnknown(write(7, "p/0", null, "x", 0, 10, Outcome.FAILED, null))).isFalse();
    }

    @Test
    void aSkewIsShownOnlyByANodeClockOffByAboutTheOffset() {
        // The node answered at real time 1,005 (halfway through a 10 ms request) with 6,006: +5,001 ms.
        var fast = new HistoryChecks.ClockReading(1_000, 6_006, 1_010);
        assertThat(fast.offsetMs()).isEqualTo(5_001);
        assertThat(fast.uncertaintyMs()).isEqualTo(5);
        assertThat(HistoryChecks.skewNotShown(fast, 5_000, 2_000)).isEmpty();
        assertThat(HistoryChecks.skewNotShown(new HistoryChecks.ClockReading(1_000, -3_990, 1_010), -5_000, 2_000)).isEmpty();
        assertThat(HistoryChecks.skewNotShown(new HistoryChecks.ClockReading(1_000, 4_500, 1_010), 5_000, 2_000)).isEmpty();

        // libfaketime not applied: the node's clock is real time.
        assertThat(HistoryChecks.skewNotShown(new HistoryChecks.ClockReading(1_000, 1_006, 1_010), 5_000, 2_000))
                .hasValue("its wall clock read +1 ms (+/- 5 ms) from real time, not +5000 ms within 2000 ms");
        // The wrong sign, and a skew far larger than asked for.
        assertThat(HistoryChecks.skewNotShown(fast, -5_000, 2_000)).isPresent();
        assertThat(HistoryChecks.skewNotShown(new HistoryChecks.ClockReading(1_000, 61_005, 1_010), 5_000, 2_000)).isPresent();
        // A reading too slow to tell: +5 s, but the answer could have come any time in 3 s.
        assertThat(HistoryChecks.skewNotShown(new HistoryChecks.ClockReading(0, 8_000, 6_000), 5_000, 2_000)).isPresent();
    }

    @Test
    void aCorrectHistoryPassesEveryCheck() {
        Op a = write(1, "k", null, "a", 0, 10, Outcome.APPLIED, 1L);
        Op b = write(2, "k", "a", "b", 20, 30, Outcome.APPLIED, 2L);
        Op c = write(3, "k", "b", "c", 40, 50, Outcome.UNKNOWN, null);
        Op d = delete(4, "k", "b", 60, 70, 2L);
        Op e = write(5, "k", null, "e", 80, 90, Outcome.APPLIED, 3L);
        Op finalRead = get(9, "k", 100, 110, "e");
        List<Op> history = List.of(a, b, c, d, e, finalRead);
        assertThat(HistoryChecks.replyEpochsNeverGoBack(history)).isEmpty();
        assertThat(HistoryChecks.nothingLost(history, Map.of("k", finalRead))).isEmpty();
        assertThat(HistoryChecks.leaseEpochs(
                List.of(new LeaseSample(0, 10, "n1", 1, 1_000), new LeaseSample(20, 30, "n2", 2, 2_000),
                        new LeaseSample(25, 35, "n2", 2, 2_500), new LeaseSample(80, 90, "n3", 3, 3_000)),
                List.of(new RoleSample(0, 10, "n1", "leader", "n1", 1L), new RoleSample(0, 10, "n2", "follower", "n1", 1L),
                        new RoleSample(20, 30, "n1", "leader", "n2", 2L), new RoleSample(20, 30, "n2", "leader", "n2", 2L))))
                .isEmpty();

        Op refused = write(6, "p/0", null, "x", 0, 9_000, Outcome.NOT_APPLIED, 2L);
        Op absent = get(10, "p/0", 10_000, 10_010, null);
        assertThat(HistoryChecks.pausedLeaderWrites(List.of(refused), Map.of("p/0", absent))).isEmpty();
    }

    @Test
    void theWatchedFeedMustEqualTheWritesThatApplied() {
        Op a = write(1, "k", null, "a", 0, 10, Outcome.APPLIED, 1L);
        Op b = write(2, "k", "a", "b", 20, 30, Outcome.APPLIED, 1L);
        Op lost = write(3, "k", "b", "x", 40, 50, Outcome.NOT_APPLIED, 1L);
        Op unknown = write(4, "k", "b", "c", 60, 70, Outcome.UNKNOWN, null);
        Op del = new Op(5, 0, "n1", "k", Kind.DELETE, "c", null, 80, 90, Outcome.APPLIED, null, 1L, "");
        List<Op> history = List.of(a, b, lost, unknown, del);
        java.util.Map<String, Op> finals = java.util.Map.of("k", get(9, "k", 100, 110, null));
        List<FeedWatcher.Change> good = List.of(new FeedWatcher.Change(1, "k", "a"), new FeedWatcher.Change(2, "k", "b"),
                new FeedWatcher.Change(4, "k", "c"), new FeedWatcher.Change(7, "k", null));
        assertThat(HistoryChecks.watchedFeed(history, good, finals)).as("an unknown write that applied, then a delete").isEmpty();

        assertThat(whats(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(1, "k", "a"), new FeedWatcher.Change(4, "k", "c"),
                new FeedWatcher.Change(7, "k", null)), finals)))
                .contains("k: acknowledged write b never reached the watcher", "k: the watcher saw c right after a, but that write expected b");
        assertThat(whats(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(1, "k", "a"), new FeedWatcher.Change(2, "k", "b"),
                new FeedWatcher.Change(3, "k", "x"), new FeedWatcher.Change(4, "k", "c"), new FeedWatcher.Change(7, "k", null)), finals)))
                .contains("k: the watcher saw a write answered NOT_APPLIED");
        assertThat(whats(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(2, "k", "a"), new FeedWatcher.Change(1, "k", "b"),
                new FeedWatcher.Change(4, "k", "c"), new FeedWatcher.Change(7, "k", null)), finals)))
                .contains("the watcher was shown revision 1 after 2");
        assertThat(whats(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(1, "k", "a"), new FeedWatcher.Change(2, "k", "b"),
                new FeedWatcher.Change(3, "k", "b")), finals)))
                .contains("k: the watcher saw b twice", "k: the watcher's last change is b, the key's final value null");
        assertThat(whats(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(1, "k", "zz")), finals)))
                .contains("k: the watcher saw a value no client wrote");
        assertThat(whats(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(1, "other", "a")), finals)))
                .contains("other: the watcher saw a key the round never wrote");
        // A write of unknown outcome may land after the final read: the feed then ends past the final value.
        java.util.Map<String, Op> finalB = java.util.Map.of("k", get(9, "k", 100, 110, "b"));
        assertThat(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(1, "k", "a"), new FeedWatcher.Change(2, "k", "b"),
                new FeedWatcher.Change(4, "k", "c")), finalB)).isEmpty();
        assertThat(whats(HistoryChecks.watchedFeed(history, List.of(new FeedWatcher.Change(1, "k", "a")), finalB)))
                .contains("k: the watcher's last change is a, the key's final value b");
        // A transaction's two keys, each checked against its own condition.
        Op txn = Op.txn(6, List.of(new Op.Sub("t1", null, "x1"), new Op.Sub("t2", null, "x2")), 0, 10, Outcome.APPLIED, List.of());
        java.util.Map<String, Op> txnFinals = java.util.Map.of("t1", get(9, "t1", 100, 110, "x1"), "t2", get(10, "t2", 100, 110, "x2"));
        assertThat(HistoryChecks.watchedFeed(List.of(txn), List.of(new FeedWatcher.Change(5, "t1", "x1"), new FeedWatcher.Change(5, "t2", "x2")),
                txnFinals)).isEmpty();
        assertThat(whats(HistoryChecks.watchedFeed(List.of(txn), List.of(new FeedWatcher.Change(5, "t1", "x1")), txnFinals)))
                .contains("t2: acknowledged write x2 never reached the watcher");
    }
}
