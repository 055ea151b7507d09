package lake.console;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.election.LeaseGuard;
import lake.election.LeaseRecord;
import lake.metasrv.Leadership;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the epoch timeline makes of a node's leadership publications (pure logic; the real-node cases are in ConsoleTest and FencingContract). */
class EpochTimelineTest {
    static final long T = 1_700_000_000_000L;

    static Leadership leads(String node, long epoch, long expiresAtMs, String reason) {
        LeaseRecord r = new LeaseRecord(node, expiresAtMs, epoch);
        return Leadership.leader(node, LeaseGuard.of("election/leader", r.encode()), expiresAtMs, Long.MAX_VALUE / 2, reason);
    }

    static Leadership follows(String node, String holder, long epoch, long expiresAtMs, String reason) {
        return Leadership.follower(node, Optional.of(new LeaseRecord(holder, expiresAtMs, epoch)), reason);
    }

    static Leadership followsNobody(String node, String reason) {
        return Leadership.follower(node, Optional.empty(), 0, reason);
    }

    /** The kinds, nodes and epochs of the changes, oldest first. */
    static List<String> changes(EpochTimeline t) {
        JsonArray a = t.toJson(0).getJsonArray("changes");
        List<String> out = new java.util.ArrayList<>(a.stream().map(o -> (JsonObject) o)
                .map(c -> c.getString("kind") + " " + c.getString("node") + " " + c.getValue("epoch")).toList());
        java.util.Collections.reverse(out);
        return out;
    }

    @Test
    void aLeadersOwnLifeIsTakeoverRenewalsAreNotChangesAndEachStepDownSaysWhy() {
        EpochTimeline t = new EpochTimeline("a", 10);
        t.observe(leads("a", 1, T + 10_000, "won the lease"), T);
        t.observe(leads("a", 1, T + 13_000, "renewed"), T + 3_000);
        t.observe(leads("a", 1, T + 16_000, "renewed"), T + 6_000);
        t.observe(followsNobody("a", Leadership.RESIGNED), T + 7_000);
        t.observe(leads("a", 3, T + 30_000, "won the lease"), T + 20_000);
        t.observe(followsNobody("a", Leadership.FENCED_PREFIX + "write under epoch 3 by node a refused: …"), T + 21_000);
        t.observe(leads("a", 5, T + 40_000, "won the lease"), T + 30_000);
        t.observe(followsNobody("a", "lease renewal failed: timeout"), T + 31_000);

        assertThat(changes(t)).containsExactly("takeover a 1", "resign a 1", "takeover a 3", "fenced a 3", "takeover a 5",
                "step-down a 5");
        JsonObject newest = t.toJson(0).getJsonArray("changes").getJsonObject(0);
        assertThat(newest.getLong("at_ms")).isEqualTo(T + 31_000);
        assertThat(newest.getString("reason")).isEqualTo("lease renewal failed: timeout");
    }

    @Test
    void aFollowerSeesTheFirstLeaseAsObservedThenTakeoversAndExpiries() {
        EpochTimeline t = new EpochTimeline("b", 10);
        t.observe(follows("b", "a", 1, T + 10_000, "leader is a"), T);
        t.observe(follows("b", "a", 1, T + 13_000, "leader is a"), T + 3_000); // a renewed: no change
        t.observe(followsNobody("b", "leader is unknown"), T + 20_000);
        t.observe(follows("b", "c", 2, T + 30_000, "leader is c"), T + 21_000);
        t.observe(leads("b", 3, T + 50_000, "won the lease"), T + 40_000);
        // Stepping down because another holder was seen: the step-down, then that holder's takeover.
        t.observe(follows("b", "c", 4, T + 60_000, "lease is held by c"), T + 45_000);

        assertThat(changes(t)).containsExactly("observed a 1", "no-leader a 1", "takeover c 2", "takeover b 3",
                "step-down b 3", "takeover c 4");
    }

    @Test
    void keepsTheNewestUpToItsCapacityAndCountsWhatItDropped() {
        EpochTimeline t = new EpochTimeline("a", 3);
        for (long e = 1; e <= 5; e++) {
            t.observe(leads("a", e, T + e * 1000, "won the lease"), T + e);
            t.observe(followsNobody("a", Leadership.RESIGNED), T + e);
        }
        assertThat(changes(t)).containsExactly("resign a 4", "takeover a 5", "resign a 5");
        assertThat(t.toJson(0).getLong("dropped")).isEqualTo(7);
        assertThatThrownBy(() -> new EpochTimeline("a", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nowIsTheLatestPublicationWithTheAuthorityLeftByTheMonotonicClock() {
        EpochTimeline t = new EpochTimeline("a", 3);
        assertThat(t.toJson(0).getValue("now")).as("before the first publication").isNull();
        LeaseRecord r = new LeaseRecord("a", T + 10_000, 1);
        t.observe(Leadership.leader("a", LeaseGuard.of("election/leader", r.encode()), T + 10_000, 9_000_000_000L, "won the lease"), T);
        JsonObject now = t.toJson(1_000_000_000L).getJsonObject("now");
        assertThat(now.getString("role")).isEqualTo("leader");
        assertThat(now.getLong("authority_ms")).isEqualTo(8_000);
        assertThat(now.getLong("expires_at_ms")).isEqualTo(T + 10_000);
        assertThat(t.toJson(9_500_000_000L).getJsonObject("now").getLong("authority_ms")).as("past the deadline").isZero();
    }

    @Test
    void epochsAreUnsigned() {
        EpochTimeline t = new EpochTimeline("a", 3);
        t.observe(follows("a", "b", -1L, T + 10_000, "leader is b"), T);
        assertThat(t.toJson(0).getJsonArray("changes").getJsonObject(0).getValue("epoch").toString())
                .isEqualTo("18446744073709551615");
    }
}
