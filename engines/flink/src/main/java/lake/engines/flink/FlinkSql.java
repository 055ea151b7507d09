package lake.engines.flink;

import lake.engines.common.Harness;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * Runs a Flink SQL script on a local Flink (batch mode, parallelism 1), reporting with the
 * harnesses' line protocol ({@link Harness}). Usage: {@code FlinkSql <conf.properties> <script.sql>};
 * every property becomes Flink table configuration. A statement that starts a job (INSERT) is
 * waited for, and reports no rows (Flink's row count is -1), as in the other harnesses.
 */
public final class FlinkSql implements Harness.Engine {
    private TableEnvironment env;

    public static void main(String[] args) throws IOException {
        Harness.run("FlinkSql", args, new FlinkSql());
    }

    @Override
    public void start(Properties conf) {
        Configuration c = new Configuration();
        c.setString("parallelism.default", "1");
        c.setString("rest.bind-address", "127.0.0.1");
        c.setString("taskmanager.host", "127.0.0.1");
        for (String k : conf.stringPropertyNames()) c.setString(k, conf.getProperty(k));
        env = TableEnvironment.create(EnvironmentSettings.newInstance().inBatchMode().withConfiguration(c).build());
    }

    @Override
    public void execute(String statement, Consumer<List<String>> rows) throws Exception {
        TableResult result = env.executeSql(statement);
        String verb = statement.strip().split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
        if (verb.equals("INSERT")) {
            // A write's job runs on: wait for it to finish (and commit) before the next statement.
            result.await();
        } else if (result.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT) {
            try (CloseableIterator<Row> it = result.collect()) {
                while (it.hasNext()) {
                    Row row = it.next();
                    List<String> values = new ArrayList<>(row.getArity());
                    for (int f = 0; f < row.getArity(); f++) {
                        Object v = row.getField(f);
                        values.add(v == null ? null : String.valueOf(v));
                    }
                    rows.accept(values);
                }
            }
        }
    }
}
