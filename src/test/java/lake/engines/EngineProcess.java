package lake.engines;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Runs SQL on a real engine in a child JVM: its classpath (engines/&lt;name&gt;, built by
 * scripts/build-engines) never joins this project's test classpath. The child (SparkSql,
 * FlinkSql, TrinoSql) speaks one stdout protocol, parsed into a {@link Result}. {@link SparkEngine},
 * {@link FlinkEngine} and {@link TrinoEngine} say which child and how it is started: Spark and
 * Flink by this JVM's own JDK (17), Trino by a Java 25 JDK ({@link #java25Home()}).
 */
public final class EngineProcess {
    /** How long one run may take (a cold Spark run takes ~10 s here) before it is killed and the test fails. */
    public static final long TIMEOUT_SECONDS = 300;

    /** The JDK-internal packages Spark 3.5 and Flink 1.20 reflect into on Java 17 (as their own launchers open them). */
    static final List<String> OPENS = List.of("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io",
            "java.net", "java.nio", "java.text", "java.time", "java.util", "java.util.concurrent", "java.util.concurrent.atomic",
            "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar");

    /**
     * Where the Java 25 JDK that Trino needs is looked for when {@code LAKE_JAVA25_HOME} is not set
     * (scripts/build-engines looks there too).
     */
    static final String JAVA25_HOME = "/usr/lib/jvm/temurin-25-jdk-amd64";

    /**
     * How an engine's child JVM is started.
     *
     * @param javaHome the JDK whose bin/java runs the child
     * @param flags    JVM flags the engine needs (before the heap, scratch directory and classpath, which every child gets)
     */
    record Jvm(Path javaHome, List<String> flags) {
        /** This JVM's own JDK, with the {@link #OPENS} Spark and Flink need. */
        static Jvm current() {
            List<String> flags = new ArrayList<>();
            for (String pkg : OPENS) flags.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
            flags.add("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED");
            return new Jvm(Path.of(System.getProperty("java.home")), List.copyOf(flags));
        }
    }

