package lake.election;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeaseRecordTest {

    private static LeaseRecord decode(String json) {
        return LeaseRecord.decode(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String encoded(LeaseRecord record) {
        return new String(record.encode(), StandardCharsets.UTF_8);
    }

    @Test
    void encodesTheOriginalSnakeCaseFormat() {
        assertThat(encoded(new LeaseRecord("node-a", 1_700_000_000_000L, 3)))
                .isEqualTo("{\"holder\":\"node-a\",\"expires_at_ms\":1700000000000,\"epoch\":3}");
        assertThat(encoded(new LeaseRecord("quo\"te\\é", 1, 1)))
                .isEqualTo("{\"holder\":\"quo\\\"te\\\\é\",\"expires_at_ms\":1,\"epoch\":1}");
        LeaseRecord odd = new LeaseRecord("quo\"te\\é\n", 1, 1);
        assertThat(LeaseRecord.decode(odd.encode())).isEqualTo(odd);
    }

    @Test
    void legacyRecordWithoutEpochReadsAsZero() {
        assertThat(decode("{\"holder\":\"node-a\",\"expires_at_ms\":5000}"))
                .isEqualTo(new LeaseRecord("node-a", 5000, Epochs.LEGACY));
    }

    @Test
    void unknownFieldsAreIgnored() {
        assertThat(decode(" { \"role\": \"metasrv\", \"expires_at_ms\" : 5000, \"nested\": {\"a\": [1, 2.5]},"
                + " \"holder\": \"node-a\", \"epoch\": 4 } "))
                .isEqualTo(new LeaseRecord("node-a", 5000, 4));
    }

    @Test
    void epochsAboveTheSignedRangeRoundTrip() {
        String max = "{\"holder\":\"n\",\"expires_at_ms\":18446744073709551615,\"epoch\":18446744073709551615}";
        LeaseRecord atMax = decode(max);
        assertThat(atMax.epoch()).isEqualTo(Epochs.MAX);
        assertThat(atMax.expiresAtMs()).isEqualTo(-1L);
        assertThat(encoded(atMax)).isEqualTo(max);

        String twoPow63 = "{\"holder\":\"n\",\"expires_at_ms\":9223372036854775808,\"epoch\":9223372036854775808}";
        LeaseRecord high = decode(twoPow63);
        assertThat(high.epoch()).isEqualTo(Long.MIN_VALUE);
        assertThat(Epochs.compare(high.epoch(), Long.MAX_VALUE)).isPositive();
        assertThat(encoded(high)).isEqualTo(twoPow63);
        assertThat(decode("{\"holder\":\"n\",\"expires_at_ms\":0,\"epoch\":9223372036854775807}").epoch())
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void expiryIsInclusiveAndUnsigned() {
        LeaseRecord lease = new LeaseRecord("n", 2000, 1);
        assertThat(lease.expiredAt(1999)).isFalse();
        assertThat(lease.expiredAt(2000)).as("expires_at_ms <= now is expired").isTrue();
        assertThat(lease.expiredAt(2001)).isTrue();
        assertThat(new LeaseRecord("n", Long.MIN_VALUE, 1).expiredAt(Long.MAX_VALUE))
                .as("an expiry of 2^63 ms is later than any signed now").isFalse();
    }

    @Test
    void malformedBytesAreCorrupt() {
        String[] malformed = {
            "", "   ", "{", "null", "[]", "\"holder\"", "42",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":1} trailing",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":1}{}",
            "{\"expires_at_ms\":1,\"epoch\":1}",
            "{\"holder\":\"\",\"expires_at_ms\":1,\"epoch\":1}",
            "{\"holder\":7,\"expires_at_ms\":1,\"epoch\":1}",
            "{\"holder\":null,\"expires_at_ms\":1,\"epoch\":1}",
            "{\"holder\":\"n\",\"epoch\":1}",
            "{\"holder\":\"n\",\"expires_at_ms\":\"1\",\"epoch\":1}",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":null}",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":-1}",
            "{\"holder\":\"n\",\"expires_at_ms\":-5,\"epoch\":1}",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":1.0}",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":1e3}",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":18446744073709551616}",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":\"2\"}",
            "{\"holder\":\"n\",\"expires_at_ms\":1,\"epoch\":1,\"epoch\":2}",
            "{\"holder\":\"n\",\"holder\":\"m\",\"expires_at_ms\":1}",
        };
        for (String json : malformed) {
            assertThatThrownBy(() -> decode(json)).as(json)
                    .isInstanceOf(ElectionException.LeaseRecordCorrupt.class)
                    .satisfies(e -> assertThat(((ElectionException) e).kind())
                            .isEqualTo(ElectionException.Kind.LEASE_RECORD_CORRUPT));
        }
        byte[] notUtf8 = {'{', '"', 'h', (byte) 0xff, '"', ':', '1', '}'};
        assertThatThrownBy(() -> LeaseRecord.decode(notUtf8)).isInstanceOf(ElectionException.LeaseRecordCorrupt.class);
    }

    @Test
    void constructorRequiresAHolder() {
        assertThatThrownBy(() -> new LeaseRecord(null, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LeaseRecord("", 1, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
