package lake.iceberg.rest;

import lake.storage.CredentialVendor;
import lake.storage.S3Location;
import lake.storage.StorageAccessException;
import lake.storage.VendedCredentials;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.credentials.Credential;
import org.apache.iceberg.rest.credentials.ImmutableCredential;
import org.apache.iceberg.rest.responses.ImmutableLoadCredentialsResponse;
import org.apache.iceberg.rest.responses.LoadCredentialsResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a load or create hands an engine for the table's storage when it asks
 * ({@code X-Iceberg-Access-Delegation: vended-credentials}): credentials limited to the table's
 * location, read-write for a caller that may commit to it, read-only otherwise, with the endpoint
 * that refreshes them ({@code loadCredentials}). Only {@code s3://} locations get them; a
 * {@code file:} table is answered as without delegation.
 */
final class StorageDelegation {
    /** How long a request waits for STS (its own call is bounded at 10 s). */
    static final long WAIT_MS = 15_000;

    private final CredentialVendor vendor;
    private final String s3Endpoint;

    /** @param vendor {@code null}: no vending configured; @param s3Endpoint the S3 endpoint engines are told ({@code null}: AWS's) */
    StorageDelegation(CredentialVendor vendor, String s3Endpoint) {
        this.vendor = vendor;
        this.s3Endpoint = s3Endpoint;
    }

    boolean vends() {
        return vendor != null;
    }

    /** {@code base} with credentials for its table added, when the request asked, vending is on and the table is in S3. */
    LoadTableResponse delegate(IcebergRequest r, LoadTableResponse base, TableIdentifier id, boolean write) {
        if (!r.wantsVendedCredentials() || vendor == null) return base;
        TableMetadata metadata = base.tableMetadata();
        var at = S3Location.of(metadata.location());
        if (at.isEmpty()) return base;
        VendedCredentials c = vend(at.get(), write);
        Map<String, String> config = new LinkedHashMap<>(base.config());
        config.putAll(engineConfig(id));
        config.putAll(c.config());
        return LoadTableResponse.builder().withTableMetadata(metadata).addAllConfig(config).addCredential(credential(c)).build();
    }

    /** {@code loadCredentials}: fresh credentials for the table's location (none for a table outside S3). */
    LoadCredentialsResponse credentials(TableMetadata metadata, boolean write) {
        if (vendor == null) {
            throw new org.apache.iceberg.exceptions.NotFoundException("this catalog vends no credentials (iceberg-vending-role-arn is not set)");
        }
        var at = S3Location.of(metadata.location());
        ImmutableLoadCredentialsResponse.Builder b = ImmutableLoadCredentialsResponse.builder();
        at.ifPresent(l -> b.addCredentials(credential(vend(l, write))));
        return b.build();
    }

    private static Credential credential(VendedCredentials c) {
        return ImmutableCredential.builder().prefix(c.location().uri()).config(c.config()).build();
    }

    /** What an engine's S3 client needs beside the keys: the region, the endpoint, and where to refresh. */
    private Map<String, String> engineConfig(TableIdentifier id) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("client.region", vendor.settings().region());
        if (s3Endpoint != null) {
            c.put("s3.endpoint", s3Endpoint);
            c.put("s3.path-style-access", "true");
        }
        c.put("client.refresh-credentials-enabled", "true");
        c.put("client.refresh-credentials-endpoint", "v1/namespaces/" + RESTUtil.encodeNamespace(id.namespace()) + "/tables/"
                + RESTUtil.encodeString(id.name()) + "/credentials");
        return c;
    }

    private VendedCredentials vend(S3Location at, boolean write) {
        try {
            return vendor.credentials(at, write).get(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.iceberg.exceptions.ServiceUnavailableException("interrupted while vending credentials");
        } catch (TimeoutException e) {
            throw new org.apache.iceberg.exceptions.ServiceUnavailableException("STS did not answer within %d ms; retry", WAIT_MS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof StorageAccessException s && s.retryable()) {
                throw new org.apache.iceberg.exceptions.ServiceUnavailableException("%s", s.getMessage());
            }
            throw new org.apache.iceberg.exceptions.ServiceFailureException("%s", cause == null ? e.getMessage() : cause.getMessage());
        }
    }
}
