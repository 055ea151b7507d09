package lake.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.bus.Bus;
import lake.node.NodeHarness;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static lake.node.ApiFixture.b64;
import static lake.node.ApiFixture.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * {@code POST /v1/txn} and {@code lake.v1.kv.txn} on one leader: every malformed transaction is
 * refused naming the operation and what is wrong, before any store call; the bus address and the
 * metrics serve transactions like every other write.
 */
abstract class TransactionApiTest extends RecordedLeaderTest {
    private static JsonObject op(String key) {
        return new JsonObject().put("key", key);
    }

    private static JsonObject txn(JsonObject... ops) {
        JsonArray a = new JsonArray();
        for (JsonObject o : ops) a.add(o);
        return new JsonObject().put("ops", a);
    }

    private record Refusal(String why, JsonObject body, int status, String messagePart) {}

    @Test
    void transactionRefusesInvalidShapesBeforeTheStore() throws Exception {
        JsonObject create = op("kv/a").putNull("expected").put("value", b64("v"));
        List<JsonObject> tooMany = new ArrayList<>();
        for (int i = 0; i < 99; i++) tooMany.add(op("kv/many/" + i).put("value", b64("v")));
        List<JsonObject> justOver = new ArrayList<>();
        for (int i = 0; i < 15; i++) justOver.add(op("kv/near/" + i).put("value", Base64.getEncoder().encodeToString(new byte[256 * 1024])));
        justOver.add(op("kv/near/last").put("value", Base64.getEncoder().encodeToString(new byte[250_000])));
        List<JsonObject> oversized = new ArrayList<>();
        String big = Base64.getEncoder().encodeToString(new byte[256 * 1024]);
        for (int i = 0; i < 17; i++) oversized.add(op("kv/big/" + i).put("value", big));
        List<Refusal> refusals = List.of(
                new Refusal("duplicate key", txn(create, op("kv/b").put("value", b64("v")), op("kv/a").put("delete", true)), 400, "kv/a"),
                new Refusal("unknown field in an operation", txn(create, op("kv/b").put("value", b64("v")).put("ttl", 5)), 400,
                        "ops[1]: unknown field 'ttl'"),
                new Refusal("unknown top-level field", txn(create).put("guard", "x"), 400, "unknown field 'guard'"),
                new Refusal("both value and delete", txn(op("kv/a").put("value", b64("v")).put("delete", true)), 400,
                        "ops[0]: both 'value' and 'delete'"),
                new Refusal("expected with exists", txn(op("kv/a").putNull("expected").put("exists", true).put("value", b64("v"))), 400,
                        "ops[0]: both 'expected' and 'exists'"),
                new Refusal("check without a condition", txn(create, op("kv/b")), 400, "ops[1]: a check (no 'value', no 'delete') needs a condition"),
                new Refusal("bad base64", txn(op("kv/a").put("value", "eB==")), 400, "ops[0]: field 'value' is not canonical base64"),
                new Refusal("unpadded base64 in expected", txn(op("kv/a").put("expected", "eA").put("delete", true)), 400,
                        "ops[0]: field 'expected' is not padded base64"),
                new Refusal("no operations", txn(), 400, "has 0 operations; a transaction has 1 to 98"),
                new Refusal("99 operations", txn(tooMany.toArray(JsonObject[]::new)), 400, "has 99 operations"),
                new Refusal("the lease key", txn(create, op("election/leader").put("exists", true)), 400, "ops[1]: key 'election/leader' is the lease record"),
                new Refusal("exists false", txn(op("kv/a").put("exists", false).put("value", b64("v"))), 400,
                        "ops[0]: field 'exists' must be true"),
                new Refusal("delete false", txn(op("kv/a").put("exists", true).put("delete", false)), 400, "ops[0]: field 'delete' must be true"),
                new Refusal("ops not an array", new JsonObject().put("ops", create), 400, "field 'ops' must be an array, got an object"),
                new Refusal("an operation that is not an object", new JsonObject().put("ops", new JsonArray().add("kv/a")), 400,
                        "ops[0]: an operation must be an object, got a string"),
                new Refusal("missing ops", new JsonObject().put("epoch", 1), 400, "missing field 'ops'"),
                new Refusal("an empty key", txn(op("").put("value", b64("v"))), 400, "ops[0]: field 'key'"),
                new Refusal("epoch null", txn(create).putNull("epoch"), 400, "field 'epoch' must be an unsigned integer"),
                new Refusal("more than 4 MiB of keys and values", txn(oversized.toArray(JsonObject[]::new)), 400, "4194304"),
                new Refusal("under 4 MiB, over the client's share", txn(justOver.toArray(JsonObject[]::new)), 400, "at most 1572864"),
                new Refusal("a value over 256 KiB", txn(op("kv/a").put("value",
                        Base64.getEncoder().encodeToString(new byte[256 * 1024 + 1]))), 413, "ops[0]: field 'value'"));
        for (Refusal r : refusals) {
            int before = store.calls();
            HttpResponse<Buffer> http = h.post(node, "/v1/txn", r.body());
            try {
                expectError(http, r.status(), r.status() == 400 ? "invalid_argument" : "payload_too_large", r.messagePart());
            } catch (AssertionError e) {
                throw new AssertionError("HTTP '" + r.why() + "': " + e.getMessage(), e);
            }
            try {
                NodeHarness.await(h.vertx.eventBus().request(Bus.KV_TXN, r.body()));
                fail("bus '" + r.why() + "' was served");
            } catch (ReplyException e) {
                assertThat(e.failureCode()).as("bus '%s': %s", r.why(), e.getMessage()).isEqualTo(r.status());
                assertThat(new JsonObject(e.getMessage()).getJsonObject("error").getString("message")).as(r.why()).contains(r.messagePart());
            }
            assertThat(store.calls()).as("'%s' reached the store", r.why()).isEqualTo(before);
        }
        expectError(h.send(node, HttpMethod.POST, "/v1/txn", "{\"ops\":[{\"key\":\"a\",\"key\":\"b\",\"value\":\"eA==\"}]}"),
                400, "invalid_argument", "'ops[0].key' appears more than once");
        assertThat(store.transactions).as("no malformed transaction was sent").isEmpty();

        // Within the operation and byte limits, but its change record needs more items than are left.
        List<JsonObject> wide = new ArrayList<>();
        String fifteenK = Base64.getEncoder().encodeToString(new byte[15_000]);
        for (int i = 0; i < 98; i++) wide.add(op("kv/wide/" + i).put("value", fifteenK));
        expectError(h.post(node, "/v1/txn", txn(wide.toArray(JsonObject[]::new))), 400, "invalid_argument", "change record's 8 item(s)");
        assertThat(store.transactions).as("refused before the store").isEmpty();
    }

