package lake.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds {@code N} idle SSE watchers open on a node (scripts/bench/watchers measures the node's
 * heap with and without them); writes {@code /tmp/idle-watchers-<pid>.open} once all are open,
 * then waits to be killed. Usage: {@code IdleWatchers PORT N}.
 */
public final class IdleWatchers {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int n = Integer.parseInt(args[1]);
        Vertx vertx = Vertx.vertx();
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(n + 8));
        CountDownLatch open = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            client.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port)
                            .setURI("/v1/watch?prefix=idle/" + i + "/").putHeader("Accept", "text/event-stream"))
                    .compose(req -> req.send()).onSuccess(res -> {
                        res.handler(chunk -> {});
                        open.countDown();
                    }).onFailure(t -> System.err.println("watch failed: " + t));
        }
        if (!open.await(300, TimeUnit.SECONDS)) throw new IllegalStateException((n - open.getCount()) + " of " + n + " opened");
        Files.writeString(Path.of("/tmp/idle-watchers-" + ProcessHandle.current().pid() + ".open"), "");
        // Held until the benchmark kills this process.
        new CountDownLatch(1).await();
    }
}
