package lake.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.util.List;

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
        ClusterSettings cluster) {

    /** A single node without access control and with the default shutdown budget (tests, embedding). */
    public Settings(String nodeId, String httpHost, int httpPort, Path dataDir, StoreType store, boolean rocksGroupCommit,
                    String dynamoEndpoint, String dynamoRegion, String dynamoTable, boolean dynamoCreateTable,
                    String leaseKey, long leaseTtlMs, long leaseRenewMs, long leaseSafetyMarginMs,
                    long requestTimeoutMs, long storeTimeoutMs) {
        this(nodeId, httpHost, httpPort, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion, dynamoTable,
                dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs, requestTimeoutMs,
                storeTimeoutMs, List.of(), 4_000, ClusterSettings.single());
    }

    public Settings {
        authTokens = authTokens == null ? List.of() : List.copyOf(authTokens);
        cluster = cluster == null ? ClusterSettings.single() : cluster;
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
                        .map(t -> new JsonObject().put("name", t.name()).put("access", t.access())).toList()))
                .put("shutdown_timeout_ms", shutdownTimeoutMs)
                .put("cluster", cluster.enabled()).put("cluster_name", cluster.name())
                .put("cluster_host", cluster.host()).put("cluster_port", cluster.port())
                .put("cluster_members", String.join(",", cluster.members()))
                .put("store_role", cluster.storeRole().name().toLowerCase());
    }

    public Settings withNodeId(String id) {
        return new Settings(id, httpHost, httpPort, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion,
                dynamoTable, dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs,
                requestTimeoutMs, storeTimeoutMs, authTokens, shutdownTimeoutMs, cluster);
    }

    public Settings withHttpPort(int port) {
        return new Settings(nodeId, httpHost, port, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion,
                dynamoTable, dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs,
                requestTimeoutMs, storeTimeoutMs, authTokens, shutdownTimeoutMs, cluster);
    }
}
