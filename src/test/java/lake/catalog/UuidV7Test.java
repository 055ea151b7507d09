package lake.catalog;

import lake.catalog.model.UuidV7;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class UuidV7Test {
    @Test
    void uuidV7CarriesTheMillisecondsVersionAndVariant() {
        long millis = 0x0193_a5c2_7d1eL;
        String text = UuidV7.next(millis, new SplittableRandom(7));
        UUID uuid = UUID.fromString(text);

        assertThat(text).startsWith("0193a5c2-7d1e-7").hasSize(36).isLowerCase();
        assertThat(uuid.version()).isEqualTo(7);
        assertThat(uuid.variant()).isEqualTo(2);
        assertThat(uuid.getMostSignificantBits() >>> 16).isEqualTo(millis);
        assertThat(UuidV7.next(millis, new SplittableRandom(8))).isNotEqualTo(text);
    }
}
