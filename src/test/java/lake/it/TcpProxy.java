package lake.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real TCP proxy on loopback in front of one port, with injectable faults; the one proxy of the
 * test suite (the client's fault tests, the fault campaign's store path, the cluster bus test).
 * Bytes towards the target are always forwarded unless the proxy drops; what happens to them and
 * to the target's answers depends on {@link Mode}, switchable at any time:
 * <ul>
 *   <li>{@link Mode#FORWARD}: both ways, untouched.</li>
 *   <li>{@link Mode#WITHHOLD}: the target's answers are swallowed; the client's connection stays
 *       open and silent.</li>
 *   <li>{@link Mode#CLOSE_AFTER_ANSWER}: the client's connection is closed once the target
 *       answered (the request took effect, the client never hears).</li>
 *   <li>{@link Mode#DROP}: every open connection is closed, and every new one as soon as it is
 *       accepted (the target is unreachable).</li>
 *   <li>{@link Mode#SLOW}: every chunk towards the target is delayed by {@code latencyMs}, in
 *       order; the proxy keeps reading meanwhile (the delay is a scheduled write, not a pause).</li>
 * </ul>
 * It counts accepted connections, the HTTP request lines it forwarded (with their arrival times)
 * and the answers it withheld or dropped, so a test can show a request was sent exactly once or
 * that a peer really went through it.
 */
public final class TcpProxy implements AutoCloseable {
    public enum Mode { FORWARD, WITHHOLD, CLOSE_AFTER_ANSWER, DROP, SLOW }

    private final ServerSocket server;
    private final int targetPort;
    private final long latencyMs;
    private volatile Mode mode;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger suppressedAnswers = new AtomicInteger();
    private final List<Long> requestTimes = new CopyOnWriteArrayList<>();
    /** Every socket open now, both ends; {@link Mode#DROP} and {@link #close()} close them. */
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** Runs the writes {@link Mode#SLOW} delays (and those queued behind them), once each is due. */
    private final ExecutorService delayedWrites = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "tcp-proxy-delayed-write");
        t.setDaemon(true);
        return t;
    });

    public TcpProxy(int targetPort, Mode mode) throws IOException {
        this(targetPort, mode, 0);
    }

    /** {@code latencyMs}: the delay {@link Mode#SLOW} adds to every chunk sent towards the target. */
    public TcpProxy(int targetPort, Mode mode, long latencyMs) throws IOException {
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.targetPort = targetPort;
        this.mode = mode;
        this.latencyMs = latencyMs;
        Thread accept = new Thread(this::acceptLoop, "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    public int port() { return server.getLocalPort(); }

    public Mode mode() { return mode; }

    /** Switches the fault; {@link Mode#DROP} also closes every connection open now. */
    public void mode(Mode m) {
        mode = m;
        if (m == Mode.DROP) for (Socket s : open) closeQuietly(s);
    }

    /** Connections accepted and forwarded (not those refused while dropping). */
    public int accepted() { return accepted.get(); }

    /** HTTP requests forwarded to the target (request lines seen). */
    public int requests() { return requests.get(); }

    /** When each request arrived ({@link System#nanoTime()}), in order. */
    public List<Long> requestTimes() { return List.copyOf(requestTimes); }

    /** Answers of the target that the client never got. */
    public int suppressedAnswers() { return suppressedAnswers.get(); }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            if (mode == Mode.DROP) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(client);
                open.add(upstream);
                accepted.incrementAndGet();
                pump(client, upstream, true);
                pump(upstream, client, false);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to, boolean towardsTarget) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            OrderedWriter writer = new OrderedWriter(to, delayedWrites, () -> {
                closeQuietly(from);
                closeQuietly(to);
            });
            try (InputStream in = from.getInputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    Mode m = mode;
                    if (m == Mode.DROP) break;
                    if (towardsTarget) {
                        int lines = countRequestLines(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                        long now = System.nanoTime();
                        for (int i = 0; i < lines; i++) requestTimes.add(now);
                        requests.addAndGet(lines);
                    } else if (m == Mode.WITHHOLD || m == Mode.CLOSE_AFTER_ANSWER) {
                        suppressedAnswers.incrementAndGet();
                        if (m == Mode.CLOSE_AFTER_ANSWER) {
                            closeQuietly(to);
                            return;
                        }
                        continue;
                    }
                    writer.send(buf, n, towardsTarget && m == Mode.SLOW ? latencyMs : 0);
                }
            } catch (IOException closed) {
                // Either side went away (or a fault closed it); the other pump ends too.
            } finally {
                open.remove(from);
                // A withheld answer's client connection stays open and silent until the client gives up.
                // Chunks still delayed are written before the close (a fault may have closed it already).
                if (towardsTarget || mode != Mode.WITHHOLD) {
                    writer.afterPending(() -> {
                        closeQuietly(to);
                        open.remove(to);
                    });
                }
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static int countRequestLines(String chunk) {
        int count = 0;
        for (int i = chunk.indexOf(" HTTP/1.1\r\n"); i >= 0; i = chunk.indexOf(" HTTP/1.1\r\n", i + 1)) count++;
        return count;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) closeQuietly(s);
        delayedWrites.shutdown();
    }
}
