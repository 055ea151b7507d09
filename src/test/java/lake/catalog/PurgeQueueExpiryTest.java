package lake.catalog;

import lake.catalog.model.Registration;
import lake.catalog.model.Tombstone;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** When a dropped table's retention ends, as listings show it. */
class PurgeQueueExpiryTest {
    static final Registration REG = Registration.create("s3://lake/robots/episodes/inc-1", "lance", "inc-1", List.of());

    @Test
    void aRetentionTooLongToEndNeverExpiresInsteadOfOverflowing() {
        Tombstone dropped = new Tombstone("robots", "episodes", "inc-1", 1_700_000_000_000L, REG);
        assertThat(PurgeQueue.expiresMs(dropped, 7L * 24 * 3_600_000)).isEqualTo(1_700_000_000_000L + 7L * 24 * 3_600_000);
        assertThat(PurgeQueue.expiresMs(dropped, Long.MAX_VALUE)).as("keep forever: no end, not a negative one").isNull();
        assertThat(PurgeQueue.expiresMs(new Tombstone("robots", "episodes", "inc-1", null, REG), 1L)).as("a drop before drops were timed").isNull();
    }
}
