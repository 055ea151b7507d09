package lake.engines;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Trino 483 (an embedded single-node server, trino-main's StandaloneQueryRunner) with its Iceberg
 * connector as catalog {@code lake} (engines/trino), run by {@link EngineProcess} on a Java 25 JDK
 * ({@link EngineProcess#java25Home()}): Trino 483 is compiled for Java 25.
 */
public final class TrinoEngine {
    private TrinoEngine() {}

    /** The JVM flags Trino needs on Java 25, beyond what every engine child gets. */
    static final List<String> FLAGS = List.of(
            // Trino's block serialization probes for SIMD support with the Vector API at startup: without the module the server does not start.
            "--add-modules=jdk.incubator.vector");

    /**
     * Runs {@code sql} with every entry of {@code conf} as a property of catalog {@code lake}
     * (connector {@code iceberg}: {@code iceberg.catalog.type}, {@code iceberg.rest-catalog.*}, {@code s3.*}, …).
     */
    public static EngineProcess.Result run(Map<String, String> conf, String sql, Path workDir) throws IOException, InterruptedException {
        EngineProcess.Jvm jvm = new EngineProcess.Jvm(EngineProcess.java25Home(), FLAGS);
        return EngineProcess.run("trino", "lake.engines.trino.TrinoSql", jvm, conf, sql, workDir);
    }
}
