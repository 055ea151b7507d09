package lake.election;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EpochsTest {

    private static final long TWO_POW_63 = Long.MIN_VALUE; // bit pattern of 2^63

    @Test
    void nextAdvancesByOneAcrossTheSignedBoundary() {
        assertThat(Epochs.next(Epochs.LEGACY)).isEqualTo(Epochs.FIRST);
        assertThat(Epochs.next(1)).isEqualTo(2);
        assertThat(Epochs.toString(Epochs.next(Long.MAX_VALUE))).isEqualTo("9223372036854775808");
        assertThat(Epochs.next(Long.MAX_VALUE)).isEqualTo(TWO_POW_63);
        assertThat(Epochs.toString(Epochs.next(Epochs.MAX - 1))).isEqualTo("18446744073709551615");
    }

    @Test
    void nextFailsClosedAtTheLargestEpoch() {
        assertThatThrownBy(() -> Epochs.next(Epochs.MAX))
                .isInstanceOf(ElectionException.EpochExhausted.class)
                .hasMessageContaining("18446744073709551615")
                .satisfies(e -> assertThat(((ElectionException) e).kind()).isEqualTo(ElectionException.Kind.EPOCH_EXHAUSTED));
    }

    @Test
    void renewedUpgradesOnlyTheLegacyEpoch() {
        assertThat(Epochs.renewed(Epochs.LEGACY)).isEqualTo(1);
        assertThat(Epochs.renewed(1)).isEqualTo(1);
        assertThat(Epochs.renewed(7)).isEqualTo(7);
        assertThat(Epochs.renewed(TWO_POW_63)).isEqualTo(TWO_POW_63);
        assertThat(Epochs.renewed(Epochs.MAX)).as("renewal never needs to grow").isEqualTo(Epochs.MAX);
    }

    @Test
    void compareIsUnsigned() {
        assertThat(Epochs.compare(Epochs.MAX, 1)).isPositive();
        assertThat(Epochs.compare(TWO_POW_63, Long.MAX_VALUE)).isPositive();
        assertThat(Epochs.compare(Long.MAX_VALUE, TWO_POW_63)).isNegative();
        assertThat(Epochs.compare(Epochs.MAX - 1, Epochs.MAX)).isNegative();
        assertThat(Epochs.compare(0, Epochs.MAX)).isNegative();
        assertThat(Epochs.compare(Epochs.MAX, Epochs.MAX)).isZero();
    }

    @Test
    void toStringAndParseRoundTripTheUnsignedRange() {
        assertThat(Epochs.toString(Epochs.MAX)).isEqualTo(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE).toString());
        assertThat(Epochs.toString(TWO_POW_63)).isEqualTo(BigInteger.ONE.shiftLeft(63).toString());
        for (long e : new long[] {0, 1, Long.MAX_VALUE, TWO_POW_63, Epochs.MAX - 1, Epochs.MAX}) {
            assertThat(Epochs.parse(Epochs.toString(e))).isEqualTo(e);
        }
        assertThatThrownBy(() -> Epochs.parse("18446744073709551616")).isInstanceOf(NumberFormatException.class);
        assertThatThrownBy(() -> Epochs.parse("-1")).isInstanceOf(NumberFormatException.class);
    }
}
