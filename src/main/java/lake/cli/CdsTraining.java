package lake.cli;

import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The training run for lakectl's class-data-sharing archive ({@code bin/lakectl}): runs the common
 * commands against a throw-away in-process HTTP server that answers like Metasrv, so every class
 * a real {@code lakectl get} loads (picocli, the client, the JDK's HTTP client, JSON) lands in
 * the archive. Touches no real server and no file.
 */
public final class CdsTraining {
    private CdsTraining() {}

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            exchange.getRequestBody().readAllBytes();
            String body;
            int status = 200;
            if (path.startsWith("/v1/kv/missing")) {
                status = 404;
                body = "{\"error\":{\"code\":\"not_found\",\"message\":\"key 'missing' not found\"}}";
            } else if (path.startsWith("/v1/kv/")) {
                body = path.equals("/v1/kv/cas") || path.equals("/v1/kv/delete") ? "{\"applied\":true,\"epoch\":1}"
                        : "{\"key\":\"k\",\"value\":\"dg==\"}";
            } else if (path.equals("/v1/kv")) {
                body = "{\"entries\":[{\"key\":\"k\",\"value\":\"dg==\"}],\"continuation\":null}";
            } else if (path.equals("/v1/txn")) {
                body = "{\"applied\":true,\"epoch\":1}";
            } else {
                body = "{\"node_id\":\"n\",\"role\":\"leader\",\"leader\":\"n\",\"epoch\":1,\"expires_at_ms\":1,\"members\":[]}";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
        String endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        Map<String, String> env = Map.of("LAKECTL_ENDPOINTS", endpoint);
        String[][] runs = {{"get", "k"}, {"get", "missing"}, {"-o", "json", "get", "k"}, {"put", "k", "v"}, {"create", "k", "v"},
                {"cas", "k", "v", "w"}, {"del", "k", "--expected", "v"}, {"ls", "k"}, {"leader"}, {"cluster"}, {"get", "--help"}};
        for (String[] run : runs) Lakectl.run(run, new ByteArrayInputStream(new byte[0]), sink, sink, env);
        server.stop(0);
    }
}
