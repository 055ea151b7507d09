package lake.iceberg.delegation;

import lake.storage.CredentialVendor;
import lake.storage.RemoteSigner;
import lake.storage.SignCheck;
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
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a load or create hands an engine for the table's storage when it asks
 * ({@code X-Iceberg-Access-Delegation: vended-credentials} or {@code remote-signing}): credentials
 * limited to the table's location, read-write for a caller that may commit to it, read-only
 * otherwise, with the endpoint that refreshes them ({@code loadCredentials}); or the table's sign
 * route, which signs only what {@link SignCheck} allows. Only {@code s3://} locations get either;
 * a {@code file:} table is answered as without delegation.
 */
public final class StorageDelegation {
    /** What an engine asked for ({@code X-Iceberg-Access-Delegation}): vended credentials, remote signing, or both. */
    public record Asked(boolean vendedCredentials, boolean remoteSigning) {}

    /** How long a request waits for STS (its own call is bounded at 10 s). */
    static final long WAIT_MS = 15_000;

    private final CredentialVendor vendor;
    private final RemoteSigner signer;
    private final String s3Endpoint;
    private final String region;

    /**
     * @param vendor     {@code null}: no vending configured
     * @param signer     {@code null}: no remote signing configured
     * @param s3Endpoint the S3 endpoint engines are told ({@code null}: AWS's)
     * @param region     the warehouse's S3 region, which engines are told
     */
    public StorageDelegation(CredentialVendor vendor, RemoteSigner signer, String s3Endpoint, String region) {
        this.vendor = vendor;
        this.signer = signer;
        this.s3Endpoint = s3Endpoint;
        this.region = region;
    }

    public boolean vends() {
        return vendor != null;
    }

    public boolean signs() {
        return signer != null;
    }

    /** Whether a load or create answers with delegation: asked for, offered, and then without an ETag. */
    public boolean delegates(Asked r) {
        return (r.vendedCredentials() && vendor != null) || (r.remoteSigning() && signer != null);
    }

    /**
     * Why the table's storage is not delegated, or empty when it is: only a location in S3 that
     * the catalog assigned this table when it was created ({@code assignedLocation}; {@code null}
     * when it assigned none), and where the table still is. A location a create, register or
     * {@code set-location} chose may hold another table's files; an assigned one is never
     * assigned again, so credentials or signatures for it reach this table's files only.
     */
    public static Optional<String> notDelegable(TableMetadata metadata, String assignedLocation) {
        String location = trimmed(metadata.location());
        try {
            if (S3Location.of(location).isEmpty()) return Optional.of(NOT_IN_S3);
        } catch (IllegalArgumentException e) {
            return Optional.of("the table's location cannot be named in an access policy: " + e.getMessage());
        }
        if (assignedLocation == null) {
            return Optional.of("storage is delegated only for a table at the location the catalog assigned it when it was created;"
                    + " this table's location (" + location + ") was named by its creator, or the table was registered");
        }
        if (!location.equals(trimmed(assignedLocation))) {
            return Optional.of("storage is delegated only for a table at the location the catalog assigned it when it was created ("
                    + trimmed(assignedLocation) + "); this table has moved to " + location);
        }
        return Optional.empty();
    }

    /** The one reason that is not a refusal: a table outside S3 is answered as without delegation. */
    static final String NOT_IN_S3 = "the table is not in S3";

    private static String trimmed(String location) {
        String l = location == null ? "" : location;
        while (l.endsWith("/")) l = l.substring(0, l.length() - 1);
        return l;
    }

    /**
     * {@code base} with its table's storage delegated as the request asked: vended credentials when
     * asked and offered, else remote signing when asked and offered. A table outside S3 is answered
     * unchanged; one whose location the catalog did not assign it is refused ({@code refused} hears
     * why), unless {@code created}: a create that applied answers without delegation, never fails.
     */
    public LoadTableResponse delegate(Asked r, LoadTableResponse base, TableIdentifier id, boolean write, String assignedLocation,
                               boolean created, java.util.function.Consumer<String> refused) {
        TableMetadata metadata = base.tableMetadata();
        if (!delegates(r)) return base;
        Optional<String> no = notDelegable(metadata, assignedLocation);
        if (no.isPresent()) {
            if (NOT_IN_S3.equals(no.get()) || created) return base;
            refuse(refused, no.get());
        }
        S3Location at = S3Location.of(metadata.location()).orElseThrow();
        Map<String, String> config = new LinkedHashMap<>(base.config());
        config.putAll(engineConfig());
        if (r.vendedCredentials() && vendor != null) {
            config.put("client.refresh-credentials-enabled", "true");
            config.put("client.refresh-credentials-endpoint", tablePath(id) + "/credentials");
            VendedCredentials c;
            try {
                c = vend(at, write);
            } catch (RuntimeException stsFailed) {
                // The table exists now: answer it, with the endpoint that vends its credentials later.
                if (created) return LoadTableResponse.builder().withTableMetadata(metadata).addAllConfig(config).build();
                throw stsFailed;
            }
            config.putAll(c.config());
            return LoadTableResponse.builder().withTableMetadata(metadata).addAllConfig(config)
                    .addCredential(credential(c, metadata.location())).build();
        }
        // Remote signing: the engine's signer client posts each S3 request to the table's sign route
        // (its base is the catalog's own uri, as s3.signer.uri is left unset).
        config.put("s3.remote-signing-enabled", "true");
        config.put("s3.signer.endpoint", tablePath(id) + "/sign");
        return LoadTableResponse.builder().withTableMetadata(metadata).addAllConfig(config).build();
    }

    /**
     * {@code POST …/tables/{t}/sign}: the engine's S3 request signed, or the reason it is refused
     * ({@code refused} hears it, to count and audit it, before the {@code 403}).
     */
    public String sign(TableMetadata metadata, boolean write, String body, String assignedLocation, java.util.function.Consumer<String> refused) {
        if (signer == null) throw new org.apache.iceberg.exceptions.NotFoundException("this catalog signs no requests (iceberg-remote-signing is off)");
        org.apache.iceberg.rest.requests.RemoteSignRequest request;
        try {
            request = org.apache.iceberg.rest.requests.RemoteSignRequestParser.fromJson(body);
        } catch (RuntimeException e) {
            throw new org.apache.iceberg.exceptions.BadRequestException("Invalid sign request: %s", e.getMessage());
        }
        if (request.provider() != null && !request.provider().equals("s3")) {
            return refuse(refused, "provider '" + request.provider() + "' is not s3");
        }
        Optional<String> no = notDelegable(metadata, assignedLocation);
        if (no.isPresent()) return refuse(refused, no.get());
        S3Location at = S3Location.of(metadata.location()).orElseThrow();
        RemoteSigner.Outcome outcome = signer.sign(at, write,
                new SignCheck.Request(request.region(), request.method(), request.uri(), request.headers(), request.body()));
        if (outcome instanceof RemoteSigner.Outcome.Refused refusal) return refuse(refused, refusal.reason());
        Map<String, java.util.List<String>> headers = ((RemoteSigner.Outcome.Signed) outcome).headers();
        return org.apache.iceberg.rest.responses.RemoteSignResponseParser.toJson(org.apache.iceberg.rest.responses.ImmutableRemoteSignResponse.builder()
                .uri(request.uri()).headers(headers).build());
    }

    private static String refuse(java.util.function.Consumer<String> refused, String reason) {
        refused.accept(reason);
        throw new org.apache.iceberg.exceptions.ForbiddenException("Forbidden: %s", reason);
    }

    private static String tablePath(TableIdentifier id) {
        return "v1/namespaces/" + RESTUtil.encodeNamespace(id.namespace()) + "/tables/" + RESTUtil.encodeString(id.name());
    }

    /** {@code loadCredentials}: fresh credentials for the table's location (none for a table outside S3). */
    public LoadCredentialsResponse credentials(TableMetadata metadata, boolean write, String assignedLocation, java.util.function.Consumer<String> refused) {
        if (vendor == null) {
            throw new org.apache.iceberg.exceptions.NotFoundException("this catalog vends no credentials (iceberg-vending-role-arn is not set)");
        }
        ImmutableLoadCredentialsResponse.Builder b = ImmutableLoadCredentialsResponse.builder();
        Optional<String> no = notDelegable(metadata, assignedLocation);
        if (no.isPresent()) {
            if (NOT_IN_S3.equals(no.get())) return b.build();
            refuse(refused, no.get());
        }
        b.addCredentials(credential(vend(S3Location.of(metadata.location()).orElseThrow(), write), metadata.location()));
        return b.build();
    }

    /** A credential for the table's own location, in the scheme the table uses ({@code s3a:} stays {@code s3a:}). */
    private static Credential credential(VendedCredentials c, String tableLocation) {
        return ImmutableCredential.builder().prefix(trimmed(tableLocation)).config(c.config()).build();
    }

    /** What an engine's S3 client needs beside keys or a signer: the region and, for an S3-compatible store, its endpoint. */
    private Map<String, String> engineConfig() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("client.region", region);
        if (s3Endpoint != null) {
            c.put("s3.endpoint", s3Endpoint);
            c.put("s3.path-style-access", "true");
        }
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
