package lake.orphans;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A reference and a listed file compare in one spelling, so a referenced file is never taken for an orphan. */
class ReferencesTest {
    @Test
    void s3aAndS3nSpellTheSameObjectsAsS3() {
        String listed = "s3://bucket/wh/robots/t/0b1c/data/a.parquet";
        assertThat(References.spelling("s3a://bucket/wh/robots/t/0b1c/data/a.parquet")).isEqualTo(References.spelling(listed));
        assertThat(References.spelling("s3n://bucket/wh/robots/t/0b1c/data/a.parquet")).isEqualTo(References.spelling(listed));
        assertThat(References.spelling("gs://bucket/wh/a.parquet")).as("other stores as they are").isEqualTo("gs://bucket/wh/a.parquet");
        assertThat(References.spelling("file:///tmp/wh/../wh/a")).isEqualTo(References.spelling("/tmp/wh/a"));
    }
}
