package lake.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The proxy's injected latency, observed on a real target socket: what arrives, in what order,
 * and no earlier than when. Only lower bounds on time are asserted.
 */
class TcpProxyTest {
    private static final long LATENCY_MS = 300;
    private static final long LATENCY_NS = TimeUnit.MILLISECONDS.toNanos(LATENCY_MS);

    private ServerSocket target;
    private TcpProxy proxy;
    private Socket client;
    /** What the target reads on the one connection the proxy opens, until the proxy closes it. */
    private CompletableFuture<Arrivals> arrivals;

    @BeforeEach
    void connectThroughASlowProxy() throws IOException {
        target = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        proxy = new TcpProxy(target.getLocalPort(), TcpProxy.Mode.SLOW, LATENCY_MS);
        arrivals = receiveUntilClosed(target);
        client = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    }

    @AfterEach
    void closeAll() throws IOException {
        try (ServerSocket t = target; TcpProxy p = proxy; Socket c = client) {
            // Closed in reverse: the client, the proxy, the target.
        }
    }

    @Test
    void slowModeDelaysEveryChunkInOrder() throws Exception {
        StringBuilder sent = new StringBuilder();
        List<long[]> chunkEndsAndSendTimes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String chunk = "chunk-" + i + ";";
            long sendStarted = send(chunk);
            sent.append(chunk);
            chunkEndsAndSendTimes.add(new long[] {sent.length(), sendStarted});
        }
        client.shutdownOutput();

        Arrivals got = arrivals.get(30, TimeUnit.SECONDS);
        assertThat(got.text()).as("every chunk, in order, nothing interleaved").isEqualTo(sent.toString());
        for (long[] chunk : chunkEndsAndSendTimes) {
            assertThat(got.arrivalOfByte((int) chunk[0] - 1) - chunk[1])
                    .as("the chunk ending at byte %d arrived at least %d ms after it was sent", chunk[0], LATENCY_MS)
                    .isGreaterThanOrEqualTo(LATENCY_NS);
        }
    }

    @Test
    void chunksForwardedAfterSlowModeEndsWaitBehindTheDelayedOnes() throws Exception {
        String delayed = "GET /delayed HTTP/1.1\r\n\r\n";
        String forwarded = "GET /forwarded HTTP/1.1\r\n\r\n";
        long delayedSent = send(delayed);
        // The proxy has read the first request under SLOW; from now on it forwards at once.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> proxy.requests() == 1);
        proxy.mode(TcpProxy.Mode.FORWARD);
        send(forwarded);
        client.shutdownOutput();

        Arrivals got = arrivals.get(30, TimeUnit.SECONDS);
        assertThat(got.text()).isEqualTo(delayed + forwarded);
        assertThat(got.arrivalOfByte(0) - delayedSent).isGreaterThanOrEqualTo(LATENCY_NS);
    }

    /** Writes {@code chunk} from the client; returns {@link System#nanoTime()} just before it was written. */
    private long send(String chunk) throws IOException {
        long started = System.nanoTime();
        client.getOutputStream().write(chunk.getBytes(StandardCharsets.US_ASCII));
        client.getOutputStream().flush();
        return started;
    }

    /** What the target read, and when ({@link System#nanoTime()}) each read ended at which byte count. */
    private record Arrivals(String text, List<long[]> readEndsAndTimes) {
        long arrivalOfByte(int index) {
            for (long[] read : readEndsAndTimes) if (read[0] > index) return read[1];
            throw new AssertionError("byte " + index + " never arrived");
        }
    }

    /** Accepts one connection on {@code target} and reads it until the proxy closes it. */
    private static CompletableFuture<Arrivals> receiveUntilClosed(ServerSocket target) {
        return CompletableFuture.supplyAsync(() -> {
            try (Socket upstream = target.accept(); InputStream in = upstream.getInputStream()) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                List<long[]> reads = new ArrayList<>();
                byte[] buf = new byte[4096];
                int n;
                while ((n = in.read(buf)) > 0) {
                    long now = System.nanoTime();
                    bytes.write(buf, 0, n);
                    reads.add(new long[] {bytes.size(), now});
                }
                return new Arrivals(bytes.toString(StandardCharsets.US_ASCII), reads);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, TcpProxyTest::onItsOwnThread);
    }

    /** The target blocks in accept and read: on a thread of its own, not a shared pool's. */
    private static void onItsOwnThread(Runnable r) {
        Thread t = new Thread(r, "tcp-proxy-test-target");
        t.setDaemon(true);
        t.start();
    }
}
