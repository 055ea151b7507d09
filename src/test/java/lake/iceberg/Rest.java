package lake.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/** Plain HTTP to a node's {@code /iceberg} (the JDK's client, blocking on the test thread). */
final class Rest {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private Rest() {}

    static HttpResponse<String> call(int port, String method, String path, String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/iceberg" + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(int port, String path) throws Exception {
        return call(port, "GET", path, null, Map.of());
    }

    static HttpResponse<String> post(int port, String path, String body) throws Exception {
        return call(port, "POST", path, body, Map.of());
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    /** Creates namespace {@code ns} and, in it, table {@code t} (format v2, one long column); returns the load response. */
    static JsonNode createTable(int port, String ns, String t) throws Exception {
        post(port, "/v1/namespaces", "{\"namespace\":[\"" + ns + "\"]}");
        HttpResponse<String> r = post(port, "/v1/namespaces/" + ns + "/tables", "{\"name\":\"" + t + "\",\"schema\":{\"type\":\"struct\","
                + "\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]},"
                + "\"properties\":{\"format-version\":\"2\"}}");
        if (r.statusCode() != 200) throw new AssertionError("create " + ns + "." + t + ": " + r.statusCode() + " " + r.body());
        return json(r);
    }

    /** A commit body that sets table property {@code k} to {@code v}. */
    static String setProperty(String k, String v) {
        return "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"" + k + "\":\"" + v + "\"}}]}";
    }

    /** A commit body adding snapshot {@code id} (sequence number {@code seq}) to an empty main branch. */
    static String addFirstSnapshot(long id, String manifestList) {
        return "{\"requirements\":[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":null}],\"updates\":["
                + "{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":" + id + ",\"sequence-number\":1,\"timestamp-ms\":1700000000000,"
                + "\"manifest-list\":\"" + manifestList + "\",\"summary\":{\"operation\":\"append\"},\"schema-id\":0}},"
                + "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\",\"snapshot-id\":" + id + "}]}";
    }
}
