package lake.election;

import io.vertx.core.Future;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The value types' and the constructor's own invariants, without a store behind them. */
class ElectionTypesTest {

    private static final byte[] LEASE = "{\"holder\":\"a\",\"expires_at_ms\":20,\"epoch\":18446744073709551615}"
            .getBytes(StandardCharsets.UTF_8);

    @Test
    void leaseGuardKeepsTheExactBytesItWasGiven() {
        byte[] given = LEASE.clone();
        LeaseGuard guard = LeaseGuard.of("election/leader", given);
        given[1] = 'X';
        assertThat(guard.leaseBytes()).as("copied in").containsExactly(LEASE);
        assertThat(guard.epoch()).isEqualTo(Epochs.MAX);
        assertThat(guard.holder()).isEqualTo("a");
        assertThat(guard.expiresAtMs()).isEqualTo(20);
        assertThat(guard).isEqualTo(LeaseGuard.of("election/leader", LEASE)).hasSameHashCodeAs(LeaseGuard.of("election/leader", LEASE));
        assertThat(guard).isNotEqualTo(LeaseGuard.of("election/other", LEASE));
        assertThat(guard.toString()).contains("18446744073709551615");
    }

    @Test
    void leaseGuardRefusesCorruptOrLegacyBytes() {
        assertThatThrownBy(() -> LeaseGuard.of("k", "nope".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(ElectionException.LeaseRecordCorrupt.class);
        assertThatThrownBy(() -> LeaseGuard.of("k", "{\"holder\":\"a\",\"expires_at_ms\":1}".getBytes(StandardCharsets.UTF_8)))
                .as("a leader never holds the legacy epoch").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void leaderStatusAgreesWithItsGuard() {
        LeaseGuard guard = LeaseGuard.of("k", LEASE);
        assertThat(new LeaseStatus.Leader(guard, 20).epoch()).isEqualTo(Epochs.MAX);
        assertThatThrownBy(() -> new LeaseStatus.Leader(guard, 21)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LeaseStatus.Follower(null)).isInstanceOf(NullPointerException.class);
        assertThat(new LeaseStatus.Follower(Optional.empty()).holder()).isEmpty();
        assertThat(new LeaseStatus.Follower(Optional.of(new LeaseRecord("b", 5, 3))).holder()).contains("b");
    }

    @Test
    void electionValidatesItsConfigurationAndClock() throws Exception {
        MetaStore untouchable = new UntouchableStore();
        assertThatThrownBy(() -> new Election(untouchable, "", "a", 1)).isInstanceOf(MetaException.InvalidArgument.class);
        assertThatThrownBy(() -> new Election(untouchable, "k", "", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Election(untouchable, "k", "a", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Election(null, "k", "a", 1)).isInstanceOf(NullPointerException.class);

        Election e = new Election(untouchable, "k", "a", 5);
        assertThat(e.leaseKey()).isEqualTo("k");
        assertThat(e.nodeId()).isEqualTo("a");
        assertThat(e.ttlMs()).isEqualTo(5);
        for (Future<?> call : new Future<?>[] {e.campaign(-1), e.resign(-1), e.currentLeader(-1)}) {
            assertThat(call.failed()).isTrue();
            assertThat(call.cause()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nowMs");
        }
    }

    /** A store any call to which is a test failure: a negative clock must be refused before the store. */
    private static final class UntouchableStore implements MetaStore {
        private static <T> T touched() { throw new AssertionError("the store must not be touched"); }
        @Override public Future<Optional<byte[]>> get(String key) { return touched(); }
        @Override public Future<Boolean> cas(String key, byte[] expected, byte[] value) { return touched(); }
        @Override public Future<Boolean> delete(String key, byte[] expected) { return touched(); }
        @Override public Future<ScanPage> scanPrefix(String prefix, String continuation, int limit) { return touched(); }
        @Override public Future<java.util.Optional<String>> lastKey(String prefix) { return touched(); }
        @Override public Future<Void> close() { return touched(); }
    }
}
