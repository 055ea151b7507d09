package lake.client;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.streams.ReadStream;
import lake.client.model.ClientOptions;
import lake.client.model.MetasrvException;
import lake.client.model.NodeHealth;
import lake.client.model.Txn;
import lake.client.transport.BlockingHttpTransport;
import lake.client.transport.BusTransport;
import lake.client.transport.VertxHttpTransport;
import lake.wire.ClusterInfo;
import lake.wire.Entry;
import lake.wire.EntryPage;
import lake.wire.LeaderInfo;
import lake.wire.WriteResult;
import lake.wire.catalog.CatalogSnapshot;
import lake.wire.catalog.NamePage;
import lake.wire.catalog.Namespace;
import lake.wire.catalog.Purge;
import lake.wire.catalog.Table;
import lake.wire.catalog.TableChange;
import lake.wire.catalog.Tombstone;
import lake.wire.catalog.TombstonePage;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The Metasrv API as Java: every operation of {@code docs/http-api.md} and {@code docs/catalog.md},
 * each returning a Vert.x {@link Future}. Values are {@code byte[]} (exact bytes; base64 is the
 * wire's business), with UTF-8 {@code String} conveniences.
 *
 * <p>Results are {@code lake.wire}'s records, the shapes the server renders its replies with
 * ({@code Json.write(result.toMap())} is the API's JSON of one). Outcomes: a condition that did
 * not hold is a {@link WriteResult} with {@code applied == false};
 * a missing key an empty {@code Optional}; every refusal and fault a typed {@link MetasrvException}.
 * Retries follow one rule (see {@code docs/client.md}): a call is sent again only when it certainly
 * did not apply ({@code not_leader}, {@code backend_unavailable}, {@code contended},
 * {@code too_many_waiters}, a connection refused) or it is a read; a write whose answer did not
 * come fails with {@link MetasrvException.OutcomeUnknown} and is never sent again —
 * {@link #resolve(MetasrvException.OutcomeUnknown)} reads its keys back.
 *
 * <p>Transports: {@link #http(Vertx, ClientOptions)} (non-blocking, a list of endpoints),
 * {@link #bus(Vertx, ClientOptions)} (the event bus of a Vert.x instance clustered with Metasrv),
 * and {@link #httpBlocking(ClientOptions)} (the JDK's HTTP client on the caller's thread, for
 * command-line tools: no event loop to start). Implementations are thread-safe.
 */
public interface MetasrvClient extends AutoCloseable {

    /** HTTP over {@code vertx}'s non-blocking client; {@link #close()} leaves {@code vertx} running. */
    static MetasrvClient http(Vertx vertx, ClientOptions options) {
        return new DefaultClient(new VertxHttpTransport(vertx, false, options), options);
    }

    /** HTTP over a Vert.x instance of its own, closed with the client. */
    static MetasrvClient http(ClientOptions options) {
        return new DefaultClient(new VertxHttpTransport(Vertx.vertx(), true, options), options);
    }

    /**
     * The public event-bus API through {@code vertx}, which must be clustered with the Metasrv
     * nodes (or be a node's own instance). {@code options.endpoints()} is not used.
     */
    static MetasrvClient bus(Vertx vertx, ClientOptions options) {
        return new DefaultClient(new BusTransport(vertx, options), options);
    }

    /**
     * HTTP on the calling thread (the JDK's {@code HttpURLConnection}): every method blocks until
     * its answer and returns a completed future. Starts in milliseconds; never call it from a
     * Vert.x event loop.
     */
    static MetasrvClient httpBlocking(ClientOptions options) {
        return new DefaultClient(new BlockingHttpTransport(options), options);
    }

    // ---- keys and values

    /** The key's value, or empty when the key is absent. Reads are strongly consistent. */
    Future<Optional<Entry>> get(String key);

    /** {@link #get(String)} as UTF-8 text. */
    default Future<Optional<String>> getString(String key) {
        return get(key).map(o -> o.map(Entry::valueUtf8));
    }

    /** One page (≤ {@code limit}, 1–1000) of the keys under {@code prefix}, from {@code continuation} ({@code null}: the first). */
    default Future<EntryPage> scan(String prefix, String continuation, int limit) {
        return scan(prefix, continuation, limit, false);
    }

    /**
     * As {@link #scan(String, String, int)}; with {@code hideSystem}, without Metasrv's own keys
     * (the catalog's {@code tbl/}, {@code drop/}, {@code __lake_internal/} and the lease key) unless
     * {@code prefix} lies in their range. Pages may then be short, or empty with a continuation: a
     * listing ends only where the continuation is null.
     */
    Future<EntryPage> scan(String prefix, String continuation, int limit, boolean hideSystem);

    /** Every page of the keys under {@code prefix}, {@code pageSize} at a time, as a paged iterator. */
    default Pages<EntryPage> scanPages(String prefix, int pageSize) {
        return scanPages(prefix, pageSize, false);
    }

    /** As {@link #scanPages(String, int)}, without Metasrv's own keys when {@code hideSystem} (see {@link #scan(String, String, int, boolean)}). */
    default Pages<EntryPage> scanPages(String prefix, int pageSize, boolean hideSystem) {
        return new Pages<>(c -> scan(prefix, c, pageSize, hideSystem), EntryPage::continuation);
    }

    /** Every page of the keys under {@code prefix} as a stream (back-pressured: a page is fetched only on demand). */
    default ReadStream<EntryPage> scanStream(String prefix, int pageSize) {
        return scanPages(prefix, pageSize).stream();
    }

    /** Every entry under {@code prefix}, all pages read. */
    default Future<List<Entry>> scanAll(String prefix) {
        return scanPages(prefix, 1000).collect(EntryPage::entries);
    }

    /** Writes {@code value} if the key holds exactly {@code expected} ({@code null}: the key must be absent). */
    Future<WriteResult> cas(String key, byte[] expected, byte[] value);

    /** {@link #cas(String, byte[], byte[])} with UTF-8 text. */
    default Future<WriteResult> cas(String key, String expected, String value) {
        return cas(key, expected == null ? null : utf8(expected), utf8(value));
    }

    /** Writes {@code value} only if the key is absent. */
    default Future<WriteResult> create(String key, byte[] value) { return cas(key, null, value); }

    /** {@link #create(String, byte[])} with UTF-8 text. */
    default Future<WriteResult> create(String key, String value) { return create(key, utf8(value)); }

    /** Writes {@code value} whatever the key holds: a one-operation transaction. */
    default Future<WriteResult> put(String key, byte[] value) { return txn(Txn.builder().put(key, value).build()); }

    /** {@link #put(String, byte[])} with UTF-8 text. */
    default Future<WriteResult> put(String key, String value) { return put(key, utf8(value)); }

    /** Deletes the key if it holds exactly {@code expected}. */
    Future<WriteResult> delete(String key, byte[] expected);

    /** {@link #delete(String, byte[])} with UTF-8 text. */
    default Future<WriteResult> delete(String key, String expected) { return delete(key, utf8(expected)); }

    /** Applies every operation of {@code txn} in one atomic, fenced step, or none. */
    Future<WriteResult> txn(Txn txn);

    // ---- the change feed (docs/watch.md)

    /**
     * One page of the change feed under {@code prefix} after revision {@code after}, waiting up to
     * {@code waitMs} for a change; resume with {@code after = page.cursor()}. Fails
     * {@link MetasrvException.Compacted} when records after {@code after} were compacted.
     */
    Future<lake.wire.WatchEvent.Page> watchPage(String prefix, long after, int limit, long waitMs);

    /** The feed's current revision: watching after it shows every change made since. */
    Future<Long> currentRevision();

    /** One page of the catalog's typed events after {@code after} ({@code GET /v1/catalog/events}), waiting up to {@code waitMs}. */
    Future<lake.wire.WatchEvent.Page> catalogEventsPage(long after, int limit, long waitMs);

    /** Watches the catalog's typed events after {@code after}, as {@link #watch} does a prefix. */
    default Watcher watchCatalog(long after, Watcher.Listener listener) {
        return Watcher.catalog(this, after, listener);
    }

    /**
     * Watches {@code prefix} after {@code after} until cancelled: every change, once, in revision
     * order, across reconnects and leader failover (each request resumes after the last record
     * read). Ends with {@link MetasrvException.Compacted} when it fell behind retention.
     */
    default Watcher watch(String prefix, long after, Watcher.Listener listener) {
        return Watcher.start(this, prefix, after, listener);
    }

    /**
     * A consistent start for a cache of {@code prefix}: reads the current revision, lists the
     * prefix (handed to {@code snapshot}), then watches after that revision. Changes the listing
     * already shows may be replayed; applying each event's values in order ends exact.
     */
    default Future<Watcher> watchFromCurrent(String prefix, java.util.function.Consumer<List<Entry>> snapshot, Watcher.Listener listener) {
        return currentRevision().compose(revision -> scanAll(prefix).map(entries -> {
            snapshot.accept(entries);
            return watch(prefix, revision, listener);
        }));
    }

    // ---- the service

    /**
     * The grants stored at runtime for {@code principal} ({@code null}: every principal's, which
     * needs an admin; a principal may list its own). docs/operations.md, "Grants at runtime".
     */
    default Future<List<lake.wire.grants.Grant>> grants(String principal) {
        return grants(principal, null);
    }

    /**
     * The grants stored at runtime for {@code principal} ({@code null}: every principal's) on
     * {@code namespace} and beneath it: an admin's, or those within a namespace the caller holds
     * {@code manage-grants} on.
     */
    Future<List<lake.wire.grants.Grant>> grants(String principal, String namespace);

    /**
     * Adds {@code privileges} (labels: read, write, create, drop, manage-grants) on namespace
     * {@code namespace} — or on its table or view {@code name}, when not {@code null} — to
     * {@code principal}'s stored grants. Applies on every node without a restart.
     */
    Future<lake.wire.grants.GrantChange> grant(String principal, String namespace, String name, List<String> privileges);

    /** Removes {@code privileges} ({@code null}: every one) on the object from {@code principal}'s stored grants. */
    Future<lake.wire.grants.GrantChange> revoke(String principal, String namespace, String name, List<String> privileges);

    /** The lease as the answering node sees it. */
    Future<LeaderInfo> leader();

    /** The cluster's members. */
    Future<ClusterInfo> cluster();

    /** Asks the answering node to hand its lease over; {@code false} when it was not leading. */
    Future<Boolean> resign();

    /** Each endpoint's health and readiness (the bus: the answering node's). Never fails. */
    Future<List<NodeHealth>> health();

    // ---- epoch pinning

    /**
     * A view of this client whose every write carries {@code epoch} (unsigned 64-bit): a write
     * decided under any other epoch is refused with {@link MetasrvException.EpochMismatch} and
     * writes nothing. Shares this client's connections; closing the view does nothing.
     */
    MetasrvClient withEpoch(long epoch);

    /**
     * Reads the current leader's epoch and returns a view pinned to it ({@link #withEpoch(long)});
     * fails with {@link MetasrvException.NotLeader} when there is no leader.
     */
    Future<MetasrvClient> pinCurrentEpoch();

    /** The epoch this client's writes carry, if any (pinned by {@link #withEpoch(long)} or {@code pinFirstEpoch}). */
    OptionalLong pinnedEpoch();

    // ---- unknown outcomes

    /**
     * Reads back the keys of a write that failed with {@link MetasrvException.OutcomeUnknown} and
     * tells whether the store now holds what it would have produced ({@link ReadBack}). Fails with
     * {@link IllegalArgumentException} if the exception carries no KV write (a catalog write:
     * resolve the table or namespace instead).
     */
    Future<ReadBack> resolve(MetasrvException.OutcomeUnknown unknown);

    // ---- the catalog

    Future<Namespace> createNamespace(String namespace, Map<String, String> properties);

    Future<NamePage> listNamespaces(String continuation, int limit);

    /** Every namespace name, page by page. */
    default Pages<NamePage> namespacePages(int pageSize) {
        return new Pages<>(c -> listNamespaces(c, pageSize), NamePage::continuation);
    }

    Future<Namespace> getNamespace(String namespace);

    Future<Namespace> dropNamespace(String namespace);

    /** Creates a table; {@code columns} as {@code "name:type"}; {@code engine} {@code null} means {@code lance}. */
    Future<Table> createTable(String namespace, String name, List<String> columns, String engine);

    Future<NamePage> listTables(String namespace, String continuation, int limit);

    /** Every table name of {@code namespace}, page by page. */
    default Pages<NamePage> tablePages(String namespace, int pageSize) {
        return new Pages<>(c -> listTables(namespace, c, pageSize), NamePage::continuation);
    }

    /**
     * The Iceberg table {@code name} of namespace {@code namespace} (catalog names, as {@link #getTable}
     * takes them) as the node's Iceberg REST catalog loads it: its metadata file and that file's
     * schema. HTTP only (the Iceberg catalog is not on the event bus: there it fails with
     * {@link UnsupportedOperationException}); a table of another engine is refused by the node.
     */
    Future<lake.client.model.IcebergTable> icebergTable(String namespace, String name);

    /** The table's registration now. */
    Future<Table> getTable(String namespace, String name);

    /** A long poll: answers once the table's version differs from {@code knownVersion}, or after {@code waitMs} (≤ 60,000) unchanged. */
    Future<TableChange> awaitTableChange(String namespace, String name, long knownVersion, long waitMs);

    /** Moves the table from {@code expectedVersion} to {@code version}; {@code incarnationId} {@code null}: any incarnation. */
    Future<Table> commitVersion(String namespace, String name, long expectedVersion, long version, String incarnationId);

    /** Drops the table: a tombstone keeps its registration for the retention period (undrop restores it); nothing is queued for purge. */
    default Future<Tombstone> dropTable(String namespace, String name) {
        return dropTable(namespace, name, false);
    }

    /**
     * Drops the table; with {@code purge}, its files are also queued for the leader's purge worker
     * in the drop's own transaction ({@code DELETE …?purge=true}), as {@link #purgeTable} would —
     * {@link #listPurges} shows the job. Answers the tombstone either way.
     */
    Future<Tombstone> dropTable(String namespace, String name, boolean purge);

    /** A consistent snapshot of every table. */
    Future<CatalogSnapshot> snapshot();

    /** A long poll: the snapshot once the generation differs from {@code knownGeneration}, or not modified after {@code waitMs}. */
    Future<CatalogSnapshot> awaitSnapshot(String knownGeneration, long waitMs);

    Future<TombstonePage> listTombstones(String continuation, int limit);

    /** Every tombstone, page by page. */
    default Pages<TombstonePage> tombstonePages(int pageSize) {
        return new Pages<>(c -> listTombstones(c, pageSize), TombstonePage::continuation);
    }

    Future<Tombstone> purgeTombstone(String namespace, String name, String incarnationId);

    /**
     * Queues the purge of dropped table {@code namespace.name}, incarnation {@code incarnationId},
     * now, its retention notwithstanding (admins only): the leader's purge worker deletes its files
     * in fenced batches, then its tombstone. Answers the job as it is after; a job already queued or
     * purging is answered as it is. Unknown tombstone: {@link MetasrvException.NotFound}.
     */
    Future<Purge> purgeTable(String namespace, String name, String incarnationId);

    /** One page (≤ {@code limit}, 1–1000) of the purge queue in key order, from {@code continuation} ({@code null}: the first). */
    Future<Purge.Page> listPurges(String continuation, int limit);

    /** Every job of the purge queue, page by page. */
    default Pages<Purge.Page> purgePages(int pageSize) {
        return new Pages<>(c -> listPurges(c, pageSize), Purge.Page::continuation);
    }

    /**
     * Restores dropped table {@code namespace.name} (incarnation {@code incarnationId}; {@code null}:
     * the name's only dropped one) as {@code toNamespace.toName} ({@code null}s: its own name), the
     * same incarnation, location and metadata; refused while that name is taken.
     */
    Future<Table> undropTable(String namespace, String name, String incarnationId, String toNamespace, String toName);

    /** Closes the connections (and the Vert.x instance the client created itself). */
    Future<Void> closeAsync();

    /**
     * {@link #closeAsync()}, waiting at most 10 s; on a Vert.x event-loop thread it starts the close
     * and returns at once (waiting there would block the loop the close may need).
     */
    @Override
    default void close() {
        Future<Void> closing = closeAsync();
        if (io.vertx.core.Context.isOnEventLoopThread()) return;
        try {
            closing.toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
        }
    }

    private static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }
}
