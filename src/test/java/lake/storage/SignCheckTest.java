package lake.storage;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The signer's rules on AWS's own S3 hosts (the suite's tests run against a configured endpoint). */
class SignCheckTest {
    static final S3Location T1 = S3Location.of("s3://lake-warehouse/whouse/ns/t1").orElseThrow();
    static final SignCheck.Target AWS = new SignCheck.Target(null, "eu-west-1");

    static boolean signed(SignCheck.Target target, boolean write, String method, String uri) {
        return SignCheck.refusal(target, T1, write, new SignCheck.Request(target.region(), method, URI.create(uri), Map.of(), null)).isEmpty();
    }

    @Test
    void awsHostsInVirtualAndPathStyleForTheSignersRegionOnly() {
        assertThat(signed(AWS, false, "GET", "https://lake-warehouse.s3.eu-west-1.amazonaws.com/whouse/ns/t1/data/a.parquet")).isTrue();
        assertThat(signed(AWS, false, "GET", "https://s3.eu-west-1.amazonaws.com/lake-warehouse/whouse/ns/t1/data/a.parquet")).isTrue();
        assertThat(signed(AWS, false, "GET", "https://lake-warehouse.s3.us-east-1.amazonaws.com/whouse/ns/t1/data/a.parquet"))
                .as("another region").isFalse();
        assertThat(signed(AWS, false, "GET", "http://lake-warehouse.s3.eu-west-1.amazonaws.com/whouse/ns/t1/data/a.parquet"))
                .as("plain http to AWS").isFalse();
        assertThat(signed(AWS, false, "GET", "https://lake-warehouse.s3.eu-west-1.amazonaws.com.evil.example/whouse/ns/t1/data/a"))
                .as("a host that merely starts like AWS's").isFalse();
        assertThat(signed(AWS, false, "GET", "https://other.s3.eu-west-1.amazonaws.com/whouse/ns/t1/data/a.parquet")).isFalse();
        SignCheck.Target east = new SignCheck.Target(null, "us-east-1");
        assertThat(signed(east, false, "GET", "https://lake-warehouse.s3.amazonaws.com/whouse/ns/t1/data/a.parquet"))
                .as("the global endpoint is us-east-1's").isTrue();
    }

    @Test
    void rightsDecideTheMethods() {
        SignCheck.Target local = new SignCheck.Target(URI.create("http://127.0.0.1:9000"), "us-east-1");
        String object = "http://127.0.0.1:9000/lake-warehouse/whouse/ns/t1/data/a.parquet";
        for (String m : List.of("GET", "HEAD")) assertThat(signed(local, false, m, object)).as(m).isTrue();
        for (String m : List.of("PUT", "DELETE")) {
            assertThat(signed(local, false, m, object)).as("reader " + m).isFalse();
            assertThat(signed(local, true, m, object)).as("writer " + m).isTrue();
        }
        assertThat(signed(local, true, "POST", object + "?uploads")).isTrue();
        assertThat(signed(local, true, "PUT", object + "?partNumber=2&uploadId=abc")).isTrue();
        assertThat(signed(local, false, "GET", object + "?uploadId=abc")).as("listing an upload's parts reads").isTrue();
        assertThat(signed(local, true, "GET", "http://127.0.0.1:9000/lake-warehouse?list-type=2&prefix=whouse%2Fns%2Ft1%2F")).isTrue();
        assertThat(signed(local, true, "GET", "http://127.0.0.1:9001/lake-warehouse/whouse/ns/t1/data/a.parquet")).as("another port").isFalse();
    }
}
