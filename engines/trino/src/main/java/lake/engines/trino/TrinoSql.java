package lake.engines.trino;

import io.trino.execution.Failure;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.StandaloneQueryRunner;
import lake.engines.common.Harness;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;

import static io.trino.testing.TestingSession.testSessionBuilder;

/**
 * Runs a Trino SQL script on an embedded single-node Trino (trino-main's StandaloneQueryRunner,
 * queries run in-process) with the Iceberg connector as catalog {@code lake}, reporting with the
 * harnesses' line protocol ({@link Harness}). Usage: {@code TrinoSql <conf.properties> <script.sql>};
 * every property becomes a property of catalog {@code lake} (connector {@code iceberg}). A write
 * (INSERT, UPDATE, CREATE, DROP …) reports no rows, as in the other harnesses, not Trino's row count.
 */
public final class TrinoSql implements Harness.Engine {
    private StandaloneQueryRunner trino;

    public static void main(String[] args) throws IOException {
        Harness.run("TrinoSql", args, new TrinoSql());
    }

    @Override
    public void start(Properties conf) throws Exception {
        trino = new StandaloneQueryRunner(testSessionBuilder().setCatalog("lake").build());
        trino.installPlugin(new IcebergPlugin());
        Map<String, String> catalog = new HashMap<>();
        for (String k : conf.stringPropertyNames()) catalog.put(k, conf.getProperty(k));
        trino.createCatalog("lake", "iceberg", catalog);
    }

    @Override
    public void execute(String statement, Consumer<List<String>> rows) {
        MaterializedResult result = trino.execute(statement);
        if (result.getUpdateType().isPresent()) return;
        for (MaterializedRow row : result.getMaterializedRows()) {
            List<String> values = new ArrayList<>(row.getFieldCount());
            for (int f = 0; f < row.getFieldCount(); f++) {
                Object v = row.getField(f);
                values.add(v == null ? null : String.valueOf(v));
            }
            rows.accept(values);
        }
    }

    /** For Trino's Failure (a query failure carried as data), the class of the exception it stands for. */
    @Override
    public String type(Throwable t) {
        return t instanceof Failure f ? f.getFailureInfo().type() : t.getClass().getName();
    }
}
