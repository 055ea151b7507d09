package lake.config;

import lake.config.access.AuthToken;
import lake.config.access.CatalogGrant;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The resolved configuration of one node. Built only by {@link SettingsLoader}, which applies the
 * precedence (built-in defaults &lt; config file &lt; environment &lt; command line) and validates.
 */
public record Settings(
        String nodeId,
        String httpHost,
        int httpPort,
        Path dataDir,
        StoreType store,
        boolean rocksGroupCommit,
        String dynamoEndpoint,
        String dynamoRegion,
        String dynamoTable,
        boolean dynamoCreateTable,
        String leaseKey,
        long leaseTtlMs,
        long leaseRenewMs,
        long leaseSafetyMarginMs,
        long requestTimeoutMs,
        long storeTimeoutMs,
        List<AuthToken> authTokens,
        long shutdownTimeoutMs,
        ClusterSettings cluster,
        String catalogRoot,
        SecuritySettings security,
        String icebergS3Endpoint,
        lake.config.access.StorageAccessSettings storageAccess,
        FeedSettings feed,
        LifecycleSettings lifecycle) {

    /** A single node without access control and with the default shutdown budget (tests, embedding). */
    public Settings(String nodeId, String httpHost, int httpPort, Path dataDir, StoreType store, boolean rocksGroupCommit,
                    String dynamoEndpoint, String dynamoRegion, String dynamoTable, boolean dynamoCreateTable,
                    String leaseKey, long leaseTtlMs, long leaseRenewMs, long leaseSafetyMarginMs,
                    long requestTimeoutMs, long storeTimeoutMs) {
        this(nodeId, httpHost, httpPort, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion, dynamoTable,
                dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs, requestTimeoutMs,
                storeTimeoutMs, List.of(), 4_000, ClusterSettings.single(), null, null, null, null, null, null);
    }

    /** All settings but the catalog root, which then defaults to {@code file://<data_dir>/tables}. */
    public Settings(String nodeId, String httpHost, int httpPort, Path dataDir, StoreType store, boolean rocksGroupCommit,
                    String dynamoEndpoint, String dynamoRegion, String dynamoTable, boolean dynamoCreateTable,
                    String leaseKey, long leaseTtlMs, long leaseRenewMs, long leaseSafetyMarginMs,
                    long requestTimeoutMs, long storeTimeoutMs, List<AuthToken> authTokens, long shutdownTimeoutMs,
                    ClusterSettings cluster) {
        this(nodeId, httpHost, httpPort, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion, dynamoTable,
                dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs, requestTimeoutMs,
                storeTimeoutMs, authTokens, shutdownTimeoutMs, cluster, null, null, null, null, null, null);
    }

    public Settings {
        authTokens = authTokens == null ? List.of() : List.copyOf(authTokens);
        cluster = cluster == null ? ClusterSettings.single() : cluster;
        feed = feed == null ? FeedSettings.DEFAULTS : feed;
        lifecycle = lifecycle == null ? LifecycleSettings.DEFAULTS : lifecycle;
        storageAccess = storageAccess == null ? lake.config.access.StorageAccessSettings.NONE : storageAccess;
        // Without a file, the inline tokens are the whole set: a reload re-reads nothing and keeps them.
        security = security == null ? new SecuritySettings(null, authTokens) : security;
        // Where new tables' data lives: <catalog_root>/<ns>/<name>/<incarnation>; no trailing slash.
        if (catalogRoot == null || catalogRoot.isBlank()) {
            catalogRoot = dataDir.toAbsolutePath().normalize().resolve("tables").toUri().toString();
        }
        while (catalogRoot.endsWith("/")) catalogRoot = catalogRoot.substring(0, catalogRoot.length() - 1);
    }

    public enum StoreType { ROCKS, DYNAMO }

    /** The settings as JSON, file keys; for logs. Holds no secrets: tokens appear by name and access only. */
    public JsonObject toJson() {
        return new JsonObject()
                .put("node_id", nodeId).put("http_host", httpHost).put("http_port", httpPort)
                .put("data_dir", dataDir.toString()).put("store", store.name().toLowerCase())
                .put("rocks_group_commit", rocksGroupCommit)
                .put("dynamo_endpoint", dynamoEndpoint).put("dynamo_region", dynamoRegion)
                .put("dynamo_table", dynamoTable).put("dynamo_create_table", dynamoCreateTable)
                .put("lease_key", leaseKey).put("lease_ttl_ms", leaseTtlMs).put("lease_renew_ms", leaseRenewMs)
                .put("lease_safety_margin_ms", leaseSafetyMarginMs)
                .put("request_timeout_ms", requestTimeoutMs).put("store_timeout_ms", storeTimeoutMs)
                .put("auth_tokens", new JsonArray(authTokens.stream()
                        .map(t -> new JsonObject().put("name", t.name()).put("access", t.accessLabel())
                                .put("prefixes", t.prefixes() == null ? null : new JsonArray(t.prefixes()))
                                .put("namespaces", t.namespaces() == null ? null : new JsonArray(t.namespaces()))
                                .put("grants", t.grants() == null ? null : new JsonArray(t.grants().stream().map(g -> new JsonObject()
                                        .put("namespace", g.namespace()).put("name", g.name())
                                        .put("privileges", new JsonArray(g.privileges().stream().map(CatalogGrant.Privilege::label).sorted().toList())))
                                        .toList()))).toList()))
                .put("shutdown_timeout_ms", shutdownTimeoutMs)
                .put("cluster", cluster.enabled()).put("cluster_name", cluster.name())
                .put("cluster_host", cluster.host()).put("cluster_port", cluster.port())
                .put("cluster_bus_port", cluster.busPort())
                .put("cluster_bus_public_port", cluster.busPublicPort() == 0 ? null : cluster.busPublicPort())
                .put("cluster_members", String.join(",", cluster.members()))
                .put("store_role", cluster.storeRole().name().toLowerCase())
                .put("catalog_root", catalogRoot)
                .put("auth_tokens_file", str(security.authTokensFile()))
                .put("tls_cert_file", str(security.tlsCertFile())).put("tls_key_file", str(security.tlsKeyFile()))
                .put("tls_client_ca_file", str(security.tlsClientCaFile()))
                .put("cluster_tls_cert_file", str(security.clusterTlsCertFile()))
                .put("cluster_tls_key_file", str(security.clusterTlsKeyFile()))
                .put("cluster_tls_ca_file", str(security.clusterTlsCaFile()))
                .put("oidc", security.oidc() == null ? null : new JsonObject().put("issuer", security.oidc().issuer())
                        .put("audience", security.oidc().audience()).put("jwks_url", security.oidc().jwksUrl().toString())
                        .put("principal_claim", security.oidc().principalClaim()).put("roles_claim", security.oidc().rolesClaim())
                        .put("roles", new JsonArray(List.of(security.oidc().adminRole(), security.oidc().writeRole(), security.oidc().readRole())))
                        .put("clock_skew_ms", security.oidc().clockSkewMs()).put("jwks_refresh_ms", security.oidc().jwksRefreshMs())
                        .put("jwks_min_refetch_ms", security.oidc().jwksMinRefetchMs()))
                .put("iceberg_s3_endpoint", icebergS3Endpoint)
                .put("iceberg_vending_role_arn", storageAccess.roleArn()).put("iceberg_s3_region", storageAccess.region())
                .put("iceberg_sts_endpoint", storageAccess.stsEndpoint() == null ? null : storageAccess.stsEndpoint().toString())
                .put("iceberg_vending_duration_s", storageAccess.durationSeconds())
                .put("iceberg_remote_signing", storageAccess.remoteSigning())
                .put("feed_retention_ms", feed.retentionMs()).put("feed_max_records", feed.maxRecords())
                .put("feed_compact_interval_ms", feed.compactIntervalMs()).put("feed_tail_records", (long) feed.tailRecords())
                .put("feed_tail_bytes", feed.tailBytes())
                .put("feed_write_order", feed.writeOrder().name().toLowerCase())
                .put("orphan_min_age_ms", lifecycle.orphans().minAgeMs()).put("orphan_sweep_interval_ms", lifecycle.orphans().sweepIntervalMs())
                .put("orphan_sweep_delete", lifecycle.orphans().sweepDelete())
                .put("webhooks", new io.vertx.core.json.JsonArray(feed.webhooks().stream().map(w -> (Object) new io.vertx.core.json.JsonObject()
                        .put("name", w.name()).put("url", w.url().getScheme() + "://" + w.url().getHost() + (w.url().getPort() < 0 ? "" : ":" + w.url().getPort()) + "/…")
                        .put("prefix", w.prefix())).toList()))
                .put("table_retention_ms", lifecycle.tableRetentionMs()).put("purge_interval_ms", lifecycle.purgeIntervalMs())
                .put("purge_batch_files", lifecycle.purgeBatchFiles());
    }

    /** Whether requests need a principal: tokens (or certificate principals) are configured, or OIDC is. */
    public boolean accessControlled() {
        return !authTokens.isEmpty() || security.oidc() != null;
    }

    private static String str(Path p) {
        return p == null ? null : p.toString();
    }

    /** These settings with {@code change} applied to a copy of their fields (one place lists them all). */
    public Settings with(Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return f.build();
    }

    public Settings withNodeId(String id) {
        return with(f -> f.nodeId = id);
    }

    public Settings withHttpPort(int port) {
        return with(f -> f.httpPort = port);
    }

    /** The fields of a {@link Settings}, to change some and build new settings. */
    public static final class Fields {
        public String nodeId;
        public String httpHost;
        public int httpPort;
        public Path dataDir;
        public StoreType store;
        public boolean rocksGroupCommit;
        public String dynamoEndpoint;
        public String dynamoRegion;
        public String dynamoTable;
        public boolean dynamoCreateTable;
        public String leaseKey;
        public long leaseTtlMs;
        public long leaseRenewMs;
        public long leaseSafetyMarginMs;
        public long requestTimeoutMs;
        public long storeTimeoutMs;
        public List<AuthToken> authTokens;
        public long shutdownTimeoutMs;
        public ClusterSettings cluster;
        public String catalogRoot;
        public SecuritySettings security;
        public String icebergS3Endpoint;
        public lake.config.access.StorageAccessSettings storageAccess;
        public FeedSettings feed;
        public LifecycleSettings lifecycle;

        private Fields(Settings s) {
            nodeId = s.nodeId;
            httpHost = s.httpHost;
            httpPort = s.httpPort;
            dataDir = s.dataDir;
            store = s.store;
            rocksGroupCommit = s.rocksGroupCommit;
            dynamoEndpoint = s.dynamoEndpoint;
            dynamoRegion = s.dynamoRegion;
            dynamoTable = s.dynamoTable;
            dynamoCreateTable = s.dynamoCreateTable;
            leaseKey = s.leaseKey;
            leaseTtlMs = s.leaseTtlMs;
            leaseRenewMs = s.leaseRenewMs;
            leaseSafetyMarginMs = s.leaseSafetyMarginMs;
            requestTimeoutMs = s.requestTimeoutMs;
            storeTimeoutMs = s.storeTimeoutMs;
            authTokens = s.authTokens;
            shutdownTimeoutMs = s.shutdownTimeoutMs;
            cluster = s.cluster;
            catalogRoot = s.catalogRoot;
            security = s.security;
            icebergS3Endpoint = s.icebergS3Endpoint;
            storageAccess = s.storageAccess;
            feed = s.feed;
            lifecycle = s.lifecycle;
        }

        private Settings build() {
            return new Settings(nodeId, httpHost, httpPort, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion, dynamoTable, dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs, requestTimeoutMs, storeTimeoutMs, authTokens, shutdownTimeoutMs, cluster, catalogRoot, security, icebergS3Endpoint, storageAccess, feed, lifecycle);
        }
    }
}
