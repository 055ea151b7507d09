package lake.engines.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import static org.apache.spark.sql.functions.col;

/**
 * Runs a SQL script on a local Spark session and reports on stdout, one line each:
 * <pre>
 * STATEMENT n          as statement n starts (n counts from 1); its rows follow
 * ROW ["v1",null,...]  each result row, every value cast to a string by Spark (null stays null)
 * ERROR n Class msg    statement n failed; Class is the root-most Iceberg/Spark exception in the cause chain
 * CAUSES a.B,c.D       the whole cause chain's classes, outermost first (follows ERROR)
 * </pre>
 * Usage: {@code SparkSql <conf.properties> <script.sql>}; every property becomes Spark conf (over
 * the defaults below). Exit 0: every statement ran; 3: a statement failed (the rest did not run);
 * 2: bad arguments; 4: the session could not start (reported as {@code ERROR 0 ...}).
 * Only these lines reach stdout: everything else (Spark's log, any library's println) goes to stderr.
 */
public final class SparkSql {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SparkSql() {}

    public static void main(String[] args) throws IOException {
        // The protocol owns the real stdout; anything else writing to System.out lands on stderr.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 2) {
            System.err.println("usage: SparkSql <conf.properties> <script.sql>");
            System.exit(2);
        }
        Properties conf = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            conf.load(r);
        }
        List<String> statements = split(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));

        SparkSession spark;
        try {
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
        } catch (Throwable t) {
            error(out, 0, t);
            System.exit(4);
            return;
        }

        int code = 0;
        for (int i = 0; i < statements.size(); i++) {
            int n = i + 1;
            out.println("STATEMENT " + n); // before running it: a failed statement's ERROR follows its STATEMENT line
            try {
                Dataset<Row> result = spark.sql(statements.get(i));
                for (Row row : asStrings(result).collectAsList()) {
                    List<String> values = new ArrayList<>(row.size());
                    for (int c = 0; c < row.size(); c++) values.add(row.isNullAt(c) ? null : row.getString(c));
                    out.println("ROW " + JSON.writeValueAsString(values));
                }
            } catch (Throwable t) {
                error(out, n, t);
                code = 3;
                break;
            }
        }
        try {
            spark.stop();
        } catch (Throwable t) {
            t.printStackTrace(); // to stderr; the statements' outcome is already reported
        }
        out.flush();
        // Spark and Iceberg leave non-daemon threads (HTTP client pools) behind: exit explicitly.
        System.exit(code);
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

    /**
     * The script's statements: a statement ends at a line whose last non-blank character is ';'.
     * Blank lines and lines starting with "--" are skipped; text after the last ';' is one more statement.
     */
    static List<String> split(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\r?\n", -1)) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("--")) continue;
            if (t.endsWith(";")) {
                current.append(t, 0, t.length() - 1);
                if (!current.toString().isBlank()) statements.add(current.toString().strip());
                current.setLength(0);
            } else {
                current.append(line).append('\n');
            }
        }
        if (!current.toString().isBlank()) statements.add(current.toString().strip());
        return statements;
    }

    private static void error(PrintStream out, int n, Throwable t) {
        t.printStackTrace(); // the full trace to stderr, for whoever reads the failure
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) chain.add(c);
        Throwable named = t;
        for (Throwable c : chain) if (worthNaming(c)) named = c; // the last (deepest) one wins
        String message = String.valueOf(named.getMessage()).replaceAll("\\s*\\R\\s*", " ").strip();
        out.println("ERROR " + n + " " + named.getClass().getName() + " " + message);
        out.println("CAUSES " + String.join(",", chain.stream().map(c -> c.getClass().getName()).toList()));
    }

    /** Iceberg's and Spark's own exceptions say what went wrong; their shaded libraries' (HTTP, Jackson) do not. */
    private static boolean worthNaming(Throwable t) {
        String name = t.getClass().getName();
        return (name.startsWith("org.apache.iceberg.") || name.startsWith("org.apache.spark.")) && !name.contains(".shaded.");
    }
}
