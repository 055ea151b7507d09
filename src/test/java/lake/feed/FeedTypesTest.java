package lake.feed;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FeedTypesTest {
    @Test
    void recordKeysSortAsTheirRevisions() {
        List<Long> revisions = List.of(1L, 9L, 10L, 99L, 100L, 1L << 40, Long.MAX_VALUE, -2L, -1L);
        List<String> keys = new ArrayList<>();
        for (long r : revisions) {
            String k = Revisions.key(r);
            assertThat(k).startsWith(Revisions.PREFIX).hasSize(Revisions.PREFIX.length() + 20);
            assertThat(Revisions.parse(k)).isEqualTo(r);
            keys.add(k);
        }
        assertThat(keys).as("byte order is numeric (unsigned) order").isSorted();
        for (String bad : new String[] {"__lake_internal/feed/1", "__lake_internal/feed/0000000000000000000x",
                "__lake_internal/feed/99999999999999999999", "tbl/00000000000000000001", null}) {
            assertThatThrownBy(() -> Revisions.parse(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aRecordRoundTripsWithItsChangesAndEvent() {
        ChangeRecord r = ChangeRecord.of(-1L, 7, 1_700_000_000_000L,
                List.of(new ChangeRecord.Change("kv/a", "v".getBytes(StandardCharsets.UTF_8)), new ChangeRecord.Change("kv/b", null),
                        new ChangeRecord.Change("kv/empty", new byte[0])),
                new JsonObject().put("type", "table-created").put("table", "robots.episodes"));
        ChangeRecord back = ChangeRecord.decode(r.encode());
        assertThat(back).isEqualTo(r);
        assertThat(back.changes().get(1).deleted()).isTrue();
        assertThat(back.changes().get(2).deleted()).as("an empty value is not a deletion").isFalse();
        ChangeRecord nothing = ChangeRecord.voidAt(5, 2, 10);
        assertThat(ChangeRecord.decode(nothing.encode())).isEqualTo(nothing);
        assertThat(ChangeRecord.decode(nothing.encode()).isVoid()).isTrue();
    }

    @Test
    void malformedRecordsAreRefused() {
        assertThatThrownBy(() -> ChangeRecord.of(0, 1, 1, List.of(new ChangeRecord.Change("k", null)), null))
                .hasMessageContaining("revision 0");
        assertThatThrownBy(() -> ChangeRecord.of(3, 1, 1, List.of(), null)).hasMessageContaining("at least one change");
        assertThatThrownBy(() -> ChangeRecord.of(3, 1, 1, List.of(new ChangeRecord.Change("k", null), new ChangeRecord.Change("k", new byte[1])), null))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> ChangeRecord.decode("{\"revision\":\"1\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a change record");
    }

    @Test
    void theSequencerRefusesWhatItDidNotAllocate() {
        Sequencer s = new Sequencer(41);
        long r = s.allocate();
        assertThat(r).isEqualTo(42);
        assertThatThrownBy(() -> s.settle(41)).isInstanceOf(IllegalArgumentException.class);
        assertThat(s.settle(42)).isEqualTo(42);
        assertThatThrownBy(() -> s.settle(42)).as("settled once only").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Sequencer(-1L)).isInstanceOf(IllegalArgumentException.class);
    }
}
