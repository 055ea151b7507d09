package lake.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The data directory is checked (and the node id kept there) before Vert.x starts. */
class NodeIdsTest {
    @TempDir Path dir;

    private static Settings at(Path dataDir) {
        return ((SettingsLoader.Invocation.Run) SettingsLoader.load(new String[] {"--data-dir", dataDir.toString()}, Map.of())).settings();
    }

    @Test
    void unusableDataDirectoryIsAConfigErrorNamingDataDir() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        // The reason, then the path once: never "cannot create X: X".
        assertThatThrownBy(() -> NodeIds.resolve(at(file))).isInstanceOf(ConfigException.class)
                .hasMessage("data-dir: is a file, not a directory: " + file);
        assertThatThrownBy(() -> NodeIds.resolve(at(file.resolve("below")))).isInstanceOf(ConfigException.class)
                .hasMessage("data-dir: is a file, not a directory: " + file);
        // A node id that cannot be read (here: a directory in its place).
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.createDirectories(data.resolve("node-id"));
        assertThatThrownBy(() -> NodeIds.resolve(at(data))).isInstanceOf(ConfigException.class)
                .hasMessage("data-dir: is a directory, not a file: " + data.resolve("node-id"));
    }

    @Test
    void nodeIdIsGeneratedOnceAndKept() {
        Path data = dir.resolve("fresh");
        String id = NodeIds.resolve(at(data));
        assertThat(id).matches("node-[0-9a-f]{8}");
        assertThat(NodeIds.resolve(at(data))).isEqualTo(id);
    }
}
