package lake.engines.flink;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
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

/**
 * Runs a Flink SQL script on a local Flink (batch mode) and reports on stdout with the same line
 * protocol as the Spark harness's SparkSql:
 * <pre>
 * STATEMENT n          as statement n starts (n counts from 1); its rows follow
 * ROW ["v1",null,...]  each result row, every value as its string (null stays null)
 * ERROR n Class msg    statement n failed; Class is the root-most exception in the cause chain
 * CAUSES a.B,c.D       the whole cause chain's classes, outermost first (follows ERROR)
 * </pre>
 * Usage: {@code FlinkSql <conf.properties> <script.sql>}; every property becomes Flink table
 * configuration. A statement that starts a job (INSERT) is waited for. Exit 0: every statement
 * ran; 3: a statement failed (the rest did not run); 2: bad arguments; 4: Flink could not start.
 */
public final class FlinkSql {
    private FlinkSql() {}

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 2) {
            System.err.println("usage: FlinkSql <conf.properties> <script.sql>");
            System.exit(2);
        }
        Properties conf = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            conf.load(r);
        }
        List<String> statements = split(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));

        TableEnvironment env;
        try {
            Configuration c = new Configuration();
            c.setString("parallelism.default", "1");
            c.setString("rest.bind-address", "127.0.0.1");
            c.setString("taskmanager.host", "127.0.0.1");
            for (String k : conf.stringPropertyNames()) c.setString(k, conf.getProperty(k));
            env = TableEnvironment.create(EnvironmentSettings.newInstance().inBatchMode().withConfiguration(c).build());
        } catch (Throwable t) {
            error(out, 0, t);
            System.exit(4);
            return;
        }

        int code = 0;
        for (int i = 0; i < statements.size(); i++) {
            int n = i + 1;
            out.println("STATEMENT " + n);
            try {
                String statement = statements.get(i);
                TableResult result = env.executeSql(statement);
                String verb = statement.strip().split("\\s+", 2)[0].toUpperCase(java.util.Locale.ROOT);
                if (verb.equals("INSERT")) {
                    // A write's job runs on: wait for it to finish (and commit) before the next statement.
                    // Its one row, the count Flink does not know (-1), is not reported: as SparkSql, no rows for a write.
                    result.await();
                } else if (result.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT) {
                    try (CloseableIterator<Row> rows = result.collect()) {
                        while (rows.hasNext()) {
                            Row row = rows.next();
                            StringBuilder line = new StringBuilder("[");
                            for (int f = 0; f < row.getArity(); f++) {
                                if (f > 0) line.append(',');
                                Object v = row.getField(f);
                                line.append(v == null ? "null" : json(String.valueOf(v)));
                            }
                            out.println("ROW " + line.append(']'));
                        }
                    }
                }
            } catch (Throwable t) {
                error(out, n, t);
                code = 3;
                break;
            }
        }
        out.flush();
        // Flink's mini cluster and Iceberg's HTTP pools leave non-daemon threads behind: exit explicitly.
        System.exit(code);
    }

    private static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
                    else b.append(ch);
                }
            }
        }
        return b.append('"').toString();
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
        t.printStackTrace();
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) chain.add(c);
        Throwable root = chain.get(chain.size() - 1);
        String message = String.valueOf(root.getMessage()).replace('\n', ' ').replace('\r', ' ');
        out.println("ERROR " + n + " " + root.getClass().getName() + " " + message);
        StringBuilder causes = new StringBuilder();
        for (Throwable c : chain) causes.append(causes.length() == 0 ? "" : ",").append(c.getClass().getName());
        out.println("CAUSES " + causes);
    }
}
