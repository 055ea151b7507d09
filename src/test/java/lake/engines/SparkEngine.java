package lake.engines;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Spark 3.5.9 with {@code iceberg-spark-runtime-3.5_2.12} (engines/spark), run by {@link EngineProcess}. */
public final class SparkEngine {
    /** The Iceberg release engines/spark is built on (its pom's {@code iceberg.version}), as the service is. */
    static final String ICEBERG = "1.11.0";

    /**
     * The first Iceberg release whose Spark 3.5 runtime can hand {@code DROP TABLE … PURGE} to a
     * REST catalog, by {@link #REST_CATALOG_PURGE} (apache/iceberg PR 15614, merged after 1.11.0).
     * engines/spark's pom ({@code iceberg.catalog-purge.version}) copies that release's runtime and
     * AWS bundle to {@code target/iceberg-1.12.0/}, for {@link #runWithIceberg}.
     */
    static final String ICEBERG_WITH_CATALOG_PURGE = "1.12.0";

    /**
     * The Spark catalog property ({@code spark.sql.catalog.<name>.rest-catalog-purge}) that makes
     * {@code SparkCatalog.purgeTable} send {@code DELETE …?purgeRequested=true} to a REST catalog
     * instead of deleting the table's files itself ({@code SparkCatalogProperties.REST_CATALOG_PURGE}
     * in 1.12.0; 1.11.0 has no such property).
     */
    static final String REST_CATALOG_PURGE = "rest-catalog-purge";

    /** Iceberg's two jars on the harness's classpath, each named {@code <artifact>-<version>.jar}. */
    private static final List<String> ICEBERG_JARS = List.of("iceberg-spark-runtime-3.5_2.12", "iceberg-aws-bundle");

    private SparkEngine() {}

    /** Runs {@code sql} with {@code conf} as Spark conf (e.g. the {@code spark.sql.catalog.<name>.*} of an Iceberg REST catalog). */
    public static EngineProcess.Result run(Map<String, String> conf, String sql, Path workDir) throws IOException, InterruptedException {
        return EngineProcess.run("spark", "lake.engines.spark.SparkSql", conf, sql, workDir);
    }

    /**
     * As {@link #run}, on Iceberg {@code version}'s Spark runtime and AWS bundle instead of
     * {@link #ICEBERG}'s; the same Spark. Only a version engines/spark's build copies is there:
     * {@link #ICEBERG_WITH_CATALOG_PURGE}.
     */
    static EngineProcess.Result runWithIceberg(String version, Map<String, String> conf, String sql, Path workDir)
            throws IOException, InterruptedException {
        return EngineProcess.run("spark", "lake.engines.spark.SparkSql", EngineProcess.Jvm.current(),
                (target, built) -> swapIceberg(target.resolve("iceberg-" + version), version, built), conf, sql, workDir);
    }

    /** {@code built} with each of {@link #ICEBERG_JARS} at {@link #ICEBERG} replaced by its jar at {@code version} in {@code dir}. */
    private static List<String> swapIceberg(Path dir, String version, List<String> built) {
        List<String> out = new ArrayList<>(built.size());
        int swapped = 0;
        for (String entry : built) {
            String file = Path.of(entry).getFileName().toString();
            String artifact = ICEBERG_JARS.stream().filter(a -> file.equals(a + "-" + ICEBERG + ".jar")).findFirst().orElse(null);
            if (artifact == null) {
                out.add(entry);
                continue;
            }
            Path jar = dir.resolve(artifact + "-" + version + ".jar");
            if (!Files.isRegularFile(jar)) {
                throw new AssertionError("no " + jar + ": engines/spark's build copies Iceberg " + ICEBERG_WITH_CATALOG_PURGE
                        + " only (its pom's iceberg.catalog-purge.version); asked for " + version);
            }
            out.add(jar.toString());
            swapped++;
        }
        // Both or the run would mix two Iceberg releases (the runtime's S3FileIO against another SDK bundle).
        if (swapped != ICEBERG_JARS.size()) {
            throw new AssertionError("expected " + ICEBERG_JARS + " at " + ICEBERG + " on engines/spark's classpath, swapped " + swapped + ": " + built);
        }
        return out;
    }
}
