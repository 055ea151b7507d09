package lake.client;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The backoff between sweeps as pure arithmetic: doubling, capped, and jittered. */
class RetrierTest {
    @Test
    void backoffDoublesFromTheBaseUpToTheMax() {
        assertThat(Retrier.backoffMs(1, 50, 1_000, 0.999_999)).isEqualTo(49);
        assertThat(Retrier.backoffMs(2, 50, 1_000, 0.999_999)).isEqualTo(99);
        assertThat(Retrier.backoffMs(3, 50, 1_000, 0.999_999)).isEqualTo(199);
        assertThat(Retrier.backoffMs(5, 50, 1_000, 0.999_999)).isEqualTo(799);
        assertThat(Retrier.backoffMs(6, 50, 1_000, 0.999_999)).as("capped").isEqualTo(999);
        assertThat(Retrier.backoffMs(1_000_000, 50, 1_000, 0.999_999)).as("no overflow however many sweeps").isEqualTo(999);
    }

    @Test
    void backoffIsHalfToAllOfItsCap() {
        assertThat(Retrier.backoffMs(3, 50, 1_000, 0.0)).isEqualTo(100);
        assertThat(Retrier.backoffMs(3, 50, 1_000, 0.5)).isEqualTo(150);
        SplittableRandom random = new SplittableRandom(18);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            long ms = Retrier.backoffMs(4, 50, 1_000, random.nextDouble());
            assertThat(ms).isBetween(200L, 400L);
            seen.add(ms);
        }
        assertThat(seen).as("spread over the range, not one fixed pause").hasSizeGreaterThan(100);
    }
}
