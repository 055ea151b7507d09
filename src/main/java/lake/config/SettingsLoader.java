package lake.config;

import lake.config.access.AuthToken;
import lake.config.access.OidcSettings;
import lake.config.access.StorageAccessSettings;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Resolves {@link Settings}: built-in defaults (conf/config.json, packaged in the jar) &lt; the
 * config file named by {@code --config} / {@code LAKE_CONFIG} &lt; {@code LAKE_*} environment
 * variables &lt; command-line options. Every problem is a {@link ConfigException} naming the setting.
 */
public final class SettingsLoader {
    public static final String DEFAULTS_RESOURCE = "/lake-conf/config.json";

    public static final List<Option> OPTIONS = List.of(
            new Option("config", Option.Type.PATH, "configuration file (JSON, keys as in conf/config.json)"),
            new Option("node-id", Option.Type.STRING, "node id; default: generated on first start and kept in the data directory"),
            new Option("http-host", Option.Type.STRING, "HTTP bind address"),
            new Option("http-port", Option.Type.INT, "HTTP port (0 picks a free one)"),
            new Option("data-dir", Option.Type.PATH, "data directory (RocksDB files, node id)"),
            new Option("store", Option.Type.STRING, "store backend: rocks or dynamo"),
            new Option("rocks-group-commit", Option.Type.BOOL, "share one fsync among concurrent RocksDB mutations"),
            new Option("dynamo-endpoint", Option.Type.STRING, "DynamoDB endpoint override (empty: the SDK default)"),
            new Option("dynamo-region", Option.Type.STRING, "DynamoDB region"),
            new Option("dynamo-table", Option.Type.STRING, "DynamoDB table"),
            new Option("dynamo-create-table", Option.Type.BOOL, "create the DynamoDB table (on-demand) when missing"),
            new Option("lease-key", Option.Type.STRING, "key of the lease record"),
            new Option("lease-ttl-ms", Option.Type.LONG, "lease time to live"),
            new Option("lease-renew-ms", Option.Type.LONG, "renewal interval; default: a third of the TTL"),
            new Option("lease-safety-margin-ms", Option.Type.LONG, "authority ends this long before the lease expires; default: a tenth of the TTL"),
            new Option("request-timeout-ms", Option.Type.LONG, "how long a request may wait for its answer"),
            new Option("store-timeout-ms", Option.Type.LONG, "how long a store call may take"),
            new Option("cluster", Option.Type.BOOL, "join a Metasrv cluster over Hazelcast"),
            new Option("cluster-name", Option.Type.STRING, "cluster name; nodes join only their own cluster"),
            new Option("cluster-host", Option.Type.STRING, "cluster bind address (Hazelcast and the event bus)"),
            new Option("cluster-port", Option.Type.INT, "Hazelcast port"),
            new Option("cluster-bus-port", Option.Type.INT, "port the clustered event bus listens on (0 picks a free one at start)"),
            new Option("cluster-bus-public-port", Option.Type.INT, "event-bus port advertised to the other members when a proxy or NAT forwards it to cluster-bus-port; default: the port listened on"),
            new Option("cluster-members", Option.Type.STRING, "Hazelcast members to join, host:port,..."),
            new Option("store-role", Option.Type.STRING, "RocksDB in a cluster: host (serves the store) or remote"),
            new Option("cluster-secret-file", Option.Type.PATH, "file holding the secret every node of the cluster presents to a RocksDB store host (not readable by other users)"),
            new Option("auth-tokens", Option.Type.TOKENS, "API tokens (JSON array; on the command line only token_sha256 entries); empty: no access control"),
            new Option("auth-tokens-file", Option.Type.PATH, "file with more API tokens (JSON array), not readable by other users"),
            new Option("oidc-issuer", Option.Type.STRING, "accept bearer JWTs whose iss is exactly this (an OpenID Connect provider); empty: no OIDC principals"),
            new Option("oidc-audience", Option.Type.STRING, "with oidc-issuer: a value the JWT's aud must contain"),
            new Option("oidc-jwks-url", Option.Type.STRING, "with oidc-issuer: the provider's JWK set (https; http on loopback only)"),
            new Option("oidc-principal-claim", Option.Type.STRING, "the JWT claim naming the principal"),
            new Option("oidc-roles-claim", Option.Type.STRING, "the JWT claim holding its roles (list or space-separated; dotted for nested)"),
            new Option("oidc-admin-role", Option.Type.STRING, "the role that makes a JWT's principal an admin"),
            new Option("oidc-write-role", Option.Type.STRING, "the role that makes it read-write (its catalog rights come from grants)"),
            new Option("oidc-read-role", Option.Type.STRING, "the role that makes it read-only; a JWT with none of the three is refused"),
            new Option("oidc-clock-skew-ms", Option.Type.LONG, "how far a JWT's exp and nbf may be off this node's clock"),
            new Option("oidc-jwks-refresh-ms", Option.Type.LONG, "how long fetched signing keys are used before they are fetched again"),
            new Option("oidc-jwks-min-refetch-ms", Option.Type.LONG, "the least time between two key fetches caused by an unknown key id"),
            new Option("tls-cert-file", Option.Type.PATH, "PEM certificate (chain) for the HTTP port; with tls-key-file the port serves TLS 1.2+ only"),
            new Option("tls-key-file", Option.Type.PATH, "PEM private key (PKCS#8) of tls-cert-file"),
            new Option("tls-client-ca-file", Option.Type.PATH, "PEM CA: HTTP clients must present a certificate it signed (mutual TLS)"),
            new Option("cluster-tls-cert-file", Option.Type.PATH, "PEM certificate of this node on the clustered event bus (mutual TLS with the two below)"),
            new Option("cluster-tls-key-file", Option.Type.PATH, "PEM private key (PKCS#8) of cluster-tls-cert-file"),
            new Option("cluster-tls-ca-file", Option.Type.PATH, "PEM CA every cluster member's certificate must be signed by"),
            new Option("shutdown-timeout-ms", Option.Type.LONG, "on SIGTERM, the bound on draining requests, resigning and closing the store"),
            new Option("catalog-root", Option.Type.STRING, "URI under which new tables' data lives (<root>/<ns>/<name>/<incarnation>); default: file://<data-dir>/tables"),
            new Option("iceberg-s3-endpoint", Option.Type.STRING, "S3 endpoint of an s3:// catalog root for the Iceberg catalog's files (path-style; for S3-compatible stores); default: the AWS SDK's"),
            new Option("iceberg-vending-role-arn", Option.Type.STRING, "IAM role assumed (STS AssumeRole) for credentials vended to engines, each limited to one table's location; empty: no vending"),
            new Option("iceberg-s3-region", Option.Type.STRING, "the region of the warehouse's S3: where STS vends credentials, what the remote signer signs for, and the region engines are told"),
            new Option("iceberg-sts-endpoint", Option.Type.STRING, "STS endpoint for vended credentials (for S3-compatible stores); default: the AWS SDK's"),
            new Option("iceberg-remote-signing", Option.Type.BOOL, "sign engines' S3 requests for a table's own objects with the node's credentials (S3 remote signing), so engines need no keys"),
            new Option("iceberg-vending-duration-s", Option.Type.INT, "how long each vended credential lives (AWS: 900 to the role's maximum session)"),
            new Option("feed-retention-ms", Option.Type.LONG, "the change feed keeps records this long (by commit time)"),
            new Option("feed-max-records", Option.Type.LONG, "the change feed keeps at most the newest this many revisions"),
            new Option("feed-compact-interval-ms", Option.Type.LONG, "how often the leader compacts the change feed to its retention"),
            new Option("feed-tail-records", Option.Type.LONG, "change records each node keeps in memory for its watchers, at most"),
            new Option("feed-tail-bytes", Option.Type.LONG, "bytes of change records each node keeps in memory for its watchers, about"),
            new Option("feed-write-order", Option.Type.STRING, "check | wait: a write on a key an earlier write still in flight touches is sent at once, checking in its transaction that the earlier one's record exists (check), or waits for it (wait); default: check on rocks, wait on dynamo"),
            new Option("table-retention-ms", Option.Type.LONG, "a dropped table is kept, undroppable, this long before it is purged (a namespace's lake.dropped-table-retention-ms property overrides it)"),
            new Option("purge-interval-ms", Option.Type.LONG, "how often the leader's purge worker looks for dropped tables to purge"),
            new Option("purge-batch-files", Option.Type.INT, "files the purge worker deletes per fenced batch (1 to 1000: one S3 DeleteObjects call)"),
            new Option("orphan-min-age-ms", Option.Type.LONG, "the least safety age of an Iceberg table's orphan sweep: younger files are never reported (at least request-timeout-ms)"),
            new Option("orphan-sweep-interval-ms", Option.Type.LONG, "how often the leader sweeps every Iceberg table for orphan files (0: never; sweeps are then on demand only)"),
            new Option("orphan-sweep-delete", Option.Type.BOOL, "periodic orphan sweeps delete what they find (otherwise they only count and log it)"),
            new Option("webhooks-file", Option.Type.PATH, "file of webhooks the leader POSTs the change feed to as CloudEvents (JSON array of {name, url, prefix?})"));

