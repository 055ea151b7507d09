package lake.election;

import io.vertx.core.Future;
import lake.meta.GuardedMutation;
import lake.meta.MetaException;
import lake.meta.StoreFixture;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The election's behaviour over a real backend, run unchanged against each of them. A backend test
 * extends this class and opens a fresh, empty store for every test. Time is the injected
 * {@code nowMs} of each call; nothing here waits on a wall clock.
 */
public abstract class ElectionContract extends StoreFixture {

    protected static final String KEY = "election/leader";
    protected static final long TTL = 1_000;

    private Election node(String id) {
        return new Election(store, KEY, id, TTL);
    }

    /** A node that gave up an epoch (its change feed retired it) renews into a later one, ending the old lease. */
    @Test
    void renewalRisesToTheLowestEpochAllowed() throws Exception {
        Election a = node("node-a");
        LeaseStatus.Leader first = leader(a.campaign(1_000));
        assertThat(first.epoch()).isEqualTo(1);
        LeaseStatus.Leader raised = leader(a.campaign(1_200, 2));
        assertThat(raised.guard().record()).isEqualTo(new LeaseRecord("node-a", 2_200, 2));
        assertThat(leader(a.campaign(1_300, 2)).epoch()).as("then renews that epoch").isEqualTo(2);
        assertThat(leader(a.campaign(1_400, 0)).epoch()).as("a lower bound never lowers it").isEqualTo(2);
        assertThat(holderSeen(await(node("node-b").campaign(1_500, 9)))).as("a valid foreign lease is still followed").isEqualTo("node-a");
        assertThat(leader(node("node-b").campaign(2_500, 5)).epoch()).as("a takeover too").isEqualTo(5);
    }

    @Test
    void leaseLifecycleOverInjectedClock() throws Exception {
        Election a = node("node-a");
        Election b = node("node-b");

        LeaseStatus.Leader acquired = leader(a.campaign(1_000));
        assertThat(acquired.guard().record()).isEqualTo(new LeaseRecord("node-a", 2_000, 1));

        LeaseStatus.Leader renewed = leader(a.campaign(1_500));
        assertThat(renewed.guard().record()).isEqualTo(new LeaseRecord("node-a", 2_500, 1));

        assertThat(holderSeen(await(b.campaign(1_600)))).isEqualTo("node-a");
        assertThat(holderSeen(await(b.campaign(2_499)))).as("one ms before expiry").isEqualTo("node-a");

        LeaseStatus.Leader takeover = leader(b.campaign(2_500));
        assertThat(takeover.guard().record()).as("expires_at_ms <= now is expired")
                .isEqualTo(new LeaseRecord("node-b", 3_500, 2));

        LeaseStatus demoted = await(a.campaign(2_600));
        assertThat(holderSeen(demoted)).as("the old holder is demoted").isEqualTo("node-b");
        assertThat(((LeaseStatus.Follower) demoted).lease().orElseThrow().epoch()).as("and learns the takeover's epoch").isEqualTo(2);
        assertThat(stored()).containsExactly(takeover.guard().leaseBytes());
        assertThat(leader(b.campaign(3_000)).epoch()).as("the new holder renews its own epoch").isEqualTo(2);
    }

    @Test
    void leaseEpochAdvancesOnlyOnTakeover() throws Exception {
        Election a = node("node-a");
        Election b = node("node-b");
        // As the original implementation wrote it before epochs: other field order, spacing and fields.
        byte[] legacy = bytes("{ \"expires_at_ms\": 5000, \"role\": \"metasrv\", \"holder\": \"node-a\" }");
        assertThat(await(store.cas(KEY, null, legacy))).isTrue();
        assertThat(await(a.currentLeader(4_000))).contains(new LeaseRecord("node-a", 5_000, Epochs.LEGACY));

        // The renewal's CAS expects the legacy bytes as stored; a re-encoding of them would not match.
        assertThat(leader(a.campaign(4_000)).epoch()).as("legacy 0 upgrades on renewal").isEqualTo(1);
        assertThat(leader(a.campaign(4_500)).epoch()).isEqualTo(1);
        assertThat(leader(a.campaign(5_200)).guard().record()).isEqualTo(new LeaseRecord("node-a", 6_200, 1));
        assertThat(holderSeen(await(b.campaign(6_199)))).isEqualTo("node-a");
        assertThat(leader(b.campaign(6_200)).epoch()).as("takeover advances by one").isEqualTo(2);
        assertThat(leader(b.campaign(6_300)).epoch()).isEqualTo(2);

        // A takeover of an expired legacy record gets epoch 1.
        Election c = new Election(store, "election/legacy", "node-c", TTL);
        assertThat(await(store.cas("election/legacy", null, bytes("{\"holder\":\"node-a\",\"expires_at_ms\":100}")))).isTrue();
        assertThat(leader(c.campaign(100)).guard().record()).isEqualTo(new LeaseRecord("node-c", 1_100, 1));

        // At 2^64-1 the holder may still renew, but nobody may take over.
        byte[] atMax = bytes("{\"holder\":\"node-b\",\"expires_at_ms\":7000,\"epoch\":18446744073709551615}");
        assertThat(await(store.cas(KEY, stored(), atMax))).isTrue();
        LeaseStatus.Leader renewedAtMax = leader(b.campaign(6_900));
        assertThat(renewedAtMax.epoch()).isEqualTo(Epochs.MAX);
        byte[] before = stored();
        assertThat(failure(a.campaign(8_000)))
                .isInstanceOf(ElectionException.EpochExhausted.class)
                .hasMessageContaining(KEY).hasMessageContaining("18446744073709551615");
        assertThat(stored()).as("nothing written").containsExactly(before);
        assertThat(before).containsExactly(renewedAtMax.guard().leaseBytes());
        // The same through a resignation's announcement: a failed future, never a throw, and nothing written.
        byte[] releasedAtMax = await(b.resign(6_950, before)).orElseThrow();
        assertThat(failure(a.takeOverReleased(8_200, releasedAtMax)))
                .isInstanceOf(ElectionException.EpochExhausted.class)
                .hasMessageContaining(KEY).hasMessageContaining("18446744073709551615");
        assertThat(stored()).as("nothing written").containsExactly(releasedAtMax);
    }