    /**
     * The Java 25 JDK: {@code LAKE_JAVA25_HOME} when set, else {@link #JAVA25_HOME}. Fails, naming
     * the path it looked at, when there is no java there.
     */
    static Path java25Home() {
        String env = System.getenv("LAKE_JAVA25_HOME");
        boolean fromEnv = env != null && !env.isBlank();
        Path home = Path.of(fromEnv ? env : JAVA25_HOME);
        if (!Files.isExecutable(home.resolve("bin/java"))) {
            throw new AssertionError("Trino needs a Java 25 JDK, and there is no executable " + home.resolve("bin/java")
                    + (fromEnv ? " (from LAKE_JAVA25_HOME)" : " (the default; set LAKE_JAVA25_HOME to a JDK 25 home elsewhere)"));
        }
        return home;
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> ROW = new TypeReference<>() {};

    private EngineProcess() {}

    /**
     * One run's outcome.
     *
     * @param statements per statement that started (index 0 is statement 1), its rows, each value a string or null
     * @param error      the ERROR line without its "ERROR " ("n Class message"), or null
     * @param causes     the CAUSES line's class names (outermost first, comma-separated), or null
     * @param stderrTail the last lines of the child's stderr, for failure messages
     */
    public record Result(int exitCode, List<List<List<String>>> statements, String error, String causes, String stderrTail) {
        public boolean failed() {
            return exitCode != 0;
        }

        /** The rows of statement {@code n} (counting from 1, as the script's order). */
        public List<List<String>> rows(int n) {
            if (n < 1 || n > statements.size()) throw new AssertionError("statement " + n + " did not run\n" + this);
            return statements.get(n - 1);
        }

        /** The statement that failed (counting from 1), or 0 when none did. */
        public int failedStatement() {
            return error == null ? 0 : Integer.parseInt(error.split(" ", 3)[0]);
        }

        /** The root-most Iceberg/Spark exception class of the failure, or null. */
        public String errorClass() {
            return error == null ? null : error.split(" ", 3)[1];
        }

        /** That exception's message on one line, or null. */
        public String message() {
            if (error == null) return null;
            String[] parts = error.split(" ", 3);
            return parts.length > 2 ? parts[2] : "";
        }

        /** Fails unless every statement ran; the message holds the error and the child's stderr. */
        public Result assertOk() {
            if (failed()) throw new AssertionError("engine run failed: " + this);
            return this;
        }

        @Override
        public String toString() {
            return "exit " + exitCode + (error == null ? "" : "\nERROR " + error + "\nCAUSES " + causes)
                    + "\nrows per statement: " + statements + "\n--- stderr (tail) ---\n" + stderrTail;
        }
    }

    /**
     * Runs {@code sql} (statements ending with ';' at a line end) on engine {@code name}
     * (engines/&lt;name&gt;) by its class {@code mainClass}, with {@code conf} as the engine's
     * configuration, in a child JVM of this JVM's own JDK ({@link Jvm#current()}). The child's files
     * (conf, script, stderr, scratch) go to a new directory under {@code workDir}.
     */
    static Result run(String name, String mainClass, Map<String, String> conf, String sql, Path workDir) throws IOException, InterruptedException {
        return run(name, mainClass, Jvm.current(), conf, sql, workDir);
    }

    /** As {@link #run(String, String, Map, String, Path)}, in a child JVM started as {@code jvm} says. */
    static Result run(String name, String mainClass, Jvm jvm, Map<String, String> conf, String sql, Path workDir) throws IOException, InterruptedException {
        return run(name, mainClass, jvm, (target, built) -> built, conf, sql, workDir);
    }

    /**
     * How a run's classpath is made from what the harness's build wrote ({@code target/classpath.txt}):
     * given the engine's target directory and those entries, the entries to use (a changed jar, say).
     */
    @FunctionalInterface
    interface Classpath {
        List<String> of(Path target, List<String> built);
    }

    /**
     * As {@link #run(String, String, Jvm, Map, String, Path)}, with the classpath.txt entries
     * passed through {@code classpath} once the harness is built (SparkEngine swaps Iceberg's jars so).
     */
    static Result run(String name, String mainClass, Jvm jvm, Classpath classpath, Map<String, String> conf, String sql, Path workDir)
            throws IOException, InterruptedException {
        Path root = repoRoot();
        Path engine = root.resolve("engines/" + name + "/target");
        build(root, name);
        List<String> entries = classpath.of(engine, List.of(Files.readString(engine.resolve("classpath.txt")).strip().split(java.io.File.pathSeparator)));

        Path run = Files.createTempDirectory(Files.createDirectories(workDir), name + "-");
        Path confFile = run.resolve("conf.properties");
        Properties p = new Properties();
        p.putAll(conf);
        try (Writer w = Files.newBufferedWriter(confFile, StandardCharsets.UTF_8)) {
            p.store(w, null);
        }
        Path script = Files.writeString(run.resolve("script.sql"), sql);
        Path stdout = run.resolve("stdout.txt");
        Path stderr = run.resolve("stderr.txt");
        Path tmp = Files.createDirectories(run.resolve("tmp"));

        List<String> cmd = new ArrayList<>();
        cmd.add(jvm.javaHome().resolve("bin/java").toString());
        cmd.addAll(jvm.flags());
        cmd.add("-Xmx1g");
        cmd.add("-Djava.io.tmpdir=" + tmp); // the engine's scratch (Spark's block manager, Flink's blobs) stays under the run
        cmd.add("-cp");
        cmd.add(engine.resolve("classes") + java.io.File.pathSeparator + String.join(java.io.File.pathSeparator, entries));
        cmd.add(mainClass);
        cmd.add(confFile.toString());
        cmd.add(script.toString());

        ProcessBuilder pb = new ProcessBuilder(cmd).directory(run.toFile())
                // Both to files: nothing to drain concurrently, so a chatty child never blocks on a full pipe.
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1"); // else Spark looks up (and warns about) the host's address
        // The engine holds no AWS identity of its own: whatever S3 access it has, the catalog gave it.
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
        pb.environment().put("AWS_EC2_METADATA_DISABLED", "true");
        pb.environment().put("AWS_SHARED_CREDENTIALS_FILE", run.resolve("no-aws-credentials").toString());
        pb.environment().put("AWS_CONFIG_FILE", run.resolve("no-aws-config").toString());
        Process child = pb.start();
        if (!child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(name + " run did not finish in " + TIMEOUT_SECONDS + " s; killed. stdout:\n"
                    + Files.readString(stdout) + "\n--- stderr (tail) ---\n" + tail(stderr));
        }
        return parse(child.exitValue(), Files.readAllLines(stdout, StandardCharsets.UTF_8), tail(stderr));
    }

    private static Result parse(int exitCode, List<String> lines, String stderrTail) throws IOException {
        List<List<List<String>>> statements = new ArrayList<>();
        String error = null;
        String causes = null;
        for (String line : lines) {
            if (line.startsWith("STATEMENT ")) {
                statements.add(new ArrayList<>());
            } else if (line.startsWith("ROW ")) {
                if (statements.isEmpty()) throw new AssertionError("ROW before any STATEMENT: " + line);
                statements.get(statements.size() - 1).add(JSON.readValue(line.substring(4), ROW));
            } else if (line.startsWith("ERROR ")) {
                error = line.substring(6);
            } else if (line.startsWith("CAUSES ")) {
                causes = line.substring(7);
            } else {
                // The child sends everything but its protocol to stderr; anything else is a harness bug.
                throw new AssertionError("unexpected line on the engine's stdout: " + line + "\n--- stderr (tail) ---\n" + stderrTail);
            }
        }
        return new Result(exitCode, statements, error, causes, stderrTail);
    }

    /** The last ~60 lines of the child's stderr. */
    private static String tail(Path stderr) throws IOException {
        if (!Files.exists(stderr)) return "";
        List<String> lines = Files.readAllLines(stderr, StandardCharsets.ISO_8859_1); // never fails on odd bytes
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    /**
     * Runs scripts/build-engines, which builds each engine harness only when it is missing or older
     * than its sources (so an edited SparkSql.java is never run stale) and otherwise returns at once;
     * then checks that engine {@code name}'s outputs are there (the script skips Trino when it finds
     * no Java 25, which fails only the Trino tests).
     */
    private static synchronized void build(Path root, String name) throws IOException, InterruptedException {
        Path log = Files.createTempFile("build-engines", ".log");
        try {
            Process b = new ProcessBuilder("bash", root.resolve("scripts/build-engines").toString()).directory(root.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!b.waitFor(15, TimeUnit.MINUTES)) {
                b.destroyForcibly();
                throw new AssertionError("scripts/build-engines did not finish in 15 minutes:\n" + Files.readString(log));
            }
            Path target = root.resolve("engines/" + name + "/target");
            if (b.exitValue() != 0 || !Files.exists(target.resolve("classpath.txt")) || !Files.exists(target.resolve("lake-engine-" + name + ".jar"))) {
                throw new AssertionError("scripts/build-engines failed (exit " + b.exitValue() + ") or did not build engines/" + name + ":\n"
                        + Files.readString(log));
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The project root: Maven runs tests there; walk up from the working directory to be safe. */
    private static Path repoRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/build-engines")) && Files.isRegularFile(d.resolve("engines/spark/pom.xml"))) return d;
        }
        throw new AssertionError("no engines/spark/pom.xml above " + Path.of("").toAbsolutePath());
    }
}
