package lake.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fat jar's weight and what a clean start of a cluster node logs (issue 40, "The jar and
 * start-up noise"). The supported platforms and the warnings a clean start may log are read from
 * marked lists in docs/operations.md, so the doc and these checks cannot drift apart.
 */
class JarAndStartupNoiseIT {
    /** Issue 40's target; the jar was 142 MiB with every platform's RocksDB native. */
    static final long MAX_JAR_BYTES = 90L * 1024 * 1024;
    /**
     * A warning or error line in any of the formats a node's output can carry: logback's
     * ({@code 12:00:00.000 WARN  logger - …}), java.util.logging's and the JVM's own
     * ({@code WARNING: …}, {@code SEVERE: …}).
     */
    static final Pattern WARNING = Pattern.compile("(^|\\s)(WARN|WARNING|ERROR|SEVERE)(:|\\s)");

    @TempDir Path data;

    @Test
    void jarIsAtMost90MiBAndCarriesTheSupportedNativesOnly() throws IOException {
        Path jar = MetasrvProcess.jar();
        assertThat(Files.size(jar)).as("size of %s in bytes", jar).isLessThanOrEqualTo(MAX_JAR_BYTES);
        List<String> natives;
        try (ZipFile z = new ZipFile(jar.toFile())) {
            natives = z.stream().map(ZipEntry::getName).filter(n -> n.startsWith("librocksdbjni")).sorted().toList();
        }
        List<String> documented = docList("supported-platforms").stream()
                .filter(t -> t.startsWith("librocksdbjni")).sorted().toList();
        assertThat(documented).as("docs/operations.md lists the supported natives").isNotEmpty();
        assertThat(natives).as("the RocksDB natives in the jar are the documented ones").isEqualTo(documented);
        // The file RocksDB's own loader looks for on this machine (glibc or musl, CPU), by the
        // library's code rather than a guess: a node started here extracts exactly this entry.
        assertThat(natives).contains(org.rocksdb.util.Environment.getJniLibraryFileName("rocksdb"));
    }

    @Test
    void cleanStartLogsNoUnexplainedWarning() throws Exception {
        // A free Hazelcast port: other cluster tests may run on this machine at the same time.
        int hz = ClusterHarness.freePort();
        List<String> args = List.of("--node-id", "quiet", "--data-dir", data.toString(), "--http-port", "0",
                "--lease-ttl-ms", "3000", "--cluster", "--cluster-name", "lake-quiet-" + hz, "--cluster-host", "127.0.0.1",
                "--cluster-port", String.valueOf(hz), "--cluster-members", "127.0.0.1:" + hz,
                "--store", "rocks", "--store-role", "host");
        List<String> allowed = docList("start-up-warnings");
        try (MetasrvProcess p = MetasrvProcess.start(args)) {
            int port = p.awaitListening(Duration.ofSeconds(90));
            await().atMost(Duration.ofSeconds(30)).until(() -> MetasrvProcess.get(port, "/ready").statusCode() == 200);
            p.process.destroy(); // SIGTERM: the graceful stop is part of a clean run
            assertThat(p.process.waitFor(30, TimeUnit.SECONDS)).as("stopped; stderr: " + p.stderr).isTrue();
            assertThat(p.process.exitValue()).as("exit status; stderr: " + p.stderr).isZero();
            // The whole log is there (stderr is a file, complete once the process is gone), and it is
            // the log of a node that used the jar's RocksDB native, led and stopped.
            assertThat(String.join("\n", p.stderr)).contains("leadership node=quiet role=leader", "node quiet stopped");
            assertThat(p.stdout).anyMatch(l -> l.contains("store rocks at"));

            List<String> lines = new ArrayList<>(p.stderr);
            lines.addAll(p.stdout);
            List<String> unexplained = lines.stream().filter(l -> WARNING.matcher(l).find())
                    .filter(l -> allowed.stream().noneMatch(l::contains)).toList();
            assertThat(unexplained).as("warnings docs/operations.md (\"Start-up warnings\") does not explain; allowed: "
                    + allowed + "; whole log: " + lines).isEmpty();
        }
    }

    /**
     * docs/operations.md says nothing uses Hazelcast's CP subsystem, which is why its warning is
     * silenced: no class in the jar outside Hazelcast itself names a CP type or asks for it.
     */
    @Test
    void nothingOutsideHazelcastUsesItsCpSubsystem() throws IOException {
        List<String> users = new ArrayList<>();
        try (ZipFile z = new ZipFile(MetasrvProcess.jar().toFile())) {
            for (ZipEntry e : z.stream().filter(e -> e.getName().endsWith(".class"))
                    .filter(e -> !e.getName().startsWith("com/hazelcast/")).toList()) {
                try (InputStream in = z.getInputStream(e)) {
                    // Class-file constant pools hold these names as plain ASCII.
                    String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                    if (text.contains("com/hazelcast/cp/") || text.contains("getCPSubsystem")) users.add(e.getName());
                }
            }
        }
        assertThat(users).isEmpty();
        // Guard against a scan that found nothing to scan.
        try (ZipFile z = new ZipFile(MetasrvProcess.jar().toFile())) {
            assertThat(z.getEntry("io/vertx/spi/cluster/hazelcast/HazelcastClusterManager.class")).isNotNull();
            assertThat(z.getEntry("lake/cluster/Clustering.class")).isNotNull();
        }
    }

    /**
     * The entries of the marked list {@code name} in docs/operations.md, between
     * {@code <!-- begin:name …-->} and {@code <!-- end:name -->} (the markers must be there): the
     * first backticked text of each item ({@code - …}) or table row ({@code | …}); the rest of
     * the line is explanation.
     */
    static List<String> docList(String name) throws IOException {
        Path doc = Path.of(System.getProperty("lake.home", ".")).resolve("docs/operations.md");
        String text = Files.readString(doc);
        int begin = text.indexOf("<!-- begin:" + name);
        int end = text.indexOf("<!-- end:" + name + " -->");
        assertThat(begin).as("marker begin:%s in %s", name, doc).isNotNegative();
        assertThat(end).as("marker end:%s in %s", name, doc).isGreaterThan(begin);
        String list = text.substring(text.indexOf("-->", begin) + 3, end);
        List<String> texts = new ArrayList<>();
        Pattern first = Pattern.compile("`([^`]+)`");
        for (String line : list.split("\n")) {
            if (!line.startsWith("- ") && !line.startsWith("|")) continue;
            Matcher m = first.matcher(line);
            if (m.find()) texts.add(m.group(1));
        }
        return texts;
    }
}