    @Test
    void campaignReturnsExactInstalledLeaseGuard() throws Exception {
        Election a = node("node-a");
        LeaseStatus.Leader first = leader(a.campaign(10_000));
        LeaseGuard guard = first.guard();
        assertThat(guard.key()).isEqualTo(KEY);
        assertThat(guard.holder()).isEqualTo("node-a");
        assertThat(guard.epoch()).isEqualTo(1);
        assertThat(guard.expiresAtMs()).isEqualTo(11_000).isEqualTo(first.expiresAtMs());
        assertThat(guard.leaseBytes()).containsExactly(stored());
        assertThat(guard).isEqualTo(LeaseGuard.of(KEY, stored()));

        byte[] leaked = guard.leaseBytes();
        leaked[0] = 'X';
        assertThat(guard.leaseBytes()).as("copied out").containsExactly(stored());

        // The guard is the fence: it admits a guarded write until the lease bytes change.
        assertThat(await(store.guardedMutate(GuardedMutation.create(KEY, guard.leaseBytes(), "tbl/a", bytes("1"))))).isTrue();
        LeaseGuard renewed = leader(a.campaign(10_500)).guard();
        assertThat(renewed).isNotEqualTo(guard);
        assertThat(renewed.epoch()).isEqualTo(guard.epoch());
        assertThat(renewed.leaseBytes()).containsExactly(stored());
        assertThat(await(store.guardedMutate(GuardedMutation.create(KEY, guard.leaseBytes(), "tbl/b", bytes("2"))))).isFalse();
        assertThat(await(store.guardedMutate(GuardedMutation.create(KEY, renewed.leaseBytes(), "tbl/b", bytes("2"))))).isTrue();
    }

    @Test
    void currentLeaderReportsHolderUntilExpiry() throws Exception {
        Election a = node("node-a");
        Election b = node("node-b");
        assertThat(await(b.currentLeader(0))).isEmpty();
        leader(a.campaign(1_000));
        LeaseRecord held = new LeaseRecord("node-a", 2_000, 1);
        assertThat(await(a.currentLeader(1_000))).contains(held);
        assertThat(await(b.currentLeader(1_999))).contains(held);
        assertThat(await(b.currentLeader(2_000))).isEmpty();
        assertThat(await(a.currentLeader(50_000))).isEmpty();
        leader(b.campaign(2_000));
        assertThat(await(a.currentLeader(2_000))).contains(new LeaseRecord("node-b", 3_000, 2));
    }

    @Test
    void resignLetsStandbyTakeOverImmediately() throws Exception {
        Election a = node("node-a");
        Election b = node("node-b");
        assertThat(await(a.resign(500))).as("nothing to resign").isFalse();
        LeaseGuard held = leader(a.campaign(1_000)).guard();

        assertThat(await(b.resign(1_100))).as("a non-holder's resign").isFalse();
        assertThat(stored()).containsExactly(held.leaseBytes());
        assertThat(holderSeen(await(b.campaign(1_100)))).isEqualTo("node-a");

        assertThat(await(a.resign(1_100))).isTrue();
        LeaseRecord resigned = LeaseRecord.decode(stored());
        assertThat(resigned.holder()).isEqualTo("node-a");
        assertThat(resigned.epoch()).as("epoch kept").isEqualTo(1);
        assertThat(resigned.expiredAt(1_100)).isTrue();
        assertThat(await(b.currentLeader(1_100))).isEmpty();

        assertThat(leader(b.campaign(1_100)).guard().record()).isEqualTo(new LeaseRecord("node-b", 2_100, 2));
        assertThat(await(a.resign(1_200))).as("no longer the holder").isFalse();
        assertThat(holderSeen(await(a.campaign(1_200)))).isEqualTo("node-b");
    }

