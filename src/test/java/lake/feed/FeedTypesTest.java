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

    @Test
    void partKeysSortBetweenTheirRecordAndTheNext() {
        String k7 = Revisions.key(7);
        String p1 = Revisions.partKey(7, 1);
        String p99 = Revisions.partKey(7, Revisions.MAX_PARTS);
        List<String> keys = new ArrayList<>(List.of(Revisions.key(8), p99, k7, p1, Revisions.partKey(7, 10)));
        keys.sort(lake.meta.Keys.UTF8_ORDER);
        assertThat(keys).containsExactly(k7, p1, Revisions.partKey(7, 10), p99, Revisions.key(8));
        assertThat(Revisions.parse(p1)).isEqualTo(7);
        assertThat(Revisions.part(p1)).isEqualTo(1);
        assertThat(Revisions.part(k7)).isZero();
        for (String bad : new String[] {k7 + "/00", k7 + "/1", k7 + "/x1", k7 + "-01", k7 + "/001"}) {
            assertThatThrownBy(() -> Revisions.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> Revisions.partKey(7, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Revisions.partKey(7, 100)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLargeRecordIsWrittenInPartsAndReassembled() {
        byte[] big = new byte[RecordItems.PART_BYTES];
        new java.util.Random(7).nextBytes(big);
        ChangeRecord r = ChangeRecord.of(12, 3, 99, List.of(new ChangeRecord.Change("kv/big", big), new ChangeRecord.Change("kv/gone", null)), null);
        List<lake.meta.Transaction.Op> ops = RecordItems.ops(r);
        assertThat(ops).as("base64 makes 256 KiB into more than one value").hasSize(2);
        assertThat(ops).allSatisfy(op -> {
            assertThat(op.condition()).as("created once").isEqualTo(lake.meta.Transaction.Condition.ABSENT);
            assertThat(op.value().length).isLessThanOrEqualTo(RecordItems.PART_BYTES);
        });
        assertThat(ops).extracting(lake.meta.Transaction.Op::key).containsExactly(Revisions.key(12), Revisions.partKey(12, 1));
        List<lake.meta.KeyValue> items = ops.stream().map(op -> new lake.meta.KeyValue(op.key(), op.value())).toList();
        assertThat(RecordItems.assemble(items)).isEqualTo(r);
        assertThatThrownBy(() -> RecordItems.assemble(List.of(items.get(1)))).hasMessageContaining("not part 0");
        ChangeRecord small = ChangeRecord.of(13, 3, 99, List.of(new ChangeRecord.Change("kv/a", new byte[] {1})), null);
        assertThat(RecordItems.ops(small)).hasSize(1);
    }
}
