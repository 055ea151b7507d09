package lake.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real TCP proxy on loopback in front of one node, for the client's fault tests: it forwards
 * every request byte to the node and, by {@link Mode}, passes the node's answer back, withholds it
 * (the client's connection stays open, silent), or drops the client's connection once the answer
 * came (the write applied, the client never hears). It counts the HTTP requests it forwarded and
 * the answers it withheld or dropped, so a test can show a write was sent exactly once.
 */
public final class TcpProxy implements AutoCloseable {
    /** What happens to the node's answer. */
    public enum Mode { FORWARD, WITHHOLD, CLOSE_AFTER_ANSWER }

    private final ServerSocket server;
    private final int targetPort;
    private volatile Mode mode;
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger suppressedAnswers = new AtomicInteger();
    private final List<Long> requestTimes = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    public TcpProxy(int targetPort, Mode mode) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetPort = targetPort;
        this.mode = mode;
        Thread accept = new Thread(this::acceptLoop, "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    public int port() { return server.getLocalPort(); }

    public void mode(Mode m) { mode = m; }

    /** HTTP requests forwarded to the node (request lines seen). */
    public int requests() { return requests.get(); }

    /** When each request arrived ({@link System#nanoTime()}), in order. */
    public List<Long> requestTimes() { return List.copyOf(requestTimes); }

    /** Answers of the node that the client never got. */
    public int suppressedAnswers() { return suppressedAnswers.get(); }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, true);
                pump(upstream, client, false);
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean request) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (request) {
                        int lines = countRequestLines(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                        long now = System.nanoTime();
                        for (int i = 0; i < lines; i++) requestTimes.add(now);
                        requests.addAndGet(lines);
                        out.write(buf, 0, n);
                        out.flush();
                        continue;
                    }
                    Mode m = mode;
                    if (m == Mode.FORWARD) {
                        out.write(buf, 0, n);
                        out.flush();
                    } else {
                        suppressedAnswers.incrementAndGet();
                        if (m == Mode.CLOSE_AFTER_ANSWER) {
                            to.close();
                            return;
                        }
                    }
                }
            } catch (IOException closed) {
                // Either side went away; the other pump ends too.
            } finally {
                if (request || mode == Mode.FORWARD) closeQuietly(to);
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
        for (Socket s : sockets) closeQuietly(s);
    }
}
