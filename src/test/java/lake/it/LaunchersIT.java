package lake.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launchers a new user meets first never build in silence and print no colour codes:
 * {@code bin/lakectl} in a copy of the project layout (its own jar, sources older or newer).
 */
class LaunchersIT {
    static final Path ROOT = Path.of("").toAbsolutePath();
    static final String STALE = "lakectl: the sources are newer than target/lake-metasrv.jar; using the built jar (rebuild: scripts/build-jar)";

    @TempDir Path home;

    record Run(int exit, String out, String err) {}

    Run lakectl(Map<String, String> env, String... args) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(home.resolve("bin/lakectl").toString()));
        command.addAll(java.util.List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(home.resolve("out").toFile()).redirectError(home.resolve("err").toFile());
        pb.environment().put("LAKECTL_CDS", "0");
        pb.environment().remove("LAKECTL_QUIET_STALE");
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(home.resolve("out")), Files.readString(home.resolve("err")));
    }

    @Test
    void lakectlNeverRebuildsSilently() throws Exception {
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("target"));
        Files.createDirectories(home.resolve("src/main"));
        Files.copy(ROOT.resolve("bin/lakectl"), home.resolve("bin/lakectl"));
        Path jar = Files.copy(ROOT.resolve("target/lake-metasrv.jar"), home.resolve("target/lake-metasrv.jar"));
        Path source = Files.writeString(home.resolve("src/main/Newer.java"), "class Newer {}");
        Path pom = Files.writeString(home.resolve("pom.xml"), "<project/>");
        Instant now = Instant.now();
        Files.setLastModifiedTime(pom, FileTime.from(now.minusSeconds(3_600)));

        // Sources newer than the jar: one line says so, the jar is used as it is (no build: no Maven here).
        Files.setLastModifiedTime(jar, FileTime.from(now.minusSeconds(600)));
        Files.setLastModifiedTime(source, FileTime.from(now.minusSeconds(60)));
        Run stale = lakectl(Map.of(), "--version");
        assertThat(stale.exit()).as(stale.err()).isZero();
        assertThat(stale.out()).contains("lakectl");
        assertThat(stale.err().strip()).isEqualTo(STALE);
        assertThat(stale.out() + stale.err()).as("no colour codes").doesNotContain("\u001b");
        assertThat(lakectl(Map.of("LAKECTL_QUIET_STALE", "1"), "--version").err()).isEmpty();

        // The jar newer than every source: nothing but the answer.
        Files.setLastModifiedTime(source, FileTime.from(now.minusSeconds(1_200)));
        Files.setLastModifiedTime(source.getParent(), FileTime.from(now.minusSeconds(1_200)));
        Run fresh = lakectl(Map.of(), "--version");
        assertThat(fresh.exit()).isZero();
        assertThat(fresh.err()).isEmpty();
    }
}
