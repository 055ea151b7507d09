package lake.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback between the nodes and their store (the moto server), with injectable
 * faults: {@link Mode#FORWARD} passes bytes both ways; {@link Mode#DROP} closes every open
 * connection and every new one as soon as it is accepted (the store is unreachable);
 * {@link Mode#SLOW} delays every chunk sent towards the store by {@code latencyMs} (every store
 * call takes that much longer).
 */
public final class FaultProxy implements AutoCloseable {
    public enum Mode { FORWARD, DROP, SLOW }

    private final ServerSocket server;
    private final int targetPort;
    private final long latencyMs;
    private volatile Mode mode = Mode.FORWARD;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    public FaultProxy(int targetPort, long latencyMs) throws IOException {
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.targetPort = targetPort;
        this.latencyMs = latencyMs;
        Thread accept = new Thread(this::acceptLoop, "fault-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public Mode mode() {
        return mode;
    }

    /** Switches the fault; {@link Mode#DROP} also closes every connection open now. */
    public void mode(Mode m) {
        mode = m;
        if (m == Mode.DROP) for (Socket s : open) closeQuietly(s);
    }

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
                pump(client, upstream, true);
                pump(upstream, client, false);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to, boolean towardsStore) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (mode == Mode.DROP) break;
                    // The injected latency itself: a deliberate delay, not a wait for a condition.
                    if (towardsStore && mode == Mode.SLOW) Thread.sleep(latencyMs);
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException closed) {
                // Either side went away (or the fault closed it); the other pump ends too.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "fault-proxy-pump");
        t.setDaemon(true);
        t.start();
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
    }
}
