package lake.metasrv;

import lake.meta.TransactionOutcome;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a refused guarded transaction of a client write is read: its first operations are the
 * client's, then its change record's items, then the checks for earlier records.
 */
class VerdictTest {
    private static final int OWN = 2;
    private static final int RECORD = 1;

    private static ClientWrite.Verdict of(List<Integer> failed, boolean guardFailed) {
        return ClientWrite.Verdict.of(TransactionOutcome.notApplied(failed, guardFailed), OWN, RECORD, true);
    }

    @Test
    void onlyAFailedCheckMeansAPredecessorIsMissing() {
        ClientWrite.Verdict v = of(List.of(3), false);
        assertThat(v.predecessorMissing()).isTrue();
        assertThat(v.recordTaken()).isFalse();
        assertThat(v.failed()).isEmpty();
    }

    @Test
    void aFailedConditionOfTheClientsWinsOverAMissingPredecessor() {
        ClientWrite.Verdict v = of(List.of(1, 3), false);
        assertThat(v.predecessorMissing()).isFalse();
        assertThat(v.failed()).containsExactly(1);
    }

    @Test
    void aRefusedGuardIsLeftToTheLeaseToExplain() {
        assertThat(of(List.of(3), true).predecessorMissing()).as("not a missing record: the lease explains it").isFalse();
        assertThat(of(List.of(2), true).recordTaken()).as("a later epoch may have reused the revision").isFalse();
        assertThat(of(List.of(2), false).recordTaken()).isTrue();
    }
}
