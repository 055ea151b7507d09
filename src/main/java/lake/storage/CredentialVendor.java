package lake.storage;

import lake.config.access.StorageAccessSettings;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsAsyncClient;
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest;
import software.amazon.awssdk.services.sts.model.Credentials;
import software.amazon.awssdk.services.sts.model.StsException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Vends S3 credentials per table location and rights through STS {@code AssumeRole} (the SDK's
 * async client; the caller decides whether to wait: the Iceberg routes do, on their worker
 * threads), each with the location's {@link SessionPolicy}.
 *
 * <p>Answers are cached per location and rights, and handed out while more than a margin of
 * their life remains (half their duration, at most ten minutes: Iceberg's S3 client refreshes five
 * minutes before expiry, so what it is given stays usable). One call to STS is in flight per
 * location and rights however many requests ask; a failed call is not cached.
 */
public final class CredentialVendor implements AutoCloseable {
    /** Cached answers kept at most; past it, those no longer worth handing out are dropped first, then any. */
    static final int MAX_CACHED = 10_000;
    /** Each session names its table (a digest of the location) and rights, so CloudTrail tells them apart. */
    static String sessionName(S3Location at, boolean write) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(at.uri().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "lake-" + java.util.HexFormat.of().formatHex(d, 0, 8) + (write ? "-rw" : "-ro");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Key(S3Location location, boolean write) {}

    private final StorageAccessSettings settings;
    private final StsAsyncClient sts;
    private final LongSupplier clock;
    private final long marginMs;
    private final ConcurrentHashMap<Key, CompletableFuture<VendedCredentials>> cache = new ConcurrentHashMap<>();

    public CredentialVendor(StorageAccessSettings settings, StsAsyncClient sts, LongSupplier clock) {
        if (!settings.vending()) throw new IllegalArgumentException("no role to assume: iceberg-vending-role-arn is not set");
        this.settings = settings;
        this.sts = sts;
        this.clock = clock;
        this.marginMs = Math.min(settings.durationSeconds() * 1000L / 2, Duration.ofMinutes(10).toMillis());
    }

    /** A vendor with the SDK's async STS client: the node's own credentials from the SDK's default chain. */
    public static CredentialVendor create(StorageAccessSettings settings) {
        var b = StsAsyncClient.builder().region(Region.of(settings.region()))
                // A builder, not a built client: the SDK then owns the client and closes it with the STS client.
                .httpClientBuilder(software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(5)))
                .overrideConfiguration(c -> c.apiCallTimeout(Duration.ofSeconds(10)));
        if (settings.stsEndpoint() != null) b.endpointOverride(settings.stsEndpoint());
        return new CredentialVendor(settings, b.build(), System::currentTimeMillis);
    }

    public StorageAccessSettings settings() {
        return settings;
    }

    /** Credentials for {@code at}: read-write when {@code write}, read-only otherwise. */
    public CompletableFuture<VendedCredentials> credentials(S3Location at, boolean write) {
        Key key = new Key(at, write);
        CompletableFuture<VendedCredentials> cached = cache.get(key);
        if (usable(cached)) return cached;
        CompletableFuture<VendedCredentials> mine = new CompletableFuture<>();
        CompletableFuture<VendedCredentials> chosen = cache.compute(key, (k, old) -> usable(old) ? old : mine);
        if (chosen != mine) return chosen;
        if (cache.size() > MAX_CACHED) trim();
        assume(at, write).whenComplete((c, e) -> {
            if (e == null) {
                mine.complete(c);
                return;
            }
            cache.remove(key, mine);
            mine.completeExceptionally(e);
        });
        return mine;
    }

    /** In flight, or answered with more than the margin left. */
    private boolean usable(CompletableFuture<VendedCredentials> f) {
        if (f == null) return false;
        if (!f.isDone()) return true;
        if (f.isCompletedExceptionally()) return false;
        return f.join().expiresAtMs() - clock.getAsLong() > marginMs;
    }

    private void trim() {
        cache.entrySet().removeIf(e -> e.getValue().isDone() && !usable(e.getValue()));
        if (cache.size() > MAX_CACHED) cache.clear();
    }

    private CompletableFuture<VendedCredentials> assume(S3Location at, boolean write) {
        AssumeRoleRequest request = AssumeRoleRequest.builder().roleArn(settings.roleArn()).roleSessionName(sessionName(at, write))
                .durationSeconds(settings.durationSeconds()).policy(SessionPolicy.of(at, write)).build();
        CompletableFuture<VendedCredentials> out;
        try {
            out = sts.assumeRole(request).thenApply(r -> {
                Credentials c = r.credentials();
                if (c == null || c.expiration() == null) throw new StorageAccessException(true, "STS answered AssumeRole without credentials", null);
                return new VendedCredentials(at, write, c.accessKeyId(), c.secretAccessKey(), c.sessionToken(), c.expiration().toEpochMilli());
            });
        } catch (RuntimeException e) {
            out = CompletableFuture.failedFuture(e);
        }
        return out.exceptionallyCompose(e -> CompletableFuture.failedFuture(typed(e)));
    }

    /** STS's refusal (4xx but throttling) is permanent; throttling, 5xx and transport failures are retryable. */
    static StorageAccessException typed(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof StorageAccessException s) return s;
        if (cause instanceof StsException s) {
            int status = s.statusCode();
            boolean throttled = s.isThrottlingException() || status == 429;
            String code = s.awsErrorDetails() == null || s.awsErrorDetails().errorCode() == null ? "HTTP " + status : s.awsErrorDetails().errorCode();
            return new StorageAccessException(throttled || status >= 500, "STS refused to vend credentials (" + code + "): " + s.getMessage(), s);
        }
        if (cause instanceof SdkClientException) return new StorageAccessException(true, "STS unreachable: " + cause.getMessage(), cause);
        return new StorageAccessException(false, "vending credentials failed: " + cause, cause);
    }

    @Override
    public void close() {
        sts.close();
    }
}
