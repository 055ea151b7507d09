package lake.orphans;

import lake.iceberg.files.TableFiles;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A reference and a listed file compare in one spelling, so a referenced file is never taken for an orphan. */
class ReferencesTest {
    @Test
    void s3aAndS3nSpellTheSameObjectsAsS3() {
        String listed = "s3://bucket/wh/robots/t/0b1c/data/a.parquet";
        assertThat(TableFiles.spelling("s3a://bucket/wh/robots/t/0b1c/data/a.parquet")).isEqualTo(TableFiles.spelling(listed));
        assertThat(TableFiles.spelling("s3n://bucket/wh/robots/t/0b1c/data/a.parquet")).isEqualTo(TableFiles.spelling(listed));
        assertThat(TableFiles.spelling("gs://bucket/wh/a.parquet")).as("other stores as they are").isEqualTo("gs://bucket/wh/a.parquet");
        assertThat(TableFiles.spelling("file:///tmp/wh/../wh/a")).isEqualTo(TableFiles.spelling("/tmp/wh/a"));
    }
}