    @Test
    void resignFromTheGuardAndTakeOverFromTheAnnouncedRecordNeverOverwriteANewerLease() throws Exception {
        Election a = node("node-a");
        Election b = node("node-b");
        Election c = node("node-c");
        LeaseGuard held = leader(a.campaign(1_000)).guard();
        assertThat(await(b.resign(1_100, held.leaseBytes()))).as("not b's lease to resign").isEmpty();
        assertThat(stored()).containsExactly(held.leaseBytes());

        byte[] released = await(a.resign(1_100, held.leaseBytes())).orElseThrow();
        assertThat(stored()).containsExactly(released);
        assertThat(LeaseRecord.decode(released)).isEqualTo(new LeaseRecord("node-a", 1_100, 1));
        assertThat(await(a.resign(1_150, held.leaseBytes()))).as("the store no longer holds those bytes").isEmpty();

        // b takes over from the announced bytes; c, acting on the same announcement later, finds a
        // newer lease: its CAS expects the released bytes, so b's lease stands and c follows b.
        assertThat(leader(b.takeOverReleased(1_200, released)).guard().record()).isEqualTo(new LeaseRecord("node-b", 2_200, 2));
        byte[] bs = stored();
        assertThat(await(a.resign(1_210, held.leaseBytes()))).as("a's old guard, and no lease of a's to read").isEmpty();
        assertThat(stored()).containsExactly(bs);
        assertThat(holderSeen(await(c.takeOverReleased(1_250, released)))).isEqualTo("node-b");
        assertThat(LeaseRecord.decode(stored()).holder()).isEqualTo("node-b");
        // The holder itself acting on the announcement (its own round won first, or a replay) renews: never demoted.
        assertThat(leader(b.takeOverReleased(1_260, released)).guard().record()).isEqualTo(new LeaseRecord("node-b", 2_260, 2));

        // An announced record not expired by this node's clock, or not a record at all, is an ordinary campaign.
        byte[] current = stored();
        assertThat(holderSeen(await(c.takeOverReleased(1_300, released)))).isEqualTo("node-b");
        assertThat(holderSeen(await(c.takeOverReleased(1_300, current)))).isEqualTo("node-b");
        assertThat(holderSeen(await(c.takeOverReleased(1_300, bytes("not a lease"))))).isEqualTo("node-b");
        assertThat(stored()).containsExactly(current);
    }

    @Test
    void resignFromAGuardARenewalBehindStillResigns() throws Exception {
        Election a = node("node-a");
        LeaseGuard first = leader(a.campaign(1_000)).guard();
        LeaseGuard renewed = leader(a.campaign(1_200)).guard();
        assertThat(renewed.leaseBytes()).isNotEqualTo(first.leaseBytes());
        // The node's guard is the first record (the renewal's answer was lost): the CAS from it misses,
        // and the resignation reads and rewrites the record that is there.
        byte[] released = await(a.resign(1_300, first.leaseBytes())).orElseThrow();
        assertThat(stored()).containsExactly(released);
        assertThat(LeaseRecord.decode(released)).isEqualTo(new LeaseRecord("node-a", 1_300, 1));
    }

