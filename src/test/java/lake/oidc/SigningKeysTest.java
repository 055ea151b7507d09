package lake.oidc;

import com.sun.net.httpserver.HttpServer;
import io.vertx.core.Vertx;
import lake.config.access.OidcSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fetch of the provider's keys is bounded as a whole: a provider that trickles bytes is cut off
 * after the time bound, one that sends too much is cut off past the size bound — in both cases
 * the waiters get the keys at hand (none), not a hang, and no more is read.
 */
class SigningKeysTest {
    final Vertx vertx = Vertx.vertx();
    final java.util.concurrent.ScheduledExecutorService pacer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) server.stop(0);
        pacer.shutdownNow();
        vertx.close();
    }

    /** A JWK set server whose body is {@code total} bytes of whitespace, one {@code chunk} every {@code pauseMs} (every microsecond with 0). */
    URI serve(long total, int chunk, long pauseMs, AtomicLong written, CompletableFuture<Throwable> cutOff) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/jwks", x -> {
            x.sendResponseHeaders(200, 0); // chunked
            byte[] bytes = " ".repeat(chunk).getBytes(StandardCharsets.US_ASCII);
            OutputStream out = x.getResponseBody();
            // One chunk per tick (every pauseMs; back to back with 0), at most `total` bytes whatever the client does.
            CompletableFuture<Void> done = new CompletableFuture<>();
            Runnable write = () -> {
                try {
                    out.write(bytes);
                    out.flush();
                    if (written.addAndGet(bytes.length) >= total) done.complete(null);
                } catch (IOException e) {
                    done.completeExceptionally(e);
                }
            };
            long periodNanos = pauseMs > 0 ? TimeUnit.MILLISECONDS.toNanos(pauseMs) : 1_000;
            java.util.concurrent.ScheduledFuture<?> ticks = pacer.scheduleAtFixedRate(write, 0, periodNanos, TimeUnit.NANOSECONDS);
            done.whenComplete((v, t) -> {
                ticks.cancel(false);
                cutOff.complete(t);
                try {
                    out.close();
                } catch (IOException ignored) {
                    // the client reset the exchange: what the test looks for, already recorded
                }
            });
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks");
    }

    static OidcSettings settings(URI jwks) {
        return new OidcSettings("http://127.0.0.1", "lake-metasrv", jwks, "sub", "roles", "lake-admin", "lake-write", "lake-read",
                60_000, 300_000, 0);
    }

    @Test
    void aTricklingProviderIsCutOffAfterTheTimeBound() throws Exception {
        AtomicLong written = new AtomicLong();
        CompletableFuture<Throwable> cutOff = new CompletableFuture<>();
        // One byte every 50 ms: never idle for long, and 600 s to send it all.
        SigningKeys keys = new SigningKeys(vertx, settings(serve(12_000, 1, 50, written, cutOff)), System::currentTimeMillis, 1_000, 512 * 1024);
        SigningKeys.Snapshot got = keys.current().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(got.keys().getKeys()).as("the keys at hand: none").isEmpty();
        assertThat(cutOff.get(30, TimeUnit.SECONDS)).as("the server saw the request reset before it finished").isInstanceOf(IOException.class);
        assertThat(written.get()).isLessThan(12_000);
        keys.close();
    }

    @Test
    void theDeadlineCoversConnectingAndTheHandshake() throws Exception {
        // An https key URL whose server accepts the connection and never speaks TLS.
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                List<java.net.Socket> held = new java.util.ArrayList<>();
                try {
                    while (true) held.add(silent.accept());
                } catch (IOException closed) {
                    held.forEach(x -> { try { x.close(); } catch (IOException ignored) { } });
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            SigningKeys keys = new SigningKeys(vertx, settings(URI.create("https://127.0.0.1:" + silent.getLocalPort() + "/jwks")),
                    System::currentTimeMillis, 1_000, 512 * 1024, 30_000);
            // Settles at the 1 s deadline; without it, only the TLS handshake's own 30 s bound would end it.
            SigningKeys.Snapshot got = keys.current().toCompletionStage().toCompletableFuture().get(8, TimeUnit.SECONDS);
            assertThat(got.keys().getKeys()).isEmpty();
            keys.close();
        }
    }

    @Test
    void aProviderThatFailsRefreshesIsAskedNoMoreOftenThanTheFloor() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        byte[] jwks = new com.nimbusds.jose.jwk.JWKSet(TestIdp.foreignKey("k1").toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/jwks", x -> {
            asked.incrementAndGet();
            if (down.get()) {
                x.sendResponseHeaders(503, -1);
            } else {
                x.sendResponseHeaders(200, jwks.length);
                x.getResponseBody().write(jwks);
            }
            x.close();
        });
        server.start();
        AtomicLong clock = new AtomicLong(1_000_000);
        URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks");
        SigningKeys keys = new SigningKeys(vertx, new OidcSettings("http://127.0.0.1", "lake-metasrv", url, "sub", "roles", "lake-admin",
                "lake-write", "lake-read", 60_000, 300_000, 60_000), clock::get, 5_000, 512 * 1024);
        assertThat(keys.current().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).keys().getKeys()).hasSize(1);
        down.set(true);
        clock.addAndGet(300_000); // the keys are due for their refresh; the provider is down
        for (int i = 0; i < 50; i++) {
            SigningKeys.Snapshot now = keys.current().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(now.keys().getKeys()).as("the keys at hand keep verifying").hasSize(1);
            keys.lookFor("k1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS); // joins a refresh in flight
        }
        assertThat(asked.get()).as("the start, and one failed refresh within the floor").isEqualTo(2);
        clock.addAndGet(60_000);
        keys.current();
        keys.lookFor("k1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(asked.get()).as("after the floor, one more").isEqualTo(3);
        keys.close();
    }

    @Test
    void anOversizedKeySetIsCutOffPastTheSizeBound() throws Exception {
        AtomicLong written = new AtomicLong();
        CompletableFuture<Throwable> cutOff = new CompletableFuture<>();
        long total = 64L * 1024 * 1024;
        SigningKeys keys = new SigningKeys(vertx, settings(serve(total, 64 * 1024, 0, written, cutOff)), System::currentTimeMillis, 30_000, 512 * 1024);
        SigningKeys.Snapshot got = keys.current().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(got.keys().getKeys()).isEmpty();
        assertThat(cutOff.get(30, TimeUnit.SECONDS)).as("the server saw the request reset").isInstanceOf(IOException.class);
        assertThat(written.get()).as("far less than the 64 MiB offered was sent").isLessThan(total / 4);
        assertThat(keys.fetches()).isEqualTo(1);
        keys.close();
    }
}
