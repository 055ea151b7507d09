package lake.engines;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Flink 1.20.3 (a local mini cluster, batch mode) with {@code iceberg-flink-runtime-1.20}
 * (engines/flink), run by {@link EngineProcess}. Catalogs are created by the script
 * ({@code CREATE CATALOG … WITH ('type'='iceberg', 'catalog-type'='rest', …)}).
 */
public final class FlinkEngine {
    private FlinkEngine() {}

    /** Runs {@code sql} with {@code conf} as Flink configuration. */
    public static EngineProcess.Result run(Map<String, String> conf, String sql, Path workDir) throws IOException, InterruptedException {
        return EngineProcess.run("flink", "lake.engines.flink.FlinkSql", conf, sql, workDir);
    }
}
