package lake.engines.spark;

import lake.engines.common.Harness;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;

import static org.apache.spark.sql.functions.col;

/**
 * Runs a SQL script on a local Spark session ({@code local[1]}, no UI, no Hive), reporting with
 * the harnesses' line protocol ({@link Harness}); every value is cast to a string by Spark itself.
 * Usage: {@code SparkSql <conf.properties> <script.sql>}; every property becomes Spark conf (over
 * the defaults below). An ERROR names the deepest Iceberg or Spark exception of the chain.
 */
public final class SparkSql implements Harness.Engine {
    private SparkSession spark;

    public static void main(String[] args) throws IOException {
        Harness.run("SparkSql", args, new SparkSql());
    }

    @Override
    public void start(Properties conf) {
        SparkSession.Builder b = SparkSession.builder().appName("lake-spark-sql").master("local[1]")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.default.parallelism", "1")
                // No Hive: the session catalog stays in memory (spark-hive is not on the classpath anyway).
                .config("spark.sql.catalogImplementation", "in-memory");
        for (String k : conf.stringPropertyNames()) b.config(k, conf.getProperty(k));
        spark = b.getOrCreate();
    }

    @Override
    public void execute(String statement, Consumer<List<String>> rows) {
        for (Row row : asStrings(spark.sql(statement)).collectAsList()) {
            List<String> values = new ArrayList<>(row.size());
            for (int c = 0; c < row.size(); c++) values.add(row.isNullAt(c) ? null : row.getString(c));
            rows.accept(values);
        }
    }

    @Override
    public void stop() {
        spark.stop();
    }

    /** Iceberg's and Spark's own exceptions say what went wrong; their shaded libraries' (HTTP, Jackson) do not: the deepest of those. */
    @Override
    public Throwable named(List<Throwable> chain) {
        Throwable named = chain.get(0);
        for (Throwable c : chain) {
            String name = c.getClass().getName();
            if ((name.startsWith("org.apache.iceberg.") || name.startsWith("org.apache.spark.")) && !name.contains(".shaded.")) named = c;
        }
        return named;
    }

    /**
     * Every column cast to string by Spark itself (so arrays, maps, timestamps read as Spark SQL
     * prints them). Columns are renamed first: a result may have duplicate or dotted names.
     */
    private static Dataset<Row> asStrings(Dataset<Row> result) {
        String[] names = new String[result.columns().length];
        Column[] cast = new Column[names.length];
        for (int c = 0; c < names.length; c++) {
            names[c] = "c" + c;
            cast[c] = col(names[c]).cast("string");
        }
        return result.toDF(names).select(cast);
    }
}
