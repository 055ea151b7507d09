package lake.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lakectl's command line as a user reads it, in process: each command's help lists only the
 * options that apply to it and describes its arguments, the man page is generated from the same
 * definitions (and the checked-in copy is that page), and file errors give the reason.
 */
class LakectlHelpTest {
    @TempDir Path dir;

    record Run(int exit, String out, String err) {}

    static Run lakectl(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Lakectl.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8).strip());
    }

    static List<CommandLine> everyCommand() {
        List<CommandLine> all = new ArrayList<>();
        collect(Lakectl.commandLine(new Lakectl(null, null, null, Map.of())), all);
        return all;
    }

    private static void collect(CommandLine c, List<CommandLine> all) {
        for (CommandLine sub : c.getSubcommands().values()) {
            all.add(sub);
            collect(sub, all);
        }
    }

    @Test
    void eachCommandListsOnlyTheOptionsThatApplyToIt() {
        Run get = lakectl("get", "--help");
        assertThat(get.exit()).isZero();
        assertThat(get.out()).contains("--endpoints", "--timeout", "--token-file", "--output", "--file", "--base64")
                .doesNotContain("--epoch", "--version", "-V");
        assertThat(lakectl("put", "--help").out()).contains("--epoch", "--endpoints");
        assertThat(lakectl("table", "commit", "--help").out()).contains("--epoch", "--expected-version");
        assertThat(lakectl("health", "--help").out()).contains("--endpoints").doesNotContain("--timeout", "--epoch");
        assertThat(lakectl("ls", "--help").out()).contains("--all", "--keys-only").doesNotContain("--epoch", "--file");
        assertThat(lakectl("generate-completion", "--help").out()).doesNotContain("--endpoints", "--timeout");
        assertThat(lakectl("man", "--help").out()).doesNotContain("--endpoints");
        assertThat(lakectl("--help").out()).as("the root lists every shared option")
                .contains("--endpoints", "--epoch", "--timeout", "--version");
        for (CommandLine c : everyCommand()) {
            CommandSpec spec = c.getCommandSpec();
            for (OptionSpec o : spec.options()) {
                assertThat(o.versionHelp()).as("%s %s", spec.qualifiedName(), o.longestName()).isFalse();
                if (o.longestName().equals("--epoch")) assertThat(spec.userObject()).as(spec.qualifiedName()).isInstanceOf(Base.Writes.class);
            }
        }
    }

    @Test
    void everyPositionalArgumentAndOptionIsDescribed() {
        for (CommandLine c : everyCommand()) {
            for (PositionalParamSpec p : c.getCommandSpec().positionalParameters()) {
                assertThat(String.join(" ", p.description())).as("%s %s", c.getCommandSpec().qualifiedName(), p.paramLabel()).isNotBlank();
            }
            for (OptionSpec o : c.getCommandSpec().options()) {
                assertThat(String.join(" ", o.description())).as("%s %s", c.getCommandSpec().qualifiedName(), o.longestName()).isNotBlank();
            }
        }
        assertThat(lakectl("cas", "--help").out()).contains("EXPECTED", "The exact value KEY must hold now");
    }

    /** The shared options work before or after the command: both runs name the address they could not reach. */
    @Test
    void sharedOptionsGoBeforeOrAfterTheCommand() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String at = "http://127.0.0.1:" + closed;
        for (Run r : List.of(lakectl("--endpoints", at, "get", "k"), lakectl("get", "k", "--endpoints", at),
                lakectl("put", "k", "v", "--endpoints", at, "--epoch", "3"))) {
            assertThat(r.exit()).as(r.toString()).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(r.err()).contains("connection refused", "127.0.0.1:" + closed);
        }
        Run epochOnARead = lakectl("get", "k", "--epoch", "3", "--endpoints", at);
        assertThat(epochOnARead.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(epochOnARead.err()).contains("Unknown options: '--epoch'");
    }

    /** docs/lakectl.1 is what {@code lakectl man} prints; regenerate with {@code bin/lakectl man > docs/lakectl.1}. */
    @Test
    void theCheckedInManPageIsTheGeneratedOne() throws Exception {
        Run man = lakectl("man");
        assertThat(man.exit()).isZero();
        assertThat(man.out()).startsWith(".\\\"").contains(".TH LAKECTL 1", ".SH COMMANDS", ".SS \"lakectl table get NS NAME\"",
                "\\fB\\-\\-all\\fR", ".SH EXIT STATUS");
        for (CommandLine c : everyCommand()) {
            assertThat(man.out()).as("a section for %s", c.getCommandSpec().qualifiedName())
                    .contains(".SS \"" + ManPage.text(c.getCommandSpec().qualifiedName()));
        }
        assertThat(Files.readString(Path.of("docs", "lakectl.1")))
                .as("docs/lakectl.1 is stale: regenerate it with bin/lakectl man > docs/lakectl.1").isEqualTo(man.out());
    }

    @Test
    void fileErrorsGiveTheReasonAndThePathOnce() throws Exception {
        Path missing = dir.resolve("missing");
        Path aFile = Files.writeString(dir.resolve("a-file"), "x");
        String endpoints = "--endpoints=http://127.0.0.1:1";
        assertThat(lakectl(endpoints, "--token-file", missing.toString(), "get", "k").err())
                .isEqualTo("lakectl: invalid_argument: --token-file: no such file: " + missing);
        assertThat(lakectl(endpoints, "--token-file", dir.toString(), "get", "k").err())
                .isEqualTo("lakectl: invalid_argument: --token-file: is a directory, not a file: " + dir);
        assertThat(lakectl(endpoints, "put", "k", "--file", missing.toString()).err())
                .isEqualTo("lakectl: invalid_argument: --file: no such file: " + missing);
        assertThat(lakectl(endpoints, "put", "k", "--file", aFile.resolve("below").toString()).err())
                .isEqualTo("lakectl: invalid_argument: --file: is a file, not a directory: " + aFile);
        assertThat(lakectl(endpoints, "txn", missing.toString()).err())
                .isEqualTo("lakectl: invalid_argument: FILE: no such file: " + missing);
        Run notAnInt = lakectl(endpoints, "ls", "--page-size", "ten");
        assertThat(notAnInt.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(notAnInt.err()).contains("--page-size").contains("must be an int, got 'ten'");
    }
}