    @Test
    void racingCandidatesNeverShareAnEpoch() throws Exception {
        Random random = new Random(0x1ea5e5L);
        ProbeStore probe = new ProbeStore(store);
        int n = 6;
        Election[] nodes = new Election[n];
        for (int i = 0; i < n; i++) nodes[i] = new Election(probe, KEY, "node-" + i, TTL);
        Map<Long, String> leaderOfEpoch = new HashMap<>();
        long[] lastLedBy = new long[n];
        long highestBeforeRound = 0;
        long base = 1_000_000;
        for (int round = 0; round < 25; round++) {
            base += random.nextInt((int) TTL);
            // Each node starts on a worker thread, in shuffled order, and makes two calls in a row
            // (the first may be a resign), so later reads interleave with other nodes' writes.
            // Clocks disagree by up to two TTLs, so a fast clock can steal a lease another node just took.
            List<Future<List<LeaseStatus>>> calls = new ArrayList<>(Collections.nCopies(n, null));
            List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5));
            Collections.shuffle(order, random);
            for (int i : order) {
                Election e = nodes[i];
                long first = base + random.nextInt((int) (2 * TTL) + 1);
                long second = first + random.nextInt((int) TTL);
                boolean resignFirst = random.nextInt(8) == 0;
                calls.set(i, vertx.executeBlocking(() -> (resignFirst
                        ? e.resign(first).map(r -> List.<LeaseStatus>of())
                        : e.campaign(first).map(List::of))
                        .compose(before -> e.campaign(second).map(after -> concat(before, after))), false)
                        .compose(f -> f));
            }
            long highestThisRound = highestBeforeRound;
            for (int i = 0; i < n; i++) {
                for (LeaseStatus status : await(calls.get(i))) {
                    if (!(status instanceof LeaseStatus.Leader l)) continue;
                    String id = nodes[i].nodeId();
                    String ctx = "round " + round + ", " + id + " leads epoch " + Epochs.toString(l.epoch());
                    assertThat(l.guard().holder()).as(ctx).isEqualTo(id);
                    assertThat(leaderOfEpoch.putIfAbsent(l.epoch(), id)).as(ctx).isIn(null, id);
                    assertThat(Epochs.compare(l.epoch(), lastLedBy[i])).as(ctx + " after leading an earlier one").isNotNegative();
                    assertThat(Epochs.compare(l.epoch(), highestBeforeRound)).as(ctx + " after an earlier round's").isNotNegative();
                    lastLedBy[i] = l.epoch();
                    if (Epochs.compare(l.epoch(), highestThisRound) > 0) highestThisRound = l.epoch();
                }
            }
            highestBeforeRound = highestThisRound;
        }
        // Every installed epoch reached its installer as a Leader status: 1..highest, each once.
        assertThat(leaderOfEpoch.keySet()).hasSize((int) highestBeforeRound).allMatch(e -> e >= 1 && e <= leaderOfEpoch.size());
        assertThat(LeaseRecord.decode(stored()).epoch()).isEqualTo(highestBeforeRound);
        // The race was real: leases changed hands and candidates lost CAS races. Both are timing
        // dependent, so the bounds are far below what runs show (5-10 takeovers, 23-49 lost races).
        assertThat(highestBeforeRound).as("takeovers").isGreaterThan(2);
        assertThat(probe.refusedCas()).as("lost CAS races").isGreaterThan(5);
    }

    @Test
    void corruptLeaseRecordFailsClosed() throws Exception {
        byte[] garbage = bytes("{\"holder\":\"node-a\",\"expires_at_ms\":-1}");
        assertThat(await(store.cas(KEY, null, garbage))).isTrue();
        Election b = node("node-b");
        for (Future<?> call : List.of(b.campaign(1_000), b.resign(1_000), b.currentLeader(1_000))) {
            assertThat(failure(call)).isInstanceOf(ElectionException.LeaseRecordCorrupt.class).hasMessageContaining(KEY);
        }
        assertThat(stored()).containsExactly(garbage);
    }

    @Test
    void backendFaultsFailTheCallInsteadOfAnswering() throws Exception {
        Election readsFail = new Election(new ProbeStore(store).failGets(), KEY, "node-a", TTL);
        for (Future<?> call : List.of(readsFail.campaign(1_000), readsFail.resign(1_000), readsFail.currentLeader(1_000))) {
            assertThat(failure(call)).isInstanceOf(MetaException.RetryableBackend.class);
        }
        Election writesFail = new Election(new ProbeStore(store).failCas(), KEY, "node-a", TTL);
        assertThat(failure(writesFail.campaign(1_000))).as("not a Follower").isInstanceOf(MetaException.RetryableBackend.class);
        leader(node("node-a").campaign(1_000));
        assertThat(failure(writesFail.resign(1_100))).as("not false").isInstanceOf(MetaException.RetryableBackend.class);
    }

    // ---- helpers ------------------------------------------------------------------------------

    private byte[] stored() throws Exception {
        return await(store.get(KEY)).orElseThrow(() -> new AssertionError("no lease at " + KEY));
    }

    private static LeaseStatus.Leader leader(Future<LeaseStatus> campaign) throws Exception {
        LeaseStatus status = await(campaign);
        assertThat(status).isInstanceOf(LeaseStatus.Leader.class);
        return (LeaseStatus.Leader) status;
    }

    /** The holder a follower's campaign saw; fails unless the campaign lost. */
    private static String holderSeen(LeaseStatus status) {
        assertThat(status).isInstanceOf(LeaseStatus.Follower.class);
        return ((LeaseStatus.Follower) status).holder().orElseThrow(() -> new AssertionError("the follower saw no holder"));
    }

    private static List<LeaseStatus> concat(List<LeaseStatus> before, LeaseStatus after) {
        List<LeaseStatus> all = new ArrayList<>(before);
        all.add(after);
        return all;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.await(60, TimeUnit.SECONDS);
    }

    private static Throwable failure(Future<?> future) throws Exception {
        try {
            future.await(60, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("expected the future to fail, but it succeeded");
    }
}