    private SettingsLoader() {}

    /** The result of parsing a command line: settings, or a request for help or the version. */
    public sealed interface Invocation {
        record Run(Settings settings) implements Invocation {}
        record Help() implements Invocation {}
        record Version() implements Invocation {}
    }

    public static Invocation load(String[] args, Map<String, String> env) {
        Map<String, String> cli = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) return new Invocation.Help();
            if (a.equals("--version") || a.equals("-V")) return new Invocation.Version();
            if (!a.startsWith("--")) throw new ConfigException("unexpected argument '" + a + "'; options start with --");
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Option opt = option(name);
            if (opt == null) throw new ConfigException("unknown option --" + name + " (see --help)");
            if (value == null) {
                if (opt.type() == Option.Type.BOOL && (i + 1 >= args.length || args[i + 1].startsWith("--"))) {
                    value = "true";
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw new ConfigException("option --" + name + " needs a value");
                }
            }
            cli.put(name, value);
        }
        if (cli.containsKey("auth-tokens")
                && AuthTokens.hasPlaintext((io.vertx.core.json.JsonArray) option("auth-tokens").parse(cli.get("auth-tokens"), "option --auth-tokens"))) {
            throw new ConfigException("auth-tokens: plaintext 'token' entries are refused on the command line, where every"
                    + " local user can read them; give token_sha256, or use --auth-tokens-file or LAKE_AUTH_TOKENS");
        }

        JsonObject merged = defaults();
        String configPath = cli.getOrDefault("config", env.get("LAKE_CONFIG"));
        if (configPath != null && !configPath.isBlank()) {
            JsonObject file = readFile(Path.of(configPath));
            for (String key : file.fieldNames()) {
                Option opt = option(key.replace('_', '-'));
                if (opt == null || opt.name().equals("config")) {
                    throw new ConfigException("config file " + configPath + ": unknown setting '" + key + "'");
                }
                merged.put(opt.fileKey(), typed(opt, file.getValue(key), "config file " + configPath));
            }
            if (AuthTokens.hasPlaintext(file.getJsonArray("auth_tokens"))) PrivateFiles.check(Path.of(configPath), "config", "tokens", true);
        }
        for (Option opt : OPTIONS) {
            String raw = env.get(opt.envVar());
            if (raw != null && !opt.name().equals("config")) merged.put(opt.fileKey(), opt.parse(raw, "environment " + opt.envVar()));
        }
        for (Map.Entry<String, String> e : cli.entrySet()) {
            Option opt = option(e.getKey());
            if (!opt.name().equals("config")) merged.put(opt.fileKey(), opt.parse(e.getValue(), "option --" + opt.name()));
        }
        return new Invocation.Run(validate(merged));
    }

    /**
     * The options, each with its environment variable, what it does and its built-in default (from
     * conf/config.json, as the node resolves it); a setting whose default is derived or absent says
     * so in its own text.
     */
    public static String usage() {
        JsonObject defaults = defaults();
        StringBuilder sb = new StringBuilder("Options (each also an environment variable and a config file key):\n");
        for (Option o : OPTIONS) {
            String value = switch (o.type()) {
                case TOKENS -> " JSON";
                case INT, LONG -> " N";
                case BOOL -> " [true|false]";
                case PATH -> " PATH";
                case STRING -> " VALUE";
            };
            sb.append(String.format(Locale.ROOT, "  %-34s %-30s %s%s%n", o.flag() + value, o.envVar(), o.help(),
                    shownDefault(defaults.getValue(o.fileKey()))));
        }
        sb.append(String.format(Locale.ROOT, "  %-34s %-30s %s%n", "--help", "", "print this help"));
        sb.append(String.format(Locale.ROOT, "  %-34s %-30s %s%n", "--version", "", "print the version"));
        sb.append("Precedence: built-in defaults < config file < environment < command line.\n");
        return sb.toString();
    }

    /** "; default: v" for a built-in default; nothing where there is none (the option's text says what unset means). */
    private static String shownDefault(Object v) {
        if (v == null) return "";
        boolean none = (v instanceof String str && str.isEmpty()) || (v instanceof io.vertx.core.json.JsonArray a && a.isEmpty());
        return "; default: " + (none ? "none" : v);
    }

    private static Option option(String name) {
        for (Option o : OPTIONS) if (o.name().equals(name)) return o;
        return null;
    }

    static JsonObject defaults() {
        try (InputStream in = SettingsLoader.class.getResourceAsStream(DEFAULTS_RESOURCE)) {
            if (in == null) throw new IllegalStateException("built-in defaults " + DEFAULTS_RESOURCE + " missing from the jar");
            return new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read built-in defaults", e);
        }
    }

    private static JsonObject readFile(Path path) {
        String text;
        try {
            text = Files.readString(path);
        } catch (IOException e) {
            throw ConfigException.file("config", path, e);
        }
        try {
            return new JsonObject(text);
        } catch (DecodeException | ClassCastException e) {
            throw new ConfigException("config: config file " + path + " is not a JSON object: " + e.getMessage());
        }
    }

    private static Object typed(Option opt, Object v, String source) {
        if (v == null) return null;
        boolean ok = switch (opt.type()) {
            case STRING, PATH -> v instanceof String;
            case INT, LONG -> v instanceof Integer || v instanceof Long;
            case BOOL -> v instanceof Boolean;
            case TOKENS -> v instanceof io.vertx.core.json.JsonArray;
        };
        if (!ok) throw new ConfigException(source + ": setting '" + opt.fileKey() + "' must be " + opt.kind() + ", got "
                + (v instanceof String str ? "'" + str + "'" : v));
        return v;
    }

    /** Settings that have no meaning when absent: a {@code null} for them is refused, not defaulted. */
    private static final List<String> REQUIRED = List.of("http_host", "http_port", "data_dir", "store",
            "rocks_group_commit", "dynamo_create_table", "lease_key", "lease_ttl_ms", "request_timeout_ms",
            "store_timeout_ms", "shutdown_timeout_ms", "cluster", "cluster_name", "cluster_host", "cluster_port",
            "cluster_bus_port", "feed_retention_ms", "feed_max_records", "feed_compact_interval_ms",
            "feed_tail_records", "feed_tail_bytes", "table_retention_ms", "purge_interval_ms", "purge_batch_files",
            "orphan_min_age_ms", "orphan_sweep_interval_ms", "orphan_sweep_delete");

    private static Settings validate(JsonObject c) {
        List<String> problems = new ArrayList<>();
        for (String key : REQUIRED) {
            if (c.getValue(key) == null) {
                throw new ConfigException(key.replace('_', '-') + ": must be set (it is null)");
            }
        }
        String httpHost = c.getString("http_host");
        if (httpHost.isBlank() || !httpHost.matches("[A-Za-z0-9.:\\[\\]_-]+")) {
            throw new ConfigException("http-host: '" + httpHost + "' is not a host name or address");
        }
        String endpoint = c.getString("dynamo_endpoint");
        if (!blank(endpoint)) {
            try {
                java.net.URI uri = new java.net.URI(endpoint);
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                    throw new java.net.URISyntaxException(endpoint, "needs http:// or https:// and a host");
                }
            } catch (java.net.URISyntaxException e) {
                throw new ConfigException("dynamo-endpoint: '" + endpoint + "' is not an http(s) URL with a host");
            }
        }
        String storeName = c.getString("store", "rocks");
        Settings.StoreType store = switch (storeName.toLowerCase(Locale.ROOT)) {
            case "rocks", "rocksdb" -> Settings.StoreType.ROCKS;
            case "dynamo", "dynamodb" -> Settings.StoreType.DYNAMO;
            default -> throw new ConfigException("store: unknown store type '" + storeName + "' (expected rocks or dynamo)");
        };
        int port = c.getInteger("http_port");
        if (port < 0 || port > 65535) throw new ConfigException("http-port: " + port + " is not a port (0-65535)");
        long ttl = c.getLong("lease_ttl_ms");
        if (ttl <= 0) throw new ConfigException("lease-ttl-ms: must be positive, got " + ttl);
        Long renewSetting = c.getLong("lease_renew_ms");
        long renew = renewSetting == null ? ttl / 3 : renewSetting;
        if (renew <= 0) throw new ConfigException("lease-renew-ms: must be positive, got " + renew);
        if (renew >= ttl) throw new ConfigException("lease-renew-ms: must be shorter than lease-ttl-ms (" + ttl + "), got " + renew);
        Long marginSetting = c.getLong("lease_safety_margin_ms");
        long margin = marginSetting == null ? ttl / 10 : marginSetting;
        if (margin < 0 || margin >= ttl - renew) {
            throw new ConfigException("lease-safety-margin-ms: must be at least 0 and leave time for a renewal"
                    + " (less than lease-ttl-ms - lease-renew-ms = " + (ttl - renew) + "), got " + margin);
        }
        long requestTimeout = c.getLong("request_timeout_ms");
        if (requestTimeout <= 0) throw new ConfigException("request-timeout-ms: must be positive, got " + requestTimeout);
        long storeTimeout = c.getLong("store_timeout_ms");
        if (storeTimeout <= 0) throw new ConfigException("store-timeout-ms: must be positive, got " + storeTimeout);
        String dataDir = c.getString("data_dir");
        if (dataDir == null || dataDir.isBlank()) throw new ConfigException("data-dir: must not be empty");
        String leaseKey = c.getString("lease_key");
        if (leaseKey == null || leaseKey.isEmpty()) throw new ConfigException("lease-key: must not be empty");
        if (store == Settings.StoreType.DYNAMO) {
            if (blank(c.getString("dynamo_table"))) throw new ConfigException("dynamo-table: required with --store dynamo");
            if (blank(c.getString("dynamo_region"))) throw new ConfigException("dynamo-region: required with --store dynamo");
        }
        String nodeId = c.getString("node_id");
        if (nodeId != null && !nodeId.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new ConfigException("node-id: '" + nodeId + "' must be 1-64 characters of letters, digits, '.', '_' or '-'");
        }
        long shutdownTimeout = c.getLong("shutdown_timeout_ms");
        if (shutdownTimeout <= 0) throw new ConfigException("shutdown-timeout-ms: must be positive, got " + shutdownTimeout);
        String tokensFile = c.getString("auth_tokens_file");
        List<AuthToken> inlineTokens = AuthTokens.parse(java.util.Collections.singletonList(c.getJsonArray("auth_tokens")),
                List.of("auth-tokens"));
        List<AuthToken> tokens = blank(tokensFile) ? inlineTokens : AuthTokens.withFile(inlineTokens, Path.of(tokensFile));
        SecuritySettings security = new SecuritySettings(blank(tokensFile) ? null : Path.of(tokensFile), inlineTokens,
                path(c, "tls_cert_file"), path(c, "tls_key_file"), path(c, "tls_client_ca_file"),
                path(c, "cluster_tls_cert_file"), path(c, "cluster_tls_key_file"), path(c, "cluster_tls_ca_file"), oidc(c));
        if ((security.tlsCertFile() == null) != (security.tlsKeyFile() == null)) {
            throw new ConfigException(security.tlsCertFile() == null ? "tls-cert-file: required with tls-key-file"
                    : "tls-key-file: required with tls-cert-file");
        }
        if (security.tlsClientCaFile() != null && security.tlsCertFile() == null) {
            throw new ConfigException("tls-client-ca-file: needs tls-cert-file and tls-key-file (client certificates are asked for over TLS)");
        }
        int clusterTlsFiles = (security.clusterTlsCertFile() == null ? 0 : 1) + (security.clusterTlsKeyFile() == null ? 0 : 1)
                + (security.clusterTlsCaFile() == null ? 0 : 1);
        if (clusterTlsFiles != 0 && clusterTlsFiles != 3) {
            throw new ConfigException((security.clusterTlsCertFile() == null ? "cluster-tls-cert-file"
                    : security.clusterTlsKeyFile() == null ? "cluster-tls-key-file" : "cluster-tls-ca-file")
                    + ": cluster-tls-cert-file, cluster-tls-key-file and cluster-tls-ca-file go together (mutual TLS needs all three)");
        }
        ClusterSettings cluster = cluster(c, store);
        if (cluster.enabled() && store == Settings.StoreType.ROCKS && (!tokens.isEmpty() || security.oidc() != null) && cluster.secret() == null) {
            throw new ConfigException("cluster-secret-file: required with --cluster, --store rocks and auth tokens:"
                    + " the store host serves its store to the cluster only to nodes that present it");
        }
        String catalogRoot = c.getString("catalog_root");
        if (!blank(catalogRoot)) {
            try {
                java.net.URI uri = new java.net.URI(catalogRoot);
                if (uri.getScheme() == null || uri.isOpaque()) throw new java.net.URISyntaxException(catalogRoot, "needs a scheme and a path");
            } catch (java.net.URISyntaxException e) {
                throw new ConfigException("catalog-root: '" + catalogRoot + "' is not an absolute URI such as s3://bucket/prefix or file:///srv/lake");
            }
        }
        LifecycleSettings.Orphans orphans = new LifecycleSettings.Orphans(c.getLong("orphan_min_age_ms"), c.getLong("orphan_sweep_interval_ms"),
                c.getBoolean("orphan_sweep_delete"));
        if (orphans.minAgeMs() < requestTimeout) {
            throw new ConfigException("orphan-min-age-ms: must be at least request-timeout-ms (" + requestTimeout
                    + "), the longest a commit can take, got " + orphans.minAgeMs());
        }
        if (!problems.isEmpty()) throw new ConfigException(String.join("; ", problems));
        return new Settings(blank(nodeId) ? null : nodeId, c.getString("http_host"), port, Path.of(dataDir), store,
                c.getBoolean("rocks_group_commit", true),
                blank(c.getString("dynamo_endpoint")) ? null : c.getString("dynamo_endpoint"),
                c.getString("dynamo_region"), c.getString("dynamo_table"), c.getBoolean("dynamo_create_table", false),
                leaseKey, ttl, renew, margin, requestTimeout, storeTimeout, tokens, shutdownTimeout, cluster,
                blank(catalogRoot) ? null : catalogRoot, security,
                blank(c.getString("iceberg_s3_endpoint")) ? null : c.getString("iceberg_s3_endpoint"),
                storageAccess(c),
                new FeedSettings(c.getLong("feed_retention_ms"), c.getLong("feed_max_records"), c.getLong("feed_compact_interval_ms"),
                        Math.toIntExact(Math.min(Integer.MAX_VALUE, c.getLong("feed_tail_records"))), c.getLong("feed_tail_bytes"),
                        blank(c.getString("webhooks_file")) ? List.of() : Webhook.load(Path.of(c.getString("webhooks_file"))),
                        writeOrder(c.getString("feed_write_order"), store)),
                new LifecycleSettings(c.getLong("table_retention_ms"), c.getLong("purge_interval_ms"),
                        (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, c.getLong("purge_batch_files"))), orphans));
    }

    private static FeedSettings.WriteOrder writeOrder(String given, Settings.StoreType store) {
        if (blank(given)) return FeedSettings.WriteOrder.forStore(store);
        return switch (given.toLowerCase(Locale.ROOT)) {
            case "check" -> FeedSettings.WriteOrder.CHECK;
            case "wait" -> FeedSettings.WriteOrder.WAIT;
            default -> throw new ConfigException("feed-write-order: unknown order '" + given + "' (expected check or wait)");
        };
    }

    private static ClusterSettings cluster(JsonObject c, Settings.StoreType store) {
        boolean enabled = c.getBoolean("cluster", false);
        String name = c.getString("cluster_name");
        if (blank(name)) throw new ConfigException("cluster-name: must not be empty");
        String host = c.getString("cluster_host");
        if (blank(host)) throw new ConfigException("cluster-host: must not be empty");
        int port = c.getInteger("cluster_port");
        if (port < 1 || port > 65535) throw new ConfigException("cluster-port: " + port + " is not a port (1-65535)");
        int busPort = c.getInteger("cluster_bus_port");
        if (busPort < 0 || busPort > 65535) throw new ConfigException("cluster-bus-port: " + busPort + " is not a port (0-65535)");
        Integer publicSetting = c.getInteger("cluster_bus_public_port");
        int busPublicPort = publicSetting == null ? 0 : publicSetting;
        if (busPublicPort < 0 || busPublicPort > 65535) {
            throw new ConfigException("cluster-bus-public-port: " + busPublicPort + " is not a port (1-65535; 0 or unset: the port listened on)");
        }
        // Whatever forwards the advertised port must know where to: a bus on a port picked at start has none to name.
        if (busPublicPort != 0 && busPort == 0) {
            throw new ConfigException("cluster-bus-public-port: needs a fixed cluster-bus-port (the port it is forwarded to)");
        }
        List<String> members = new ArrayList<>();
        String raw = c.getString("cluster_members", "");
        for (String m : raw.split(",")) {
            String member = m.trim();
            if (member.isEmpty()) continue;
            int colon = member.lastIndexOf(':');
            try {
                if (colon <= 0) throw new NumberFormatException();
                int p = Integer.parseInt(member.substring(colon + 1));
                if (p < 1 || p > 65535) throw new NumberFormatException();
            } catch (NumberFormatException e) {
                throw new ConfigException("cluster-members: '" + member + "' is not host:port");
            }
            members.add(member);
        }
        if (enabled && members.isEmpty()) throw new ConfigException("cluster-members: required with --cluster (host:port,...)");
        String role = c.getString("store_role", "host");
        ClusterSettings.StoreRole storeRole = switch (role.toLowerCase(Locale.ROOT)) {
            case "host" -> ClusterSettings.StoreRole.HOST;
            case "remote" -> ClusterSettings.StoreRole.REMOTE;
            default -> throw new ConfigException("store-role: unknown role '" + role + "' (expected host or remote)");
        };
        if (!enabled && storeRole == ClusterSettings.StoreRole.REMOTE) {
            throw new ConfigException("store-role: remote needs --cluster (a single node hosts its own store)");
        }
        String secretFile = c.getString("cluster_secret_file");
        String secret = blank(secretFile) ? null : ClusterSecrets.read(Path.of(secretFile));
        return new ClusterSettings(enabled, name, host, port, members, storeRole, secret, busPort, busPublicPort);
    }

    /** The OIDC settings, or {@code null} without {@code oidc_issuer}; an {@code oidc_*} setting without it is refused. */
    private static OidcSettings oidc(JsonObject c) {
        if (blank(c.getString("oidc_issuer"))) {
            for (String k : List.of("oidc_audience", "oidc_jwks_url")) {
                if (!blank(c.getString(k))) throw new ConfigException(k.replace('_', '-') + ": needs oidc-issuer");
            }
            return null;
        }
        java.net.URI jwks;
        try {
            jwks = blank(c.getString("oidc_jwks_url")) ? null : new java.net.URI(c.getString("oidc_jwks_url"));
        } catch (java.net.URISyntaxException e) {
            throw new ConfigException("oidc-jwks-url: '" + c.getString("oidc_jwks_url") + "' is not a URL: " + e.getMessage());
        }
        try {
            return new OidcSettings(c.getString("oidc_issuer"), c.getString("oidc_audience"), jwks, c.getString("oidc_principal_claim"),
                    c.getString("oidc_roles_claim"), c.getString("oidc_admin_role"), c.getString("oidc_write_role"),
                    c.getString("oidc_read_role"), c.getLong("oidc_clock_skew_ms"), c.getLong("oidc_jwks_refresh_ms"),
                    c.getLong("oidc_jwks_min_refetch_ms"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage()); // each names its setting
        }
    }

    /** Credential vending, or {@link StorageAccessSettings#NONE}-like settings without a role. */
    private static StorageAccessSettings storageAccess(JsonObject c) {
        String role = c.getString("iceberg_vending_role_arn");
        String sts = c.getString("iceberg_sts_endpoint");
        if (blank(role) && !blank(sts)) throw new ConfigException("iceberg-sts-endpoint: needs iceberg-vending-role-arn");
        java.net.URI endpoint;
        try {
            endpoint = blank(sts) ? null : new java.net.URI(sts);
        } catch (java.net.URISyntaxException e) {
            throw new ConfigException("iceberg-sts-endpoint: '" + sts + "' is not a URL: " + e.getMessage());
        }
        try {
            return new StorageAccessSettings(blank(role) ? null : role, c.getString("iceberg_s3_region"), endpoint,
                    c.getInteger("iceberg_vending_duration_s"), c.getBoolean("iceberg_remote_signing", false));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage()); // each names its setting
        }
    }

    private static Path path(JsonObject c, String key) {
        String v = c.getString(key);
        return blank(v) ? null : Path.of(v);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
