package lake.engines;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** Spark 3.5.9 with {@code iceberg-spark-runtime-3.5_2.12} (engines/spark), run by {@link EngineProcess}. */
public final class SparkEngine {
    private SparkEngine() {}

    /** Runs {@code sql} with {@code conf} as Spark conf (e.g. the {@code spark.sql.catalog.<name>.*} of an Iceberg REST catalog). */
    public static EngineProcess.Result run(Map<String, String> conf, String sql, Path workDir) throws IOException, InterruptedException {
        return EngineProcess.run("spark", "lake.engines.spark.SparkSql", conf, sql, workDir);
    }
}
