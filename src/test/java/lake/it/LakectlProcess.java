package lake.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bin/lakectl} run as a real process, as a user runs it, against the endpoints given. */
final class LakectlProcess {
    private LakectlProcess() {}

    /** What one run printed and how it exited. */
    record Run(int exit, byte[] out, String err) {
        String text() { return new String(out, StandardCharsets.UTF_8); }
        List<String> errLines() { return err.isEmpty() ? List.of() : List.of(err.split("\n")); }
    }

    static Path script() {
        return Path.of(System.getProperty("lake.home"), "bin", "lakectl");
    }

    /** A process builder for {@code lakectl args…} with {@code LAKECTL_ENDPOINTS} set and no token from the caller's environment. */
    static ProcessBuilder builder(String endpoints, Map<String, String> env, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(script().toString()));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("LAKECTL_TOKEN");
        pb.environment().put("LAKECTL_ENDPOINTS", endpoints);
        pb.environment().putAll(env);
        return pb;
    }

    /** Runs lakectl to its end, feeding {@code stdin} (may be null). */
    static Run run(String endpoints, Map<String, String> env, byte[] stdin, String... args) throws Exception {
        Path err = Files.createTempFile("lakectl-err", ".txt");
        try {
            Process p = builder(endpoints, env, List.of(args)).redirectError(err.toFile()).start();
            try (var in = p.getOutputStream()) {
                if (stdin != null) in.write(stdin);
            }
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("lakectl %s ends", List.of(args)).isTrue();
            return new Run(p.exitValue(), out, Files.readString(err).strip());
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** The run exited {@code exit} with exactly one stderr line, {@code lakectl: …} naming {@code named}. */
    static void failsWith(Run r, int exit, String named) {
        assertThat(r.exit()).as("exit of %s", r).isEqualTo(exit);
        assertThat(r.errLines()).as("one line on stderr").hasSize(1);
        assertThat(r.err()).startsWith("lakectl: ").contains(named);
    }
}
