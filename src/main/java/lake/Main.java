package lake;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import lake.api.AccessControl;
import lake.bus.Bus;
import lake.cluster.Clustering;
import lake.config.ConfigException;
import lake.config.NodeIds;
import lake.config.Settings;
import lake.config.SettingsLoader;
import lake.metasrv.NodeClock;
import lake.node.MetasrvNode;
import lake.node.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("ctl")) {
            // java -jar lake-metasrv.jar ctl …: the command line client, not a node.
            lake.cli.Lakectl.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        int code = run(args, System.out, System.err);
        if (code != 0) System.exit(code);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Settings settings;
        lake.security.TlsMaterial busTls = null;
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
            // TLS material is checked now, before anything binds or is written: a bad file is exit 2 naming its setting.
            var sec = settings.security();
            if (sec.httpsEnabled()) {
                lake.security.TlsMaterial.load(sec.tlsCertFile(), sec.tlsKeyFile(), sec.tlsClientCaFile(),
                        "tls-cert-file", "tls-key-file", "tls-client-ca-file");
            }
            if (sec.clusterTlsEnabled()) {
                busTls = lake.security.TlsMaterial.load(sec.clusterTlsCertFile(), sec.clusterTlsKeyFile(), sec.clusterTlsCaFile(),
                        "cluster-tls-cert-file", "cluster-tls-key-file", "cluster-tls-ca-file");
            }
            // Before anything is written or joined: a node that cannot listen must not create its
            // data directory, join the cluster or campaign for the lease.
            String taken = takenPort(settings);
            if (taken != null) {
                err.println("lake-metasrv: cannot listen on " + taken);
                return 1;
            }
            settings = settings.withNodeId(NodeIds.resolve(settings));
        } catch (ConfigException e) {
            err.println("lake-metasrv: invalid configuration: " + e.getMessage());
            return 2;
        }

        AccessControl.exposureWarning(settings.httpHost(), settings.accessControlled()).ifPresent(w -> log.warn(w));
        if (settings.cluster().enabled()) {
            AccessControl.clusterExposureWarning(settings.cluster().host(), settings.accessControlled())
                    .ifPresent(w -> log.warn(w));
        }

        // One registry for Vert.x's own meters (HTTP server, JVM) and the node's. Vert.x's per-address
        // event-bus meters are off: every request crosses internal addresses, and they cost more
        // per request than they tell an operator (the node's own meters count every operation).
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        VertxOptions options = MetasrvNode.vertxOptions()
                .setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true).setJvmMetricsEnabled(true)
                        .addDisabledMetricsCategory(MetricsDomain.EVENT_BUS));
        Vertx vertx;
        try {
            vertx = settings.cluster().enabled()
                    ? Clustering.start(settings.cluster(), settings.nodeId(), busTls, options, new MicrometerMetricsFactory(registry))
                            .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS)
                    : Vertx.builder().with(options).withMetrics(new MicrometerMetricsFactory(registry)).build();
        } catch (Exception e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            err.println("lake-metasrv: failed to join cluster '" + settings.cluster().name() + "': " + cause.getMessage());
            return 1;
        }
        var hosted = Stores.hostedOpener(settings);
        MetasrvNode node;
        try {
            node = MetasrvNode.deploy(vertx, new MetasrvNode.Options(settings, NodeClock.SYSTEM, hosted,
                    Bus.STORE, true, registry))
                    .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            err.println("lake-metasrv: failed to start: " + cause.getMessage());
            vertx.close();
            return 1;
        }
        out.println("lake-metasrv " + version() + " node " + node.nodeId() + " listening on " + (settings.security().httpsEnabled() ? "https://" : "http://")
                + settings.httpHost() + ":" + node.httpPort() + " (store " + settings.store().name().toLowerCase()
                + (settings.store() == Settings.StoreType.ROCKS ? " at " + Stores.rocksPath(settings) : " table " + settings.dynamoTable())
                + (hosted == null ? ", reached on the cluster" : "")
                + ", lease ttl " + settings.leaseTtlMs() + " ms"
                + ", network " + (vertx.isNativeTransportEnabled() ? "native epoll" : "NIO")
                + (settings.cluster().enabled() ? ", cluster " + settings.cluster().name() + " on "
                        + settings.cluster().host() + ":" + settings.cluster().port() : "") + ")");
        out.flush();
        // SIGHUP re-reads the security material (tokens file; TLS certificates) without a restart.
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> node.reloadSecurity("SIGHUP"));
        } catch (IllegalArgumentException e) {
            log.warn("SIGHUP is not available here ({}); security material is still re-read when its files change", e.getMessage());
        }
        long shutdownBudgetMs = settings.shutdownTimeoutMs();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> shutdown(vertx, node, shutdownBudgetMs),
                "lake-shutdown"));
        return 0;
    }

    /**
     * The first fixed port this node would listen on that cannot be bound now ("host:port (setting):
     * why"), or {@code null}: the HTTP port, and in a cluster Hazelcast's and the event bus's. Each
     * is bound and released at once (with SO_REUSEADDR, as the servers bind, so a closing
     * connection of an earlier run is no obstacle). A port taken in the instant between this check
     * and the node's own bind still fails the start (exit 1), after the node gave back any lease.
     */
    static String takenPort(Settings s) {
        java.util.List<String[]> ports = new java.util.ArrayList<>();
        ports.add(new String[] {s.httpHost(), String.valueOf(s.httpPort()), "http-port"});
        if (s.cluster().enabled()) {
            ports.add(new String[] {s.cluster().host(), String.valueOf(s.cluster().port()), "cluster-port"});
            ports.add(new String[] {s.cluster().host(), String.valueOf(s.cluster().busPort()), "cluster-bus-port"});
        }
        for (String[] p : ports) {
            int port = Integer.parseInt(p[1]);
            if (port == 0) continue;
            String address = p[0] + ":" + port + " (" + p[2] + ")";
            try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(new java.net.InetSocketAddress(p[0], port));
            } catch (IOException | IllegalArgumentException | SecurityException e) {
                String why = e instanceof java.net.BindException && String.valueOf(e.getMessage()).startsWith("Address already in use")
                        ? "the address is already in use (another node, or another program, listens there)" : String.valueOf(e.getMessage());
                return address + ": " + why;
            }
        }
        return null;
    }

    /**
     * SIGTERM (or SIGINT): stop the ingress and drain it, resign, close the store, close Vert.x,
     * all within {@code budgetMs}. A clean stop then halts with 0: the JVM would otherwise report a
     * signal death (143) although nothing went wrong, and supervisors read 143 as a crash. A stop
     * that failed or ran out of time halts with 1, so a supervisor does know.
     */
    private static void shutdown(Vertx vertx, MetasrvNode node, long budgetMs) {
        log.info("stopping node {}: no new requests, draining those in flight, then resigning the lease", node.nodeId());
        CompletableFuture<Void> stopped = node.stop().eventually(vertx::close).toCompletionStage().toCompletableFuture();
        int status = 0;
        try {
            stopped.get(budgetMs, TimeUnit.MILLISECONDS);
            log.info("node {} stopped", node.nodeId());
        } catch (Exception e) {
            log.error("node {} did not stop cleanly within {} ms: {}", node.nodeId(), budgetMs, e.toString());
            status = 1;
        }
        // halt skips the remaining hooks, so flush the log appenders and the streams first.
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext logback) logback.stop();
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }

    static String usage() {
        return "lake-metasrv " + version() + "\n"
                + "Lease-fenced metadata service over RocksDB (default) or DynamoDB.\n\n"
                + "Usage: java -jar lake-metasrv.jar [options]          start a node\n"
                + "       java -jar lake-metasrv.jar ctl COMMAND [...]  lakectl, the command-line client (the same as bin/lakectl;\n"
                + "                                                     'ctl --help' lists its commands, 'ctl man' prints its manual)\n\n"
                + SettingsLoader.usage();
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
