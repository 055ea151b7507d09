package lake.wire;

import lake.wire.catalog.CatalogSnapshot;
import lake.wire.catalog.NamePage;
import lake.wire.catalog.Namespace;
import lake.wire.catalog.Registration;
import lake.wire.catalog.Table;
import lake.wire.catalog.TableChange;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Decoding is strict: a missing or mistyped member is a WireException naming it and the object that should hold it. */
class WireStrictnessTest {
    /** {@code decode(o)} fails naming {@code field} of {@code holder} ({@code null}: of {@code o} itself). */
    private static void refused(Function<Map<String, Object>, ?> decode, Map<String, Object> o, String field, Map<String, Object> holder) {
        assertThatThrownBy(() -> decode.apply(o)).isInstanceOfSatisfying(WireException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.object()).isSameAs(holder == null ? o : holder);
        });
    }

    @Test
    void aMissingOrMistypedFieldIsAWireExceptionNamingIt() {
        refused(Entry::from, Fields.of("key", "k"), "value", null);
        refused(Entry::from, Fields.of("key", "k", "value", "not base64!"), "value", null);
        refused(WriteResult::from, Fields.of("applied", true, "epoch", "1"), "epoch", null);
        refused(WriteResult::from, Fields.of("applied", true, "epoch", -1L), "epoch", null);
        refused(WriteResult::from, Fields.of("applied", true, "epoch", BigInteger.ONE.shiftLeft(64)), "epoch", null);
        refused(WriteResult::from, Fields.of("applied", false, "failed", List.of(1.5), "epoch", 1L), "failed", null);

        refused(Registration::from, Fields.of("engine", "lance", "current_version", 1L), "location", null);
        Map<String, Object> column = Fields.of("name", "id");
        Map<String, Object> badColumn = Fields.of("location", "x", "current_version", 1L, "columns", List.of(column));
        refused(Registration::from, badColumn, "type", column);
        Map<String, Object> registration = Fields.of("location", "x", "current_version", "1");
        refused(Table::from, Fields.of("namespace", "n", "name", "t", "registration", registration), "current_version", registration);

        refused(TableChange::from, Fields.of("status", "maybe", "namespace", "n", "name", "t", "current_version", 1L), "status", null);
        refused(CatalogSnapshot::from, Fields.of("status", "snapshot", "generation", "g"), "tables", null);
        refused(Namespace::from, Fields.of("namespace", "n", "properties", Fields.of("owner", 1L)), "properties", null);
        refused(Namespace::from, Fields.of("namespace", "n", "properties", Map.of(), "dropping", "yes"), "dropping", null);
        refused(NamePage::from, Fields.of("continuation", "c"), "names", null);
        refused(LeaderInfo::from, Fields.of("node_id", "a"), "role", null);
        refused(ClusterInfo.Member::from, Fields.of("node_id", "a", "role", "leader", "http_port", 1L << 40), "http_port", null);
    }

    @Test
    void absentOptionalMembersReadAsNull() {
        assertThat(LeaderInfo.from(Fields.of("node_id", "a", "role", "follower"))).isEqualTo(new LeaderInfo("a", "follower", null, null, null));
        assertThat(ClusterInfo.Member.from(Fields.of("node_id", "a", "role", "follower")))
                .isEqualTo(new ClusterInfo.Member("a", "follower", null, null, null, null));
        assertThat(WriteResult.from(Fields.of("applied", true, "epoch", 3))).as("an Integer, as Vert.x parses small numbers")
                .isEqualTo(new WriteResult(true, 3, List.of(), 0));
        assertThat(Namespace.from(Fields.of("namespace", "n", "properties", Map.of())).dropping()).isFalse();
    }

    @Test
    void unsigned64AboveLongMaxIsABigInteger() {
        assertThat(Fields.u64Value(-1L)).isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(Fields.u64Value(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(Fields.u64(Fields.of("v", new BigInteger("18446744073709551615")), "v")).isEqualTo(-1L);
    }

    @Test
    void registrationsAreEqualWhenTheyAreTheSameJson() {
        Registration asLong = new Registration(Fields.of("location", "x", "current_version", 3L, "n", List.of(1L)));
        Registration asInt = new Registration(Fields.of("location", "x", "current_version", 3, "n", List.of(1)));
        assertThat(asInt).isEqualTo(asLong).hasSameHashCodeAs(asLong);
        assertThat(asInt).isNotEqualTo(new Registration(Fields.of("location", "x", "current_version", 4L, "n", List.of(1L))));
    }
}
