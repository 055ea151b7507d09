package lake.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The README's Quick start, pasted as a new user would: the block runs as written, in one bash, from
 * the project root, starting its own node on localhost:8080. Each command line must exit 0, and a
 * line whose comment says {@code # → X} must print X ({@code …} standing for anything). Only the
 * data directory is the test's own (LAKE_DATA_DIR), so a fresh one gives epoch 1 as the block says.
 */
class QuickStartIT {
    static final Path ROOT = Path.of("").toAbsolutePath();
    static final int PORT = 8080;

    @TempDir Path dir;

    /** One command line of the block, with what its comment says it prints (or null). */
    record Line(int number, String text, String expected) {}

    static List<Line> quickStart() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int section = readme.indexOf("\n## Quick start\n");
        assertThat(section).as("README has a Quick start").isPositive();
        int start = readme.indexOf("```sh\n", section) + "```sh\n".length();
        int end = readme.indexOf("\n```", start);
        String[] lines = readme.substring(start, end).split("\n", -1);
        List<Line> out = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            String t = lines[i];
            assertThat(t).as("line %d continues onto the next: keep each command on one line", i + 1).doesNotEndWith("\\");
            if (t.isBlank() || t.stripLeading().startsWith("#")) continue;
            int arrow = t.lastIndexOf("# → ");
            String expected = null;
            if (arrow >= 0) {
                expected = t.substring(arrow + "# → ".length());
                int gap = expected.indexOf("  ");   // two spaces end the output; a remark may follow
                if (gap >= 0) expected = expected.substring(0, gap);
            }
            out.add(new Line(i + 1, t, expected));
        }
        return out;
    }

    /** {@code …} matches anything; everything else is literal. */
    static Pattern shape(String expected) {
        StringBuilder p = new StringBuilder();
        for (String part : expected.split("…", -1)) {
            if (p.length() > 0) p.append(".*");
            p.append(Pattern.quote(part));
        }
        return Pattern.compile(p.toString(), Pattern.DOTALL);
    }

    @Test
    void quickStartRunsAsWritten() throws Exception {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", PORT));
        } catch (IOException taken) {
            fail("the Quick start uses localhost:" + PORT + ", which something on this machine already holds: " + taken);
        }
        List<Line> lines = quickStart();
        assertThat(lines).as("the block has commands").hasSizeGreaterThan(10);
        // Each line as written, in one shell, its output to a file of its own and its status logged.
        StringBuilder script = new StringBuilder("cd ").append(quote(ROOT.toString())).append('\n');
        for (Line l : lines) {
            script.append("{\n").append(l.text()).append("\n} >").append(quote(out(l).toString())).append(" 2>&1\n");
            script.append("echo ").append(l.number()).append(" $? >>").append(quote(dir.resolve("status").toString())).append('\n');
        }
        Files.writeString(dir.resolve("quickstart.sh"), script);
        // Its own session, so every process the block starts can be stopped with its group.
        ProcessBuilder pb = new ProcessBuilder("setsid", "bash", dir.resolve("quickstart.sh").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("bash.log").toFile());
        pb.environment().put("LAKE_DATA_DIR", dir.resolve("data").toString());
        pb.environment().remove("LAKECTL_ENDPOINTS");
        pb.environment().remove("LAKECTL_TOKEN");
        Process bash = pb.start();
        try {
            boolean ended = bash.waitFor(5, TimeUnit.MINUTES);
            assertThat(ended).as("the block ends (bash log: %s)", Files.readString(dir.resolve("bash.log"))).isTrue();
            // The block's last line sent SIGTERM: the node logs its clean stop.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> Files.readString(out(lines.get(0))).contains("stopped"));
        } finally {
            new ProcessBuilder("kill", "-KILL", "--", "-" + bash.pid()).start().waitFor();
        }
        Map<Integer, Integer> status = new LinkedHashMap<>();
        for (String s : Files.readAllLines(dir.resolve("status"))) {
            String[] f = s.split(" ");
            status.put(Integer.parseInt(f[0]), Integer.parseInt(f[1]));
        }
        for (Line l : lines) {
            String printed = Files.exists(out(l)) ? Files.readString(out(l), StandardCharsets.UTF_8).strip() : "";
            assertThat(status.get(l.number())).as("README Quick start line %d exits 0: %s%nit printed: %s", l.number(), l.text(), printed)
                    .isEqualTo(0);
            if (l.expected() != null) {
                assertThat(printed).as("README Quick start line %d prints what its comment says: %s", l.number(), l.text())
                        .matches(shape(l.expected()));
            }
        }
    }

    private Path out(Line l) {
        return dir.resolve("line-" + l.number() + ".out");
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
