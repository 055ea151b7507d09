package lake.engines.common;

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
import java.util.function.Consumer;

/**
 * What every engine harness (engines/spark, engines/flink, engines/trino; compiled into each from
 * engines/common) does around its engine: it reads the configuration and the script, runs the
 * statements in order and reports on stdout with one line protocol, which the project's
 * {@code lake.engines.EngineProcess} parses:
 * <pre>
 * STATEMENT n          as statement n starts (n counts from 1); its rows follow
 * ROW ["v1",null,...]  each result row, every value as the engine prints it (null stays null)
 * ERROR n Class msg    statement n failed (0: the engine did not start); Class names the exception
 * CAUSES a.B,c.D       the whole cause chain's classes, outermost first (follows ERROR)
 * </pre>
 * Only these lines reach stdout: everything else (the engine's log, any library's println) goes to
 * stderr. Exit 0: every statement ran; 3: a statement failed (the rest did not run); 2: bad
 * arguments; 4: the engine could not start.
 */
public final class Harness {
    private Harness() {}

    /** One engine, as a harness drives it. */
    public interface Engine {
        /** Starts the engine with {@code conf}, the run's configuration file as given. */
        void start(Properties conf) throws Exception;

        /** Runs one statement; each result row goes to {@code rows}, its values as strings (null kept). A write reports no rows. */
        void execute(String statement, Consumer<List<String>> rows) throws Exception;

        /** The exception an ERROR line names, from the cause chain (outermost first): by default the root-most. */
        default Throwable named(List<Throwable> chain) {
            return chain.get(chain.size() - 1);
        }

        /** The class name reported for {@code t}. */
        default String type(Throwable t) {
            return t.getClass().getName();
        }

        /** Called after the last statement, before the exit; a failure here changes no outcome. */
        default void stop() throws Exception {}
    }

    /** Runs {@code args} ({@code <conf.properties> <script.sql>}) on {@code engine}; never returns. */
    public static void run(String name, String[] args, Engine engine) throws IOException {
        // The protocol owns the real stdout; anything else writing to System.out lands on stderr.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 2) {
            System.err.println("usage: " + name + " <conf.properties> <script.sql>");
            System.exit(2);
        }
        Properties conf = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            conf.load(r);
        }
        List<String> statements = split(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));
        try {
            engine.start(conf);
        } catch (Throwable t) {
            error(out, 0, t, engine);
            System.exit(4);
            return;
        }
        int code = 0;
        for (int i = 0; i < statements.size(); i++) {
            int n = i + 1;
            out.println("STATEMENT " + n); // before running it: a failed statement's ERROR follows its STATEMENT line
            try {
                engine.execute(statements.get(i), row -> out.println("ROW " + json(row)));
            } catch (Throwable t) {
                error(out, n, t, engine);
                code = 3;
                break;
            }
        }
        try {
            engine.stop();
        } catch (Throwable t) {
            t.printStackTrace(); // to stderr; the statements' outcome is already reported
        }
        out.flush();
        // Engines and Iceberg's HTTP pools leave non-daemon threads behind, and closing some engines takes seconds: exit explicitly.
        System.exit(code);
    }

    /**
     * The script's statements: a statement ends at a line whose last non-blank character is ';'.
     * Blank lines and lines starting with "--" are skipped; text after the last ';' is one more statement.
     */
    public static List<String> split(String script) {
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

    /** A row as a JSON array of strings and nulls. */
    static String json(List<String> values) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) b.append(',');
            String v = values.get(i);
            if (v == null) {
                b.append("null");
                continue;
            }
            b.append('"');
            for (char ch : v.toCharArray()) {
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
            b.append('"');
        }
        return b.append(']').toString();
    }

    private static void error(PrintStream out, int n, Throwable t, Engine engine) {
        t.printStackTrace(); // the full trace to stderr, for whoever reads the failure
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) chain.add(c);
        Throwable named = engine.named(chain);
        String message = String.valueOf(named.getMessage()).replaceAll("\\s*\\R\\s*", " ").strip();
        out.println("ERROR " + n + " " + engine.type(named) + " " + message);
        out.println("CAUSES " + String.join(",", chain.stream().map(engine::type).toList()));
    }
}
