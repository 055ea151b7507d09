package lake.iceberg;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A multi-table commit's event repeats each table's updates only up to a total, so the record never pushes the commit past the store's limits. */
class CommitEventUpdatesTest {

    private static JsonObject detail(int bytes) {
        return new JsonObject().put("table_uuid", "u" + bytes).put("updates",
                new JsonArray().add(new JsonObject().put("action", "set-properties").put("pad", "x".repeat(bytes))));
    }

    @Test
    void aMultiTableCommitsUpdatesStayUnderTheirCapLargestLeftOutFirst() {
        List<JsonObject> details = new ArrayList<>();
        for (int i = 0; i < 10; i++) details.add(detail(50_000 + i * 1_000));
        details.add(detail(100));
        IcebergCatalog.capUpdates(details);
        long total = details.stream().mapToLong(d -> d.getJsonArray("updates") == null ? 0 : d.getJsonArray("updates").encode().length()).sum();
        assertThat(total).isLessThanOrEqualTo(IcebergCatalog.MAX_COMMIT_UPDATES_BYTES);
        assertThat(details.get(10).getJsonArray("updates")).as("the small table keeps its updates").isNotNull();
        assertThat(details.get(9).getBoolean("updates_omitted", false)).as("the largest goes first").isTrue();
        assertThat(details.get(0).getJsonArray("updates")).as("only as many go as must").isNotNull();
        for (JsonObject d : details) assertThat(d.containsKey("updates") != d.getBoolean("updates_omitted", false)).isTrue();
    }
}
