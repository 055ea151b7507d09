package lake.config;

import io.vertx.core.json.JsonObject;

import java.nio.file.Path;

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
        ClusterSettings cluster) {

    public enum StoreType { ROCKS, DYNAMO }

    /** The settings as JSON, file keys; for logs and {@code --print-config}. Holds no secrets. */
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
                .put("cluster", cluster.enabled()).put("cluster_name", cluster.name())
                .put("cluster_host", cluster.host()).put("cluster_port", cluster.port())
                .put("cluster_members", String.join(",", cluster.members()))
                .put("store_role", cluster.storeRole().name().toLowerCase());
    }

    public Settings withNodeId(String id) {
        return new Settings(id, httpHost, httpPort, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion,
                dynamoTable, dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs,
                requestTimeoutMs, storeTimeoutMs, cluster);
    }

    public Settings withHttpPort(int port) {
        return new Settings(nodeId, httpHost, port, dataDir, store, rocksGroupCommit, dynamoEndpoint, dynamoRegion,
                dynamoTable, dynamoCreateTable, leaseKey, leaseTtlMs, leaseRenewMs, leaseSafetyMarginMs,
                requestTimeoutMs, storeTimeoutMs, cluster);
    }
}
