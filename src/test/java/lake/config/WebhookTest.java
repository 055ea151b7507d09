package lake.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The webhooks file is read strictly: every refusal names the entry and what is wrong. */
class WebhookTest {
    @TempDir Path dir;

    List<Webhook> load(String json) throws Exception {
        Path f = dir.resolve("hooks.json");
        Files.writeString(f, json);
        return Webhook.load(f);
    }

    @Test
    void webhooksFileIsReadStrictly() throws Exception {
        List<Webhook> hooks = load("[{\"name\":\"ci\",\"url\":\"https://ci.example/hook\"},{\"name\":\"kv-1\",\"url\":\"http://h:8/x\",\"prefix\":\"tables/\"}]");
        assertThat(hooks).extracting(Webhook::name).containsExactly("ci", "kv-1");
        assertThat(hooks.get(0).prefix()).isNull();
        assertThat(hooks.get(1).prefix()).isEqualTo("tables/");
        assertThatThrownBy(() -> load("{}")).hasMessageContaining("not a JSON array");
        assertThatThrownBy(() -> load("[{\"name\":\"Bad_Name\",\"url\":\"http://h/\"}]")).hasMessageContaining("webhook name 'Bad_Name'");
        assertThatThrownBy(() -> load("[{\"name\":\"ci\",\"url\":\"ftp://h/?token=s3cret\"}]")).hasMessageContaining("absolute http or https URL")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> load("[{\"name\":\"ci\",\"url\":\"https://u:p@h/\"}]")).hasMessageContaining("must not carry credentials");
        assertThatThrownBy(() -> load("[{\"name\":\"ci\"}]")).hasMessageContaining("'url' (a string) is required");
        assertThatThrownBy(() -> load("[{\"name\":7,\"url\":\"http://h/\"}]")).hasMessageContaining("'name' (a string) is required");
        assertThatThrownBy(() -> load("[{\"name\":\"ci\",\"url\":\"http://h/\",\"secret\":\"x\"}]")).hasMessageContaining("unknown field 'secret'");
        assertThatThrownBy(() -> load("[{\"name\":\"ci\",\"url\":\"http://h/\"},{\"name\":\"ci\",\"url\":\"http://g/\"}]"))
                .hasMessageContaining("named twice");
        assertThatThrownBy(() -> Webhook.load(dir.resolve("absent.json"))).hasMessageContaining("webhooks-file");
    }
}
