package lake.meta.dynamo;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * The real DynamoDB-protocol server the tests talk to: moto in server mode, single-threaded, on a
 * free loopback port, started once per JVM on first use and stopped by a shutdown hook (and by
 * itself when the JVM's pipe to it closes).
 *
 * <p>When moto cannot be started the calling test is skipped with the reason, unless the
 * environment sets {@code LAKE_REQUIRE_DYNAMO=true} (scripts/test does on CI): then it fails.
 *
 * <p>Reusable API: {@link #endpoint()}, {@link #config(String)}, {@link #freshTableName()},
 * {@link #openFreshStore(Vertx, ExecutionInterceptor...)}.
 */
public final class MotoServer {
    public static final String REGION = "us-east-1";
    public static final DynamoConfig.StaticCredentials CREDENTIALS = new DynamoConfig.StaticCredentials("test", "test");

    private static final Pattern READY = Pattern.compile("MOTO READY port=(\\d+)");
    private static final Duration STARTUP_LIMIT = Duration.ofSeconds(60);
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static volatile Started started;

    private record Started(URI endpoint, String failure) {}

    private MotoServer() {}

    /** The server's endpoint, starting it on first use; skips (or, when required, fails) the test without it. */
    public static URI endpoint() {
        Started s = start();
        if (s.endpoint() == null) {
            String message = "moto server unavailable: " + s.failure();
            if (required()) {
                throw new AssertionError(message + " (LAKE_REQUIRE_DYNAMO=true: the DynamoDB suite must run)");
            }
            Assumptions.abort(message + "; skipping the DynamoDB tests (set LAKE_REQUIRE_DYNAMO=true to fail instead)");
        }
        return s.endpoint();
    }

    /** A table name no other test in this JVM uses. */
    public static String freshTableName() {
        return "lake-meta-" + ProcessHandle.current().pid() + "-" + TABLES.incrementAndGet();
    }

    /** Configuration for {@code tableName} on this server: static test credentials, created on open. */
    public static DynamoConfig config(String tableName) {
        return DynamoConfig.of(REGION, tableName)
                .withEndpoint(endpoint())
                .withCredentials(CREDENTIALS)
                .withCreateTable(true)
                .withReadiness(20, Duration.ofMillis(50));
    }

    /** Opens a {@link DynamoMetaStore} on a new, empty table, with {@code interceptors} in its SDK client. */
    public static Future<DynamoMetaStore> openFreshStore(Vertx vertx, ExecutionInterceptor... interceptors) {
        DynamoConfig config = config(freshTableName());
        return DynamoMetaStore.open(vertx, config, DynamoClients.create(config, List.of(interceptors)));
    }

    /** Creates a new, empty table on this server (for processes that open it themselves) and returns its name. */
    public static String createFreshTable() throws Exception {
        String table = freshTableName();
        Vertx vertx = Vertx.vertx();
        try {
            DynamoMetaStore store = DynamoMetaStore.open(vertx, config(table)).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
            store.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
        return table;
    }

    /** On CI (CI=true) or when asked (LAKE_REQUIRE_DYNAMO=true) a missing server fails the suite. */
    private static boolean required() {
        return "true".equalsIgnoreCase(System.getenv("LAKE_REQUIRE_DYNAMO")) || "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** The Python that runs moto: LAKE_PYTHON (scripts/test points it at a virtualenv when it made one), else python3. */
    private static String python() {
        String p = System.getenv("LAKE_PYTHON");
        return p == null || p.isBlank() ? "python3" : p;
    }

    private static synchronized Started start() {
        if (started == null) started = launch(java.util.Map.of(), new Process[1]);
        return started;
    }

    /** A moto server of one's own (stopped by {@link #close}): for tests that need moto configured otherwise. */
    public static final class Own implements AutoCloseable {
        private final URI endpoint;
        private final Process process;

        private Own(URI endpoint, Process process) {
            this.endpoint = endpoint;
            this.process = process;
        }

        public URI endpoint() {
            return endpoint;
        }

        @Override
        public void close() {
            stop(process);
        }
    }

    /**
     * Starts another moto server with {@code env} added to its environment (say
     * {@code INITIAL_NO_AUTH_ACTION_COUNT}, which makes moto enforce IAM after that many requests);
     * skips or fails the calling test as {@link #endpoint()} does when it cannot start.
     */
    public static Own own(java.util.Map<String, String> env) {
        Process[] process = new Process[1];
        Started s = launch(env, process);
        if (s.endpoint() == null) {
            String message = "moto server unavailable: " + s.failure();
            if (required()) throw new AssertionError(message + " (LAKE_REQUIRE_DYNAMO=true: the moto suite must run)");
            Assumptions.abort(message);
        }
        return new Own(s.endpoint(), process[0]);
    }

    private static Started launch(java.util.Map<String, String> env, Process[] launched) {
        Process process;
        try {
            Path script = Files.createTempFile("moto_server", ".py");
            script.toFile().deleteOnExit();
            try (InputStream in = MotoServer.class.getResourceAsStream("/moto_server.py")) {
                if (in == null) return new Started(null, "moto_server.py is not on the test classpath");
                Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
            }
            File log = Files.createTempFile("moto_server", ".log").toFile();
            ProcessBuilder builder = new ProcessBuilder(python(), script.toString(), "0", "127.0.0.1", "--exit-on-stdin-eof").redirectError(log);
            builder.environment().putAll(env);
            process = builder.start();
            launched[0] = process;
        } catch (IOException e) {
            return new Started(null, "could not run " + python() + ": " + e.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process), "moto-server-stop"));

        AtomicReference<String> port = new AtomicReference<>();
        Thread reader = new Thread(() -> readStdout(process, port), "moto-server-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            await().atMost(STARTUP_LIMIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> port.get() != null || !process.isAlive());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            stop(process);
            return new Started(null, "moto did not report readiness within " + STARTUP_LIMIT.toSeconds() + " s");
        }
        if (port.get() == null) {
            return new Started(null, "moto exited with status " + process.exitValue()
                    + " before it was ready (is moto[server] installed for " + python() + "? ./scripts/test installs it)");
        }
        return new Started(URI.create("http://127.0.0.1:" + port.get()), null);
    }

    private static void readStdout(Process process, AtomicReference<String> port) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                Matcher m = READY.matcher(line);
                if (m.find()) port.compareAndSet(null, m.group(1));
            }
        } catch (IOException e) {
            // The process went away; launch() sees it through isAlive().
        }
    }

    private static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