    @Test
    void busClientsSendTransactionsAndSeeTheEpoch() throws Exception {
        JsonObject body = txn(op("kv/bus/a").putNull("expected").put("value", b64("a")),
                op("kv/bus/b").put("value", b64("b")));
        Message<JsonObject> applied = NodeHarness.await(h.vertx.eventBus().request(Bus.KV_TXN, body,
                new DeliveryOptions().addHeader(Bus.EPOCH_HEADER, "1")));
        assertThat(applied.body()).isEqualTo(new JsonObject().put("applied", true).put("epoch", 1).put("revision", 1));
        assertThat(applied.headers().get(Bus.EPOCH_HEADER)).isEqualTo("1");

        Message<JsonObject> refused = NodeHarness.await(h.vertx.eventBus().request(Bus.KV_TXN,
                txn(op("kv/bus/c").put("value", b64("c")), op("kv/bus/a").putNull("expected").put("value", b64("again")),
                        op("kv/bus/b").put("expected", b64("b")).put("delete", true), op("kv/bus/none").put("exists", true))));
        assertThat(refused.body()).isEqualTo(new JsonObject().put("applied", false).put("failed", new JsonArray().add(1).add(3)).put("epoch", 1));
        assertThat(h.get(node, "/v1/kv/kv/bus/c").statusCode()).as("nothing of a refused transaction is written").isEqualTo(404);
        assertThat(h.get(node, "/v1/kv/kv/bus/b").bodyAsJsonObject().getString("value")).isEqualTo(b64("b"));

        try {
            NodeHarness.await(h.vertx.eventBus().request(Bus.KV_TXN, body, new DeliveryOptions().addHeader(Bus.EPOCH_HEADER, "7")));
            fail("a transaction under another epoch was served");
        } catch (ReplyException e) {
            assertThat(e.failureCode()).isEqualTo(409);
            assertThat(e.getMessage()).contains("epoch_mismatch");
        }

        String metrics = h.get(node, "/metrics").bodyAsString();
        assertThat(metrics).contains("lake_requests_seconds_count{node=\"a\",op=\"txn\",outcome=\"applied\"} 1\n");
        assertThat(metrics).contains("lake_requests_seconds_count{node=\"a\",op=\"txn\",outcome=\"not_applied\"} 1\n");
        assertThat(metrics).contains("lake_requests_seconds_count{node=\"a\",op=\"txn\",outcome=\"epoch_mismatch\"} 1\n");
    }
}
