package lake.ingress;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.config.Settings;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.FaultyStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.expectError;
import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP ingress bounds every request by its own timeout, whatever the layers below wait for. */
class RequestTimeoutTest {
    @TempDir Path dir;
    NodeHarness h;

    @AfterEach
    void stop() throws Exception {
        if (h != null) h.close();
    }

    @Test
    void requestUnansweredWithinTheRequestTimeoutIsOutcomeUnknown() throws Exception {
        h = new NodeHarness();
        // The store would wait 60 s for its reply; the HTTP request timeout is 400 ms.
        Settings s = new Settings("a", "127.0.0.1", 0, dir, Settings.StoreType.ROCKS, true, null, "us-east-1",
                "unused", false, "election/leader", 10_000, 0, 1_000, 400, 60_000);
        FaultyStore[] faulty = new FaultyStore[1];
        MetasrvNode node = h.deploy(s, new ManualClock(1_700_000_000_000L),
                v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))).map(r -> faulty[0] = new FaultyStore(r)));
        assertThat(h.campaign(node).isLeader()).isTrue();

        faulty[0].answerNothing.set(true);
        long start = System.nanoTime();
        HttpResponse<Buffer> lost = h.post(node, "/v1/kv/cas",
                new JsonObject().put("key", "kv/slow").putNull("expected").put("value", b64("v")));
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        expectError(lost, 504, "outcome_unknown", "request timeout");
        assertThat(tookMs).as("answered by the request timeout, not the store's").isBetween(400L, 10_000L);
        faulty[0].answerNothing.set(false);
        // Unknown, not refused: the write did apply.
        assertThat(h.get(node, "/v1/kv/kv/slow").bodyAsJsonObject().getString("value")).isEqualTo(b64("v"));
    }
}
