package lake.feed;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sequencer under any interleaving of allocations and settlements (writes finishing in any
 * order, as DynamoDB transactions of one leader commit): the watermark never decreases, never
 * passes an unsettled revision, and reaches the last revision once all are settled.
 */
class SequencerProperties {
    @Provide
    Arbitrary<List<Integer>> steps() {
        return Arbitraries.integers().between(0, 99).list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 300)
    void theWatermarkNeverPassesAnUnsettledRevisionNorGoesBack(@ForAll("steps") List<Integer> steps, @ForAll long seed) {
        long start = Math.floorMod(seed, 1_000_000L);
        Sequencer s = new Sequencer(start);
        Random random = new Random(seed);
        List<Long> open = new ArrayList<>();
        long lastAllocated = start;
        long watermark = s.watermark();
        assertThat(watermark).isEqualTo(start);
        for (int step : steps) {
            if (step < 55 || open.isEmpty()) {
                long r = s.allocate();
                assertThat(r).as("strictly increasing, starting above the start").isEqualTo(lastAllocated + 1);
                lastAllocated = r;
                open.add(r);
            } else {
                long r = open.remove(random.nextInt(open.size()));
                long after = s.settle(r);
                assertThat(after).as("never decreases").isGreaterThanOrEqualTo(watermark);
                watermark = after;
            }
            long min = open.stream().mapToLong(Long::longValue).min().orElse(lastAllocated + 1);
            assertThat(s.watermark()).as("below every unsettled revision").isLessThan(min);
            if (open.isEmpty()) assertThat(s.watermark()).isEqualTo(lastAllocated);
        }
        for (long r : List.copyOf(open)) watermark = s.settle(r);
        assertThat(s.watermark()).isEqualTo(lastAllocated).isEqualTo(s.last());
    }
}
