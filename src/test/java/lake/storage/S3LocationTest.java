package lake.storage;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class S3LocationTest {
    @Test
    void aLocationIsABucketAndAPrefixEndingInASlash() {
        S3Location at = S3Location.of("s3://lake-warehouse/whouse/ns/t1").orElseThrow();
        assertThat(at.bucket()).isEqualTo("lake-warehouse");
        assertThat(at.prefix()).isEqualTo("whouse/ns/t1/");
        assertThat(at.uri()).isEqualTo("s3://lake-warehouse/whouse/ns/t1");
        assertThat(S3Location.of("s3a://lake-warehouse/whouse/ns/t1//").orElseThrow()).isEqualTo(at);
        assertThat(at.covers("whouse/ns/t1/data/a.parquet")).isTrue();
        assertThat(at.covers("whouse/ns/t10/data/a.parquet")).as("a sibling whose name starts the same").isFalse();
        assertThat(S3Location.of("file:///srv/lake/t1")).as("not in S3").isEmpty();
    }

    @Test
    void whatAPolicyCannotNameSafelyIsRefused() {
        for (String bad : new String[] {"s3://b/whouse/../other", "s3://b/whouse/./t", "s3://b/whouse//t", "s3://b/whouse/t*",
                "s3://b/whouse/t?", "s3://b/whouse/${aws:username}", "s3://B_ad/t", "s3://bucket", "s3://bucket/"}) {
            assertThatThrownBy(() -> S3Location.of(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
