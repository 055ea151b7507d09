package lake.console;

import lake.node.MetasrvNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regenerates docs/console.png: the console of a node with data and some traffic. Runs only when
 * asked ({@code scripts/console-screenshot}, which sets {@code lake.console.screenshot} to the path).
 */
@EnabledIfSystemProperty(named = "lake.console.screenshot", matches = ".+")
class ConsoleScreenshot {
    @TempDir Path dir;

    @Test
    void screenshotOfANodeWithData() throws Exception {
        Path out = Path.of(System.getProperty("lake.console.screenshot"));
        try (ConsoleNodes nodes = new ConsoleNodes(); ConsoleBrowser browser = ConsoleBrowser.open()) {
            MetasrvNode a = nodes.leader(ConsoleNodes.settings("node-a", dir), dir);
            nodes.sampleData(a, null);
            browser.go(a.httpPort(), "");
            browser.rowOf("ops", c -> c.get(0).equals("cas"));
            // Traffic between two reads of the meters, so the charts have something to show.
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 25; i++) nodes.get(a, "/v1/kv/tables/robots", null);
                String before = browser.driver.findElement(org.openqa.selenium.By.id("updated")).getText();
                browser.textOf("updated", t -> !t.equals(before));
            }
            browser.textOf("rate-now", t -> !t.equals("—"));
            browser.screenshot(out);
        }
        assertThat(Files.size(out)).isPositive();
    }
}
