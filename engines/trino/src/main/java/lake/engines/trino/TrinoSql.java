package lake.engines.trino;

import io.trino.execution.Failure;
import io.trino.plugin.iceberg.IcebergPlugin;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.StandaloneQueryRunner;

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
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static io.trino.testing.TestingSession.testSessionBuilder;

/**
 * Runs a Trino SQL script on an embedded single-node Trino (trino-main's StandaloneQueryRunner,
 * queries run in-process) with the Iceberg connector as catalog {@code lake}, and reports on
 * stdout with the same line protocol as the Spark and Flink harnesses:
 * <pre>
 * STATEMENT n          as statement n starts (n counts from 1); its rows follow
 * ROW ["v1",null,...]  each result row, every value as its string (null stays null)
 * ERROR n Class msg    statement n failed; Class is the root-most exception in the cause chain
 * CAUSES a.B,c.D       the whole cause chain's classes, outermost first (follows ERROR)
 * </pre>
 * Usage: {@code TrinoSql <conf.properties> <script.sql>}; every property becomes a property of
 * catalog {@code lake} (connector {@code iceberg}). A write (INSERT, UPDATE, CREATE, DROP …)
 * reports no rows, as in the other harnesses, not Trino's row count. Exit 0: every statement ran;
 * 3: a statement failed (the rest did not run); 2: bad arguments; 4: Trino could not start.
 */
public final class TrinoSql {
    private TrinoSql() {}

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 2) {
            System.err.println("usage: TrinoSql <conf.properties> <script.sql>");
            System.exit(2);
        }
        Properties conf = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            conf.load(r);
        }
        List<String> statements = split(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));

        StandaloneQueryRunner trino;
        try {
            trino = new StandaloneQueryRunner(testSessionBuilder().setCatalog("lake").build());
            trino.installPlugin(new IcebergPlugin());
            Map<String, String> catalog = new HashMap<>();
            for (String k : conf.stringPropertyNames()) catalog.put(k, conf.getProperty(k));
            trino.createCatalog("lake", "iceberg", catalog);
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
                MaterializedResult result = trino.execute(statements.get(i));
                if (result.getUpdateType().isEmpty()) {
                    for (MaterializedRow row : result.getMaterializedRows()) {
                        StringBuilder line = new StringBuilder("[");
                        for (int f = 0; f < row.getFieldCount(); f++) {
                            if (f > 0) line.append(',');
                            Object v = row.getField(f);
                            line.append(v == null ? "null" : json(String.valueOf(v)));
                        }
                        out.println("ROW " + line.append(']'));
                    }
                }
            } catch (Throwable t) {
                error(out, n, t);
                code = 3;
                break;
            }
        }
        out.flush();
        // The server's executors and Iceberg's HTTP pools leave non-daemon threads behind, and a
        // clean close of the whole server takes seconds: exit explicitly.
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
        out.println("ERROR " + n + " " + type(root) + " " + message);
        StringBuilder causes = new StringBuilder();
        for (Throwable c : chain) causes.append(causes.length() == 0 ? "" : ",").append(type(c));
        out.println("CAUSES " + causes);
    }

    /** The exception's class; for Trino's Failure (a query failure carried as data), the class of the exception it stands for. */
    private static String type(Throwable t) {
        return t instanceof Failure f ? f.getFailureInfo().type() : t.getClass().getName();
    }
}
