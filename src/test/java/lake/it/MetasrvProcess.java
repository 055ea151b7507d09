package lake.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/** The packaged fat jar running as a real process, with its output captured. */
public final class MetasrvProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on https?://([^:]+):(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public final Process process;
    public final List<String> stdout = new CopyOnWriteArrayList<>();
    /**
     * Read from a file, not a pipe: with a pipe, the JDK closes the stream under a blocked reader
     * when the process exits ("Stream closed"), losing the lines written just before the exit,
     * which is where a graceful shutdown logs.
     */
    public final List<String> stderr;

    private MetasrvProcess(Process process, Path stderrFile) {
        this.process = process;
        this.stderr = new FileLines(stderrFile);
        pump(process.getInputStream(), stdout);
    }

    public static Path jar() {
        String jar = System.getProperty("lake.jar");
        if (jar == null) throw new IllegalStateException("system property lake.jar is not set (run through failsafe)");
        return Path.of(jar);
    }

    public static MetasrvProcess start(List<String> args) throws IOException {
        return start(args, java.util.Map.of());
    }

    public static MetasrvProcess start(List<String> args, java.util.Map<String, String> env) throws IOException {
        return start(List.of(), args, env);
    }

    /**
     * Starts the jar under {@code wrapper} (a command that execs the rest, such as
     * {@code faketime -f +5s}; empty for none).
     */
    public static MetasrvProcess start(List<String> wrapper, List<String> args, java.util.Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-jar", jar().toString()));
        cmd.addAll(args);
        Path stderrFile = Files.createTempFile("metasrv-stderr", ".log");
        stderrFile.toFile().deleteOnExit();
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(stderrFile.toFile());
        pb.environment().putAll(env);
        return new MetasrvProcess(pb.start(), stderrFile);
    }

    /** The lines of a file as they are now, read again on every access. */
    private static final class FileLines extends AbstractList<String> {
        private final Path file;

        FileLines(Path file) {
            this.file = file;
        }

        private List<String> now() {
            try {
                return Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override public String get(int i) { return now().get(i); }
        @Override public int size() { return now().size(); }
        @Override public Iterator<String> iterator() { return now().iterator(); }
        @Override public String toString() { return now().toString(); }
    }

    /** Waits for the start-up line and returns the HTTP port it names. */
    public int awaitListening(Duration limit) {
        int[] port = new int[1];
        await().atMost(limit).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!process.isAlive()) throw new AssertionError("process exited " + process.exitValue() + ": " + stderr);
            for (String line : stdout) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port[0] = Integer.parseInt(m.group(2));
                    return true;
                }
            }
            return false;
        });
        return port[0];
    }

    public static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    public static HttpResponse<String> post(int port, String path, String json) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    public long pid() {
        return process.pid();
    }

    /** Sends a POSIX signal (STOP, CONT, TERM, KILL) with kill(1). */
    public void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }

    /** SIGKILL: no shutdown hook runs. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) kill();
    }

    private static void pump(java.io.InputStream in, List<String> sink) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) sink.add(line);
            } catch (IOException ignored) {
                // The process ended.
            }
        }, "metasrv-output");
        t.setDaemon(true);
        t.start();
    }
}
