package lake.iceberg.rest;

import java.util.List;
import java.util.Map;

/**
 * One REST request as the router sees it: the method, the raw path segments after
 * {@code /iceberg} (still percent-encoded), the decoded query, the headers that matter, the body.
 * {@code accessDelegation} is the {@code X-Iceberg-Access-Delegation} header (or {@code null}).
 */
public record IcebergRequest(String method, List<String> segments, Map<String, String> query,
                             String ifNoneMatch, String idempotencyKey, String accept, byte[] body, String accessDelegation) {
    public IcebergRequest {
        segments = List.copyOf(segments);
        query = Map.copyOf(query);
        body = body == null ? new byte[0] : body.clone();
    }

    @Override public byte[] body() { return body.clone(); }

    /** Whether the client asked for vended credentials ({@code X-Iceberg-Access-Delegation}, a comma-separated list). */
    public boolean wantsVendedCredentials() {
        return delegationMode("vended-credentials");
    }

    /** Whether the client asked for S3 remote signing. */
    public boolean wantsRemoteSigning() {
        return delegationMode("remote-signing");
    }

    private boolean delegationMode(String mode) {
        if (accessDelegation == null) return false;
        for (String m : accessDelegation.split(",")) if (m.trim().equalsIgnoreCase(mode)) return true;
        return false;
    }

    /**
     * Whether the request creates a namespace ({@code POST …/namespaces}) or drops one
     * ({@code DELETE …/namespaces/{ns}}): admin actions, as on lake's own catalog API.
     */
    public boolean createsOrDropsNamespace() {
        int i = segments.indexOf("namespaces");
        if (i < 0) return false;
        int after = segments.size() - 1 - i;
        return (method.equals("POST") && after == 0) || (method.equals("DELETE") && after == 1 && !segments.get(i + 1).isEmpty());
    }

    /** {@code POST /v1/events}: the events proposal's query, which reads the change feed (served beside the router). */
    public boolean queriesEvents() {
        return method.equals("POST") && segments.equals(List.of("v1", "events"));
    }

    /** {@code POST …/tables/{t}/sign}: a request to sign an S3 request, which reads the catalog and changes nothing. */
    public boolean asksToSign() {
        return method.equals("POST") && segments.size() == 6 && segments.get(0).equals("v1") && segments.get(1).equals("namespaces")
                && segments.get(3).equals("tables") && segments.get(5).equals("sign");
    }

    /** Whether the request may change the catalog (every POST and DELETE but the events query and sign requests: the spec's mutations). */
    public boolean mutation() {
        if (queriesEvents() || asksToSign()) return false;
        return method.equals("POST") || method.equals("DELETE");
    }
}
