package lake.client;

import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import lake.client.model.ClientOptions;
import lake.client.model.IcebergTable;
import lake.client.model.Json;
import lake.client.model.MetasrvException;
import lake.client.model.NodeHealth;
import lake.client.model.Txn;
import lake.client.transport.Call;
import lake.client.transport.HttpReplies;
import lake.client.transport.Transport;
import lake.wire.CasRequest;
import lake.wire.ClusterInfo;
import lake.wire.DeleteRequest;
import lake.wire.Entry;
import lake.wire.EntryPage;
import lake.wire.Fields;
import lake.wire.GetRequest;
import lake.wire.LeaderInfo;
import lake.wire.Resigned;
import lake.wire.ScanRequest;
import lake.wire.WireException;
import lake.wire.WriteResult;
import lake.wire.catalog.CatalogRequest;
import lake.wire.catalog.CatalogSnapshot;
import lake.wire.catalog.NamePage;
import lake.wire.catalog.Namespace;
import lake.wire.catalog.Purge;
import lake.wire.catalog.Table;
import lake.wire.catalog.TableChange;
import lake.wire.catalog.Tombstone;
import lake.wire.catalog.TombstonePage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * {@link MetasrvClient} over one {@link Transport}: builds each call in both wire forms (the
 * {@code lake.wire} request records), runs it through the {@link Retrier}, and reads the reply
 * into its {@code lake.wire} record. A reply that is not that record's shape is a
 * {@link MetasrvException.ServerError} ({@code unexpected_reply}) naming the field. A view made by
 * {@link #withEpoch(long)} shares the transport and retrier and owns neither.
 */
final class DefaultClient implements MetasrvClient {
    private final Retrier retrier;
    private final boolean owner;
    private final boolean pinFirst;
    /** The epoch every write carries; {@code null}: none (yet). Shared with pinFirst so the first reply sets it once. */
    private final AtomicReference<Long> pinned;

    DefaultClient(Transport transport, ClientOptions options) {
        this(new Retrier(transport, options), true, options.pinFirstEpoch(), new AtomicReference<>());
    }

    private DefaultClient(Retrier retrier, boolean owner, boolean pinFirst, AtomicReference<Long> pinned) {
        this.retrier = retrier;
        this.owner = owner;
        this.pinFirst = pinFirst;
        this.pinned = pinned;
    }

    private Future<Map<String, Object>> run(Call call) {
        Future<Map<String, Object>> reply = retrier.run(call.withEpoch(pinned.get()));
        if (!call.write()) return reply;
        return reply.onSuccess(r -> {
            if (pinFirst && r.get("epoch") != null) {
                try {
                    pinned.compareAndSet(null, Fields.u64(r, "epoch"));
                } catch (WireException notAnEpoch) {
                    // A catalog reply without an epoch: nothing to pin.
                }
            }
        });
    }

    /** {@code call}'s reply decoded by {@code read}; a reply of another shape fails as the client's bad-reply error. */
    private <T> Future<T> run(Call call, Function<Map<String, Object>, T> read) {
        return run(call).map(r -> {
            try {
                return read.apply(r);
            } catch (WireException e) {
                throw Json.badReply(e);
            }
        });
    }

    private static String kv(String key) {
        requireKey(key);
        return "/v1/kv/" + HttpReplies.path(key, true);
    }

    private static void requireKey(String key) {
        if (key == null || key.isEmpty()) throw new MetasrvException.InvalidArgument("a key is non-empty UTF-8 text");
    }

    // ---- keys and values

    @Override
    public Future<Optional<Entry>> get(String key) {
        Future<Entry> f;
        try {
            f = run(Call.read("kv.get", kv(key), new GetRequest(key).toMap()), Entry::from);
        } catch (MetasrvException e) {
            return Future.failedFuture(e);
        }
        return f.map(Optional::of).recover(t -> t instanceof MetasrvException.NotFound
                ? Future.succeededFuture(Optional.empty()) : Future.failedFuture(t));
    }

    @Override
    public Future<EntryPage> scan(String prefix, String continuation, int limit, boolean hideSystem) {
        String p = prefix == null ? "" : prefix;
        return run(Call.read("kv.scan", "/v1/kv" + HttpReplies.query("prefix", p, "limit", limit, "continuation", continuation,
                        "hide_system", hideSystem ? "true" : null),
                new ScanRequest(p, continuation, limit, hideSystem).toMap()), EntryPage::from);
    }

    @Override
    public Future<WriteResult> cas(String key, byte[] expected, byte[] value) {
        return guard(() -> {
            requireKey(key);
            Map<String, Object> body = new CasRequest(key, expected, value, null).toMap();
            Txn intent = expected == null ? Txn.builder().create(key, value).build() : Txn.builder().update(key, expected, value).build();
            return run(Call.write("kv.cas", HttpMethod.POST, "/v1/kv/cas", body, body, intent), WriteResult::from);
        });
    }

    @Override
    public Future<WriteResult> delete(String key, byte[] expected) {
        return guard(() -> {
            requireKey(key);
            if (expected == null) throw new MetasrvException.InvalidArgument("a delete needs the key's exact current value");
            Map<String, Object> body = new DeleteRequest(key, expected, null).toMap();
            return run(Call.write("kv.delete", HttpMethod.POST, "/v1/kv/delete", body, body,
                    Txn.builder().deleteIf(key, expected).build()), WriteResult::from);
        });
    }

    @Override
    public Future<WriteResult> txn(Txn txn) {
        Map<String, Object> body = txn.toMap();
        return run(Call.write("kv.txn", HttpMethod.POST, "/v1/txn", body, body, txn), WriteResult::from);
    }

    @Override
    public Future<lake.wire.WatchEvent.Page> watchPage(String prefix, long after, int limit, long waitMs) {
        String p = prefix == null ? "" : prefix;
        Map<String, Object> body = Fields.of("prefix", p, "after", Fields.u64Value(after), "limit", limit, "wait_ms", waitMs);
        return run(Call.read("watch", "/v1/watch" + HttpReplies.query("prefix", p, "after", Long.toUnsignedString(after), "limit", limit,
                "wait_ms", waitMs), body).waiting(waitMs), lake.wire.WatchEvent.Page::from);
    }

    @Override
    public Future<lake.wire.WatchEvent.Page> catalogEventsPage(long after, int limit, long waitMs) {
        Map<String, Object> body = Fields.of("after", Fields.u64Value(after), "limit", limit, "wait_ms", waitMs);
        return run(Call.read("catalog.events", "/v1/catalog/events" + HttpReplies.query("after", Long.toUnsignedString(after), "limit", limit,
                "wait_ms", waitMs), body).waiting(waitMs), lake.wire.WatchEvent.Page::from);
    }

    @Override
    public Future<Long> currentRevision() {
        return run(Call.read("revision", "/v1/revision", Map.of()), r -> Fields.u64(r, "revision"));
    }

    /** Runs {@code f}, turning an argument refused on this thread into a failed future. */
    private static <T> Future<T> guard(java.util.function.Supplier<Future<T>> f) {
        try {
            return f.get();
        } catch (MetasrvException e) {
            return Future.failedFuture(e);
        }
    }

    // ---- grants

    @Override
    public Future<List<lake.wire.grants.Grant>> grants(String principal, String namespace) {
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        if (principal != null) body.put("principal", principal);
        if (namespace != null) body.put("namespace", namespace);
        return run(Call.read("grants", "/v1/grants" + HttpReplies.query("principal", principal, "namespace", namespace), body),
                lake.wire.grants.Grant::listFrom);
    }

    @Override
    public Future<lake.wire.grants.GrantChange> grant(String principal, String namespace, String name, List<String> privileges) {
        Map<String, Object> body = new lake.wire.grants.GrantBody(principal, namespace, name, privileges).toMap();
        return run(Call.write("grants.grant", HttpMethod.POST, "/v1/grants", body, body, null), lake.wire.grants.GrantChange::from);
    }

    @Override
    public Future<lake.wire.grants.GrantChange> revoke(String principal, String namespace, String name, List<String> privileges) {
        Map<String, Object> body = new lake.wire.grants.GrantBody(principal, namespace, name, privileges).toMap();
        return run(Call.write("grants.revoke", HttpMethod.POST, "/v1/grants/revoke", body, body, null), lake.wire.grants.GrantChange::from);
    }

    // ---- the service

    @Override
    public Future<LeaderInfo> leader() {
        return run(Call.read("leader", "/v1/leader", Map.of()), LeaderInfo::from);
    }

    @Override
    public Future<ClusterInfo> cluster() {
        return run(Call.read("cluster", "/v1/cluster", Map.of()), ClusterInfo::from);
    }

    @Override
    public Future<Boolean> resign() {
        // Not a store write, but it changes who leads: an unknown outcome is not retried either.
        return run(Call.write("leader.resign", HttpMethod.POST, "/v1/leader/resign", null, Map.of(), null),
                r -> Resigned.from(r).resigned());
    }

    @Override
    public Future<List<NodeHealth>> health() {
        return retrier.transport().health(HEALTH_TIMEOUT_MS);
    }

    /** How long one endpoint's health check may take: a health check answers quickly or reports the node down. */
    private static final long HEALTH_TIMEOUT_MS = 5_000;

    // ---- epochs

    @Override
    public MetasrvClient withEpoch(long epoch) {
        return new DefaultClient(retrier, false, false, new AtomicReference<>(epoch));
    }

    @Override
    public Future<MetasrvClient> pinCurrentEpoch() {
        return leader().compose(l -> l.epoch() == null
                ? Future.failedFuture(new MetasrvException.NotLeader("there is no leader to pin the epoch of"))
                : Future.succeededFuture(withEpoch(l.epoch())));
    }

    @Override
    public OptionalLong pinnedEpoch() {
        Long e = pinned.get();
        return e == null ? OptionalLong.empty() : OptionalLong.of(e);
    }

    // ---- unknown outcomes

    @Override
    public Future<ReadBack> resolve(MetasrvException.OutcomeUnknown unknown) {
        Txn write = unknown.write();
        if (write == null) return Future.failedFuture(new IllegalArgumentException("the unknown outcome carries no KV write to read back"));
        List<Future<Boolean>> checks = new ArrayList<>();
        for (Txn.Op op : write.ops()) {
            if (!changes(op)) continue;
            checks.add(get(op.key()).map(now -> op.action() == Txn.Action.DELETE ? now.isEmpty()
                    : now.isPresent() && Arrays.equals(now.get().value(), op.value())));
        }
        if (checks.isEmpty()) return Future.succeededFuture(ReadBack.CANNOT_TELL);
        return Future.all(checks).map(all -> checks.stream().allMatch(Future::result) ? ReadBack.IN_EFFECT : ReadBack.NOT_IN_EFFECT);
    }

    /** Whether applying {@code op} leaves its key different from what its own condition already requires. */
    private static boolean changes(Txn.Op op) {
        return switch (op.action()) {
            case CHECK -> false;
            case PUT -> !(op.condition() == Txn.Condition.VALUE && Arrays.equals(op.expected(), op.value()));
            case DELETE -> op.condition() != Txn.Condition.ABSENT;
        };
    }

    // ---- the catalog

    private static String ns(String namespace) {
        if (namespace == null || namespace.isEmpty()) throw new MetasrvException.InvalidArgument("a namespace name is 1-255 bytes of UTF-8");
        return "/v1/namespaces/" + HttpReplies.path(namespace, false);
    }

    private static String table(String namespace, String name) {
        if (name == null || name.isEmpty()) throw new MetasrvException.InvalidArgument("a table name is 1-255 bytes of UTF-8");
        return ns(namespace) + "/tables/" + HttpReplies.path(name, false);
    }

    private <T> Future<T> catalogRead(String op, String path, Map<String, Object> busBody, Function<Map<String, Object>, T> read) {
        return run(Call.read("catalog." + op, path, busBody), read);
    }

    private <T> Future<T> catalogWrite(String op, HttpMethod method, String path, Map<String, Object> httpBody,
                                       Map<String, Object> busBody, Function<Map<String, Object>, T> read) {
        return run(Call.write("catalog." + op, method, path, httpBody, busBody, null), read);
    }

    @Override
    public Future<Namespace> createNamespace(String namespace, Map<String, String> properties) {
        Map<String, Object> body = new CatalogRequest.CreateNamespace(namespace, properties == null ? null : new java.util.TreeMap<>(properties)).toMap();
        return catalogWrite("create-namespace", HttpMethod.POST, "/v1/namespaces", body, body, Namespace::from);
    }

    @Override
    public Future<NamePage> listNamespaces(String continuation, int limit) {
        return catalogRead("list-namespaces", "/v1/namespaces" + HttpReplies.query("limit", limit, "continuation", continuation),
                new CatalogRequest.Page(null, limit, continuation).toMap(), r -> NamePage.from(r, NamePage.Listing.NAMESPACES));
    }

    @Override
    public Future<Namespace> getNamespace(String namespace) {
        return guard(() -> catalogRead("get-namespace", ns(namespace), new CatalogRequest.NamespaceName(namespace).toMap(), Namespace::from));
    }

    @Override
    public Future<Namespace> dropNamespace(String namespace) {
        return guard(() -> catalogWrite("drop-namespace", HttpMethod.DELETE, ns(namespace), null,
                new CatalogRequest.NamespaceName(namespace).toMap(), Namespace::from));
    }

    @Override
    public Future<Table> createTable(String namespace, String name, List<String> columns, String engine) {
        return guard(() -> {
            CatalogRequest.CreateTable r = new CatalogRequest.CreateTable(namespace, name, columns, engine);
            return catalogWrite("create-table", HttpMethod.POST, ns(namespace) + "/tables", r.httpBody(), r.toMap(), Table::from);
        });
    }

    @Override
    public Future<NamePage> listTables(String namespace, String continuation, int limit) {
        return guard(() -> catalogRead("list-tables", ns(namespace) + "/tables" + HttpReplies.query("limit", limit, "continuation", continuation),
                new CatalogRequest.Page(namespace, limit, continuation).toMap(), r -> NamePage.from(r, NamePage.Listing.TABLES)));
    }

    @Override
    public Future<Table> getTable(String namespace, String name) {
        return guard(() -> catalogRead("resolve", table(namespace, name), new CatalogRequest.Resolve(namespace, name, null, null).toMap(), Table::from));
    }

    @Override
    public Future<IcebergTable> icebergTable(String namespace, String name) {
        return guard(() -> {
            ns(namespace);
            table(namespace, name);
            // The catalog's names back to Iceberg's (docs/iceberg.md, "Namespaces: the mapping"):
            // namespace levels are split at '.', and '~XX' is one UTF-8 byte; levels travel joined by
            // the unit separator, as the Iceberg REST spec has them.
            List<String> levels = new ArrayList<>();
            for (String level : namespace.split("\\.", -1)) levels.add(unescape(level));
            String path = "/iceberg/v1/namespaces/" + HttpReplies.path(String.join("\u001f", levels), false)
                    + "/tables/" + HttpReplies.path(unescape(name), false);
            return run(Call.read("iceberg.load-table", path, null), IcebergTable::from);
        });
    }

    /** {@code ~XX} (two hex digits) is one byte of UTF-8; any other character, {@code ~} included, is itself. */
    static String unescape(String s) {
        if (s.indexOf('~') < 0) return s;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < s.length(); ) {
            if (s.charAt(i) == '~' && i + 2 < s.length() && Character.digit(s.charAt(i + 1), 16) >= 0
                    && Character.digit(s.charAt(i + 2), 16) >= 0) {
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 3;
            } else {
                int cp = s.codePointAt(i);
                out.writeBytes(new String(Character.toChars(cp)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                i += Character.charCount(cp);
            }
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public Future<TableChange> awaitTableChange(String namespace, String name, long knownVersion, long waitMs) {
        return guard(() -> run(Call.read("catalog.resolve",
                        table(namespace, name) + HttpReplies.query("known_version", Long.toUnsignedString(knownVersion), "wait_ms", waitMs),
                        new CatalogRequest.Resolve(namespace, name, knownVersion, waitMs).toMap())
                .waiting(waitMs), TableChange::from));
    }

    @Override
    public Future<Table> commitVersion(String namespace, String name, long expectedVersion, long version, String incarnationId) {
        return guard(() -> {
            CatalogRequest.CommitVersion r = new CatalogRequest.CommitVersion(namespace, name, expectedVersion, version, incarnationId);
            return catalogWrite("commit-version", HttpMethod.POST, table(namespace, name) + "/versions", r.httpBody(), r.toMap(), Table::from);
        });
    }

    @Override
    public Future<Tombstone> dropTable(String namespace, String name, boolean purge) {
        return guard(() -> catalogWrite("drop-table", HttpMethod.DELETE, table(namespace, name) + HttpReplies.query("purge", purge ? "true" : null),
                null, new CatalogRequest.DropTable(namespace, name, purge).toMap(), Tombstone::from));
    }

    @Override
    public Future<CatalogSnapshot> snapshot() {
        return catalogRead("snapshot", "/v1/catalog", new CatalogRequest.Snapshot(null, null).toMap(), CatalogSnapshot::from);
    }

    /** How often {@link #awaitSnapshot} looks while the catalog has no generation yet (the server can only wait for a change from one). */
    private static final long NO_GENERATION_POLL_MS = 500;

    @Override
    public Future<CatalogSnapshot> awaitSnapshot(String knownGeneration, long waitMs) {
        if (knownGeneration == null) return awaitFirstGeneration(System.nanoTime() + waitMs * 1_000_000L);
        return run(Call.read("catalog.snapshot", "/v1/catalog" + HttpReplies.query("known_generation", knownGeneration, "wait_ms", waitMs),
                new CatalogRequest.Snapshot(knownGeneration, waitMs).toMap()).waiting(waitMs), CatalogSnapshot::from);
    }

    /**
     * A catalog never written has no generation to wait on: look every {@link #NO_GENERATION_POLL_MS}
     * until one appears (answered as modified) or the wait ends (not modified).
     */
    private Future<CatalogSnapshot> awaitFirstGeneration(long untilNanos) {
        return snapshot().compose(s -> {
            long leftMs = (untilNanos - System.nanoTime()) / 1_000_000L;
            if (s.generation() != null) return Future.succeededFuture(s);
            if (leftMs <= 0) return Future.succeededFuture(new CatalogSnapshot(false, null, List.of()));
            return retrier.transport().delay(Math.min(leftMs, NO_GENERATION_POLL_MS)).compose(v -> awaitFirstGeneration(untilNanos));
        });
    }

    @Override
    public Future<TombstonePage> listTombstones(String continuation, int limit) {
        return catalogRead("list-tombstones", "/v1/catalog/tombstones" + HttpReplies.query("limit", limit, "continuation", continuation),
                new CatalogRequest.Page(null, limit, continuation).toMap(), TombstonePage::from);
    }

    @Override
    public Future<Tombstone> purgeTombstone(String namespace, String name, String incarnationId) {
        return guard(() -> {
            if (incarnationId == null || incarnationId.isEmpty()) throw new MetasrvException.InvalidArgument("an incarnation id is required");
            return catalogWrite("purge-tombstone", HttpMethod.DELETE, "/v1/catalog/tombstones/" + HttpReplies.path(namespace, false)
                            + "/" + HttpReplies.path(name, false) + "/" + HttpReplies.path(incarnationId, false), null,
                    new CatalogRequest.Purge(namespace, name, incarnationId).toMap(), Tombstone::from);
        });
    }

    @Override
    public Future<Purge> purgeTable(String namespace, String name, String incarnationId) {
        return guard(() -> {
            if (incarnationId == null || incarnationId.isEmpty()) throw new MetasrvException.InvalidArgument("an incarnation id is required");
            return catalogWrite("purge-table", HttpMethod.POST, "/v1/catalog/tombstones/" + HttpReplies.path(namespace, false)
                            + "/" + HttpReplies.path(name, false) + "/" + HttpReplies.path(incarnationId, false) + "/purge", null,
                    new CatalogRequest.Purge(namespace, name, incarnationId).toMap(), Purge::from);
        });
    }

    @Override
    public Future<Purge.Page> listPurges(String continuation, int limit) {
        return catalogRead("list-purges", "/v1/catalog/purges" + HttpReplies.query("limit", limit, "continuation", continuation),
                new CatalogRequest.Page(null, limit, continuation).toMap(), Purge.Page::from);
    }

    @Override
    public Future<Table> undropTable(String namespace, String name, String incarnationId, String toNamespace, String toName) {
        return guard(() -> {
            CatalogRequest.Undrop r = new CatalogRequest.Undrop(namespace, name, incarnationId, toNamespace, toName);
            return catalogWrite("undrop-table", HttpMethod.POST, ns(namespace) + "/tables/" + HttpReplies.path(name, false) + "/undrop",
                    r.httpBody(), r.toMap(), Table::from);
        });
    }

    @Override
    public Future<Void> closeAsync() {
        return owner ? retrier.transport().close() : Future.succeededFuture();
    }
}
