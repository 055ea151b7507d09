package lake;

import io.vertx.core.Vertx;
import lake.config.ConfigException;
import lake.config.NodeIds;
import lake.config.Settings;
import lake.config.SettingsLoader;
import lake.metasrv.NodeClock;
import lake.server.Bus;
import lake.server.MetasrvNode;
import lake.server.Stores;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Entry point of the fat jar: resolves configuration (exit 2 when invalid, before anything binds
 * or writes), starts one node, and on SIGTERM stops it gracefully within a bounded time.
 */
public final class Main {
    static final long SHUTDOWN_BUDGET_MS = 4_000;

    private Main() {}

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code != 0) System.exit(code);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Settings settings;
        try {
            SettingsLoader.Invocation inv = SettingsLoader.load(args, System.getenv());
            if (inv instanceof SettingsLoader.Invocation.Help) {
                out.print(usage());
                return 0;
            }
            if (inv instanceof SettingsLoader.Invocation.Version) {
                out.println("lake-metasrv " + version());
                return 0;
            }
            settings = ((SettingsLoader.Invocation.Run) inv).settings();
            settings = settings.withNodeId(NodeIds.resolve(settings));
        } catch (ConfigException e) {
            err.println("lake-metasrv: invalid configuration: " + e.getMessage());
            return 2;
        }

        Vertx vertx = Vertx.vertx(MetasrvNode.vertxOptions());
        MetasrvNode node;
        try {
            node = MetasrvNode.deploy(vertx, new MetasrvNode.Options(settings, NodeClock.SYSTEM, Stores.opener(settings),
                    Stores.needsWorker(settings), Bus.STORE, true))
                    .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            err.println("lake-metasrv: failed to start: " + cause.getMessage());
            vertx.close();
            return 1;
        }
        out.println("lake-metasrv " + version() + " node " + node.nodeId() + " listening on http://"
                + settings.httpHost() + ":" + node.httpPort() + " (store " + settings.store().name().toLowerCase()
                + (settings.store() == Settings.StoreType.ROCKS ? " at " + Stores.rocksPath(settings) : " table " + settings.dynamoTable())
                + ", lease ttl " + settings.leaseTtlMs() + " ms)");
        out.flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> shutdown(vertx, node), "lake-shutdown"));
        return 0;
    }

    /** Resign, stop ingress, close the store, close Vert.x; bounded so SIGTERM exits promptly. */
    private static void shutdown(Vertx vertx, MetasrvNode node) {
        CompletableFuture<Void> stopped = node.stop().eventually(vertx::close).toCompletionStage().toCompletableFuture();
        try {
            stopped.get(SHUTDOWN_BUDGET_MS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            System.err.println("lake-metasrv: shutdown did not finish cleanly: " + e);
        }
    }

    static String usage() {
        return "lake-metasrv " + version() + "\n"
                + "Lease-fenced metadata service over RocksDB (default) or DynamoDB.\n\n"
                + "Usage: java -jar lake-metasrv.jar [options]\n\n" + SettingsLoader.usage();
    }

    static String version() {
        try (InputStream in = Main.class.getResourceAsStream("/lake-metasrv-version.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
