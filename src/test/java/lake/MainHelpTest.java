package lake;

import io.vertx.core.json.JsonObject;
import lake.config.Option;
import lake.config.SettingsLoader;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The server's {@code --help}: how to run a node and lakectl, and every option with its built-in default. */
class MainHelpTest {
    @Test
    void serverHelpShowsDefaultsAndTheCtlSubcommand() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(Main.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        assertThat(help).contains("java -jar lake-metasrv.jar ctl COMMAND", "'ctl --help' lists its commands");
        JsonObject defaults;
        try (InputStream in = SettingsLoader.class.getResourceAsStream(SettingsLoader.DEFAULTS_RESOURCE)) {
            defaults = new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        List<String> lines = help.lines().toList();
        for (Option o : SettingsLoader.OPTIONS) {
            String line = lines.stream().filter(l -> l.startsWith("  " + o.flag() + " ")).findFirst().orElseThrow();
            assertThat(line).as(o.name()).contains(o.envVar());
            Object d = defaults.getValue(o.fileKey());
            if (d == null) continue;
            String shown = d.toString().isEmpty() || d.toString().equals("[]") ? "none" : d.toString();
            assertThat(line).as("the default of %s", o.name()).endsWith("; default: " + shown);
        }
        assertThat(help).contains("--http-port N", "default: 8080", "--data-dir PATH", "default: ./data", "--cluster [true|false]");
    }
}
