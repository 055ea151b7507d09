package lake.iceberg.rest;

import lake.catalog.CatalogPort;
import lake.iceberg.IcebergCatalog;
import lake.iceberg.MetadataCache;
import lake.iceberg.files.NioFileIO;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.ViewMetadata;

import java.security.SecureRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One node's Iceberg REST catalog: the bounded worker threads every blocking Iceberg call runs on
 * (never an event loop), the node-wide caches of parsed metadata files, the warehouse and its
 * {@link FileIO}. Each HTTP ingress instance gets its own {@link IcebergRouter} over its own
 * {@link CatalogPort} ({@link #router}); all share this.
 */
public final class IcebergService implements AutoCloseable {
    /** Requests waiting for a worker beyond this are refused with 503, never queued without bound. */
    static final int QUEUE = 1024;
    static final int CACHED_METADATA_FILES = 1024;

    private final String warehouse;
    private final FileIO io;
    private final long timeoutMs;
    private final ThreadPoolExecutor workers;
    private final MetadataCache<TableMetadata> tables = new MetadataCache<>(CACHED_METADATA_FILES);
    private final MetadataCache<ViewMetadata> views = new MetadataCache<>(CACHED_METADATA_FILES);
    private final SecureRandom random = new SecureRandom();
    private final lake.storage.CredentialVendor vendor;
    private final lake.storage.RemoteSigner signer;
    private final lake.iceberg.delegation.StorageDelegation storage;
    /** Dropped tables' retention (the management listing's expiry) and orphan sweeps. */
    private final lake.config.LifecycleSettings lifecycle;

    /**
     * @param warehouse where tables without a requested location go: {@code file:///…} or {@code s3://…}
     * @param threads   worker threads (blocking Iceberg calls, metadata file reads and writes)
     * @param timeoutMs how long one catalog call may take before a write is commit-state-unknown
     */
    public IcebergService(String warehouse, FileIO io, int threads, long timeoutMs) {
        this(warehouse, io, threads, timeoutMs, null, null, null, "us-east-1", lake.config.LifecycleSettings.DEFAULTS);
    }

    /**
     * @param vendor     vends storage credentials to engines that ask ({@code null}: none; closed with this service)
     * @param signer     signs engines' S3 requests for a table's objects ({@code null}: none)
     * @param s3Endpoint the S3 endpoint engines are told with delegated access ({@code null}: AWS's)
     * @param s3Region   the warehouse's S3 region, which engines are told
     * @param lifecycle  dropped tables' retention (the management listing's expiry) and orphan sweeps
     */
    public IcebergService(String warehouse, FileIO io, int threads, long timeoutMs, lake.storage.CredentialVendor vendor,
                          lake.storage.RemoteSigner signer, String s3Endpoint, String s3Region, lake.config.LifecycleSettings lifecycle) {
        this.lifecycle = lifecycle;
        if (threads < 1) throw new IllegalArgumentException("threads must be positive");
        this.vendor = vendor;
        this.signer = signer;
        this.storage = new lake.iceberg.delegation.StorageDelegation(vendor, signer, s3Endpoint, s3Region);
        this.warehouse = warehouse;
        this.io = io;
        this.timeoutMs = timeoutMs;
        AtomicInteger n = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "lake-iceberg-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** The FileIO for a warehouse: {@link NioFileIO} for {@code file:}, Iceberg's S3FileIO for {@code s3://}. */
    public static FileIO fileIO(String warehouse, String s3Endpoint) {
        if (NioFileIO.isLocal(warehouse)) return new NioFileIO();
        if (warehouse.startsWith("s3://") || warehouse.startsWith("s3a://")) {
            String region = System.getenv("AWS_REGION") != null ? System.getenv("AWS_REGION") : System.getProperty("aws.region", "us-east-1");
            // Our own S3 client (so iceberg-aws's client factories, which load KMS, Glue and STS
            // classes, are never touched): the JDK's HTTP transport, the SDK's default credentials,
            // and for an S3-compatible endpoint, path-style addressing.
            org.apache.iceberg.util.SerializableSupplier<software.amazon.awssdk.services.s3.S3Client> client = () -> {
                var b = software.amazon.awssdk.services.s3.S3Client.builder()
                        .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                        .region(software.amazon.awssdk.regions.Region.of(region));
                if (s3Endpoint != null) b.endpointOverride(java.net.URI.create(s3Endpoint)).forcePathStyle(true);
                return b.build();
            };
            org.apache.iceberg.aws.s3.S3FileIO io = new org.apache.iceberg.aws.s3.S3FileIO(client);
            // A purge deletes a batch of up to 1,000 keys in one DeleteObjects call, S3's limit.
            io.initialize(java.util.Map.of(org.apache.iceberg.aws.s3.S3FileIOProperties.DELETE_BATCH_SIZE, "1000"));
            return io;
        }
        throw new IllegalArgumentException("unsupported Iceberg warehouse " + warehouse + " (file: or s3:// only)");
    }

    /** The warehouse's FileIO (the purge worker deletes through it, confined). */
    public FileIO io() {
        return io;
    }

    /** A router whose catalog reads and writes through {@code port}; {@code swept} is told what each orphan sweep found. */
    public IcebergRouter router(CatalogPort port, LongSupplier wallMillis, Runnable metricsReported, lake.orphans.OrphanSweep.Counts swept) {
        lake.catalog.Catalog catalog = new lake.catalog.Catalog(port, warehouse, wallMillis, random);
        IcebergCatalog iceberg = new IcebergCatalog(catalog, io, tables, views, timeoutMs);
        return new IcebergRouter(iceberg, metricsReported, wallMillis, storage, lifecycle.tableRetentionMs(),
                new lake.orphans.OrphanSweep(iceberg, wallMillis, lifecycle.orphans().minAgeMs(), timeoutMs, swept));
    }

    /** Runs {@code request} on a worker; a full queue answers 503 at once. */
    public CompletableFuture<IcebergResponse> submit(IcebergRouter router, IcebergRequest request, IcebergAccess access) {
        try {
            return CompletableFuture.supplyAsync(() -> router.handle(request, access), workers);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(IcebergRouter.error(
                    new org.apache.iceberg.exceptions.ServiceUnavailableException("Iceberg workers busy; retry")));
        }
    }

    /** The node's orphan sweep settings ({@code orphan_*}). */
    public lake.config.LifecycleSettings.Orphans orphans() {
        return lifecycle.orphans();
    }

    /** One sweep of every Iceberg table through {@code router}'s catalog, on a worker (the leader's periodic sweep). */
    public CompletableFuture<lake.orphans.OrphanSweep.Round> sweepOrphans(IcebergRouter router, boolean delete, java.util.function.BooleanSupplier goOn) {
        try {
            return CompletableFuture.supplyAsync(() -> router.orphans().sweepAll(delete, goOn), workers);
        } catch (RejectedExecutionException busy) {
            return CompletableFuture.failedFuture(busy);
        }
    }

    @Override
    public void close() {
        workers.shutdown();
        if (vendor != null) vendor.close();
        if (signer != null) signer.close();
    }
}
