package lake.ingress;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.bus.Bus;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import lake.protocol.Ops;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP and bus ingresses share one path per operation: the same request, refused or served,
 * gets the same answer from both, because both hand it to the same {@code NodeApi}, which
 * decodes, authorizes and executes it. (Only how a request is framed differs: a route and its
 * path parameters over HTTP, an address and a body on the bus.)
 */
class OnePathTest {
    @TempDir Path dir;
    NodeHarness h;
    MetasrvNode node;

    /** One operation as each ingress frames it: the HTTP method, path and body, the bus address and body. */
    private record Framed(String name, HttpMethod method, String path, JsonObject httpBody, String address, JsonObject busBody) {}

    @BeforeEach
    void leader() throws Exception {
        h = new NodeHarness();
        node = h.publicLeader(NodeHarness.settings("a", dir, 10_000, 0, 1_000));
        h.post(node, "/v1/namespaces", new JsonObject().put("namespace", "robots")).bodyAsJsonObject();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void bothIngressesRefuseMalformedBodiesAlike() throws Exception {
        List<String> differ = new ArrayList<>();
        for (Framed f : List.of(
                kv("cas", "/v1/kv/cas", Bus.KV_CAS, new JsonObject().put("key", "k").put("value", "djE=").put("bogus", 1)),
                kv("cas wrong type", "/v1/kv/cas", Bus.KV_CAS, new JsonObject().put("key", 7).put("value", "djE=")),
                kv("cas bad base64", "/v1/kv/cas", Bus.KV_CAS, new JsonObject().put("key", "k").put("value", "djE")),
                kv("delete", "/v1/kv/delete", Bus.KV_DELETE, new JsonObject().put("key", "k")),
                kv("txn", "/v1/txn", Bus.KV_TXN, new JsonObject().put("ops", new JsonArray())),
                kv("txn op", "/v1/txn", Bus.KV_TXN, new JsonObject().put("ops", new JsonArray().add(new JsonObject().put("key", "")))),
                new Framed("create-namespace", HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", "x").put("owner", "me"),
                        Ops.catalogAddress(Ops.CREATE_NAMESPACE), new JsonObject().put("namespace", "x").put("owner", "me")),
                new Framed("create-table", HttpMethod.POST, "/v1/namespaces/robots/tables", new JsonObject().put("name", "t").put("columns", "id:i64"),
                        Ops.catalogAddress(Ops.CREATE_TABLE),
                        new JsonObject().put("namespace", "robots").put("name", "t").put("columns", "id:i64")),
                new Framed("commit-version", HttpMethod.POST, "/v1/namespaces/robots/tables/t/versions", new JsonObject().put("version", 1),
                        Ops.catalogAddress(Ops.COMMIT_VERSION),
                        new JsonObject().put("namespace", "robots").put("name", "t").put("version", 1)))) {
            JsonObject viaHttp = http(f);
            JsonObject viaBus = bus(f);
            assertThat(viaHttp.getJsonObject("error")).as(f.name() + " over HTTP is refused").isNotNull();
            if (!viaHttp.equals(viaBus)) differ.add(f.name() + ": HTTP " + viaHttp.encode() + ", bus " + viaBus.encode());
        }
        assertThat(differ).as("requests the two ingresses answer differently").isEmpty();
    }

    @Test
    void bothIngressesServeAValidWriteAlike() throws Exception {
        JsonObject created = h.post(node, "/v1/kv/cas", new JsonObject().put("key", "h").put("expected", (Object) null).put("value", "djE="))
                .bodyAsJsonObject();
        JsonObject viaBus = NodeHarness.await(h.vertx.eventBus().<JsonObject>request(Bus.KV_CAS,
                new JsonObject().put("key", "b").put("expected", (Object) null).put("value", "djE="))).body();

        // The same reply but for the revision, which is the next one.
        assertThat(viaBus.getLong("revision")).isEqualTo(created.getLong("revision") + 1);
        viaBus.remove("revision");
        created.remove("revision");
        assertThat(viaBus).isEqualTo(created);
        assertThat(NodeHarness.await(h.vertx.eventBus().<JsonObject>request(Bus.KV_GET, new JsonObject().put("key", "h"))).body()
                .getString("value")).isEqualTo("djE=");
        assertThat(h.get(node, "/v1/kv/b").bodyAsJsonObject().getString("value")).isEqualTo("djE=");
    }

    /**
     * Every operation the bus offers (every name in {@link Ops} but {@code iceberg}, which has its
     * own HTTP face, and {@code ready}, which is HTTP's alone) reaches the one strict decoder: a
     * member it does not know is refused, named, before anything is read or written.
     */
    @Test
    void everyOperationOnTheBusReachesTheStrictDecoder() throws Exception {
        Map<String, String> addresses = new LinkedHashMap<>();
        addresses.put(Ops.GET, Bus.KV_GET);
        addresses.put(Ops.SCAN, Bus.KV_SCAN);
        addresses.put(Ops.CAS, Bus.KV_CAS);
        addresses.put(Ops.DELETE, Bus.KV_DELETE);
        addresses.put(Ops.TXN, Bus.KV_TXN);
        addresses.put(Ops.LEADER, Bus.LEADER);
        addresses.put(Ops.RESIGN, Bus.LEADER_RESIGN);
        addresses.put(Ops.CLUSTER, Bus.CLUSTER);
        for (String op : Ops.CATALOG) addresses.put(op, Ops.catalogAddress(op));
        List<String> notRefused = new ArrayList<>();
        for (Map.Entry<String, String> e : addresses.entrySet()) {
            JsonObject answer = bus(new Framed(e.getKey(), null, null, null, e.getValue(), new JsonObject().put("bogus", 1)));
            JsonObject error = answer.getJsonObject("error");
            if (answer.getInteger("status") != 400 || error == null || !"invalid_argument".equals(error.getString("code"))
                    || !error.getString("message").contains("bogus")) {
                notRefused.add(e.getKey() + ": " + answer.encode());
            }
        }
        assertThat(addresses).as("every operation but iceberg has a bus address").hasSize(Ops.CATALOG.size() + 8);
        assertThat(notRefused).as("operations whose unknown member was not refused by the decoder").isEmpty();
    }

    private static Framed kv(String name, String path, String address, JsonObject body) {
        return new Framed(name, HttpMethod.POST, path, body, address, body);
    }

    /** The status and error envelope an HTTP request gets, as {@code {"status","error"}}. */
    private JsonObject http(Framed f) throws Exception {
        HttpResponse<Buffer> r = h.send(node, f.method(), f.path(), f.httpBody().encode());
        return new JsonObject().put("status", r.statusCode()).put("error", r.bodyAsJsonObject().getJsonObject("error"));
    }

    /** The failure code and error envelope the bus request gets, as {@code {"status","error"}}. */
    private JsonObject bus(Framed f) throws Exception {
        try {
            NodeHarness.await(h.vertx.eventBus().request(f.address(), f.busBody()));
            return new JsonObject().put("status", 200);
        } catch (ReplyException re) {
            return new JsonObject().put("status", re.failureCode()).put("error", new JsonObject(re.getMessage()).getJsonObject("error"));
        }
    }
}
