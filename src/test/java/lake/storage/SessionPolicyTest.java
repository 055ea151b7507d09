package lake.storage;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SessionPolicyTest {
    private static List<Object> all(JsonObject policy, String field) {
        List<Object> out = new ArrayList<>();
        for (Object st : policy.getJsonArray("Statement")) out.addAll(((JsonObject) st).getJsonArray(field).getList());
        return out;
    }

    @Test
    void readersMayOnlyReadAndEveryResourceIsTheTablesOrItsBucket() {
        S3Location at = S3Location.of("s3://lake-warehouse/whouse/ns/t1").orElseThrow();
        JsonObject read = new JsonObject(SessionPolicy.of(at, false));
        JsonObject write = new JsonObject(SessionPolicy.of(at, true));
        assertThat(all(read, "Action")).containsExactlyInAnyOrder("s3:GetObject", "s3:GetObjectVersion", "s3:ListBucket", "s3:GetBucketLocation");
        assertThat(all(write, "Action")).contains("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload").contains(all(read, "Action").toArray());
        for (JsonObject p : List.of(read, write)) {
            assertThat(all(p, "Resource")).containsOnly("arn:aws:s3:::lake-warehouse/whouse/ns/t1/*", "arn:aws:s3:::lake-warehouse");
            JsonObject list = p.getJsonArray("Statement").stream().map(o -> (JsonObject) o)
                    .filter(st -> st.getJsonArray("Action").contains("s3:ListBucket")).findFirst().orElseThrow();
            assertThat(list.getJsonObject("Condition").getJsonObject("StringLike").getJsonArray("s3:prefix"))
                    .isEqualTo(new JsonArray().add("whouse/ns/t1/*"));
            assertThat(p.getJsonArray("Statement")).allSatisfy(st -> assertThat(((JsonObject) st).getString("Effect")).isEqualTo("Allow"));
        }
    }
}
