package lake.iceberg.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import lake.catalog.model.Registration;
import lake.config.access.CatalogGrant.Privilege;
import lake.iceberg.IcebergCatalog;
import lake.iceberg.IcebergNames;
import lake.security.Authorizer;
import lake.iceberg.RequestScope;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CommitTransactionRequest;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.CreateViewRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.requests.RegisterViewRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.UpdateNamespacePropertiesResponse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The REST routes of Iceberg's catalog spec, over an {@link IcebergCatalog}: decodes each request
 * with iceberg-core's own types and JSON ({@code RESTObjectMapper}), runs it (mostly through
 * {@link CatalogHandlers}), and renders the answer or the spec's error. Blocking: runs on
 * lake.iceberg's worker threads only.
 */
public final class IcebergRouter {
    /**
     * The spec's wire format: iceberg-core's serializers ({@code RESTSerializers}) on a mapper set
     * up as the Iceberg client's own (kebab-case fields, unknown fields ignored, as the spec allows).
     */
    static final ObjectMapper JSON = mapper();

    private static ObjectMapper mapper() {
        ObjectMapper m = new ObjectMapper();
        m.setVisibility(com.fasterxml.jackson.annotation.PropertyAccessor.FIELD, com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility.ANY);
        m.configure(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        m.setPropertyNamingStrategy(new com.fasterxml.jackson.databind.PropertyNamingStrategies.KebabCaseStrategy());
        RESTSerializers.registerAll(m);
        return m;
    }

    /** Every route served, as {@code GET /v1/config} advertises them. */
    static final List<Endpoint> ENDPOINTS = List.of(
            Endpoint.V1_LIST_NAMESPACES, Endpoint.V1_LOAD_NAMESPACE, Endpoint.V1_NAMESPACE_EXISTS, Endpoint.V1_CREATE_NAMESPACE,
            Endpoint.V1_UPDATE_NAMESPACE, Endpoint.V1_DELETE_NAMESPACE, Endpoint.V1_COMMIT_TRANSACTION,
            Endpoint.V1_LIST_TABLES, Endpoint.V1_LOAD_TABLE, Endpoint.V1_TABLE_EXISTS, Endpoint.V1_CREATE_TABLE,
            Endpoint.V1_UPDATE_TABLE, Endpoint.V1_DELETE_TABLE, Endpoint.V1_RENAME_TABLE, Endpoint.V1_REGISTER_TABLE,
            Endpoint.V1_REPORT_METRICS,
            Endpoint.V1_LIST_VIEWS, Endpoint.V1_LOAD_VIEW, Endpoint.V1_VIEW_EXISTS, Endpoint.V1_CREATE_VIEW,
            Endpoint.V1_UPDATE_VIEW, Endpoint.V1_DELETE_VIEW, Endpoint.V1_RENAME_VIEW, Endpoint.V1_REGISTER_VIEW,
            // The open events proposal (apache/iceberg PR 12584), served beside the router from the change feed.
            Endpoint.create("POST", "/v1/{prefix}/events"));

    /** Every this-many keyed mutations, a router purges one page of expired idempotency records. */
    static final int PURGE_EVERY = 128;

    private final IcebergCatalog catalog;
    private final Runnable metricsReported;
    private final java.util.function.LongSupplier wallMillis;
    private final java.util.concurrent.atomic.AtomicInteger keyed = new java.util.concurrent.atomic.AtomicInteger();

    private final lake.iceberg.delegation.StorageDelegation storage;
    private final lake.orphans.OrphanSweep orphans;

    private static lake.iceberg.delegation.StorageDelegation.Asked asked(IcebergRequest r) {
        return new lake.iceberg.delegation.StorageDelegation.Asked(r.wantsVendedCredentials(), r.wantsRemoteSigning());
    }

    /** How long a dropped table is kept when its namespace does not say. */
    private final long dropRetentionMs;

    IcebergRouter(IcebergCatalog catalog, Runnable metricsReported, java.util.function.LongSupplier wallMillis, lake.iceberg.delegation.StorageDelegation storage,
                  long dropRetentionMs, lake.orphans.OrphanSweep orphans) {
        this.dropRetentionMs = dropRetentionMs;
        this.catalog = catalog;
        this.orphans = orphans;
        this.storage = storage;
        this.metricsReported = metricsReported;
        this.wallMillis = wallMillis;
    }

    lake.orphans.OrphanSweep orphans() {
        return orphans;
    }

    /** A short, bounded name of the route {@code r} takes (for metrics), or "unknown". */
    public static String routeName(IcebergRequest r) {
        List<String> s = r.segments();
        if (Management.handles(s)) return Management.routeName(r);
        if (s.size() < 2 || !s.get(0).equals("v1")) return "unknown";
        String m = r.method().toLowerCase(java.util.Locale.ROOT);
        return switch (s.size()) {
            case 2 -> s.get(1).equals("config") ? "config" : s.get(1).equals("namespaces") ? m + "-namespaces"
                    : s.get(1).equals("events") ? "query-events" : "unknown";
            case 3 -> s.get(1).equals("namespaces") ? m + "-namespace"
                    : s.get(1).equals("tables") ? "rename-table" : s.get(1).equals("views") ? "rename-view"
                    : s.get(1).equals("transactions") ? "commit-transaction" : "unknown";
            case 4 -> switch (s.get(3)) {
                case "tables" -> m + "-tables";
                case "views" -> m + "-views";
                case "properties" -> "update-namespace";
                case "register" -> "register-table";
                case "register-view" -> "register-view";
                default -> "unknown";
            };
            case 5 -> s.get(3).equals("tables") ? m + "-table" : s.get(3).equals("views") ? m + "-view" : "unknown";
            case 6 -> switch (s.get(5)) {
                case "metrics" -> "report-metrics";
                case "credentials" -> "load-credentials";
                case "sign" -> "sign-request";
                default -> "unknown";
            };
            default -> "unknown";
        };
    }

    /**
     * Serves {@code r} as {@code access} allows; every failure becomes the spec's error response.
     * Every object the route touches is decided first (a multi-table commit needs write on every
     * table, a rename drop at its source and create at its target), so a refusal writes nothing
     * and replays no idempotent answer; listings are then filtered to what the caller sees.
     */
    public IcebergResponse handle(IcebergRequest r, IcebergAccess access) {
        try {
            // A management request is read once: its authorization and its route act on the same reading.
            Management.Call call = Management.handles(r.segments()) ? Management.parse(r) : null;
            if (!access.grants().unrestricted() || r.createsOrDropsNamespace()) authorize(r, access, call);
            if (r.mutation() && r.idempotencyKey() != null) return idempotent(r, access, call);
            return route(r, access, call);
        } catch (RuntimeException | java.io.IOException e) {
            return error(e);
        }
    }

    /**
     * Throws the refusal of the first object of {@code r}'s route that {@code access} refuses: an
     * object the caller may not see as absent (the same 404 as a missing one), one it sees without
     * the privilege as {@link org.apache.iceberg.exceptions.ForbiddenException} (403). Parses only
     * the bodies that name objects (renames, multi-table commits, namespace creates), with the
     * same types the route then parses them with; a management request arrives read ({@code call}).
     */
    private static void authorize(IcebergRequest r, IcebergAccess access, Management.Call call) throws java.io.IOException {
        List<String> s = r.segments();
        String m = r.method();
        String op = routeName(r);
        if (call != null) {
            Management.authorize(call, access, op);
            return;
        }
        if (s.size() < 2 || !s.get(0).equals("v1")) return;
        if (s.size() == 3 && (s.get(1).equals("tables") || s.get(1).equals("views")) && s.get(2).equals("rename") && m.equals("POST")) {
            RenameTableRequest req = parse(r, RenameTableRequest.class);
            req.validate();
            boolean view = s.get(1).equals("views");
            require(access, op, req.source(), Privilege.DROP, view);
            Namespace target = req.destination().namespace();
            require(access.check(op, catalogNamespace(target), null, Privilege.CREATE), target, null, view);
            return;
        }
        if (s.size() == 3 && s.get(1).equals("transactions") && s.get(2).equals("commit") && m.equals("POST")) {
            CommitTransactionRequest req = parse(r, CommitTransactionRequest.class);
            req.validate();
            for (UpdateTableRequest change : req.tableChanges()) commit(access, op, change.identifier(), change);
            return;
        }
        if (!s.get(1).equals("namespaces")) return;
        if (s.size() == 2) {
            if (m.equals("GET") && r.query().get("parent") != null) {
                Namespace parent = RESTUtil.namespaceFromQueryParam(r.query().get("parent"));
                if (!parent.isEmpty()) require(access.check(op, catalogNamespace(parent), null, null), parent, null, false);
            } else if (m.equals("POST")) {
                CreateNamespaceRequest req = parse(r, CreateNamespaceRequest.class);
                req.validate();
                require(access.namespaceChange(op, catalogNamespace(req.namespace()), Privilege.CREATE), req.namespace(), null, false);
            }
            return;
        }
        Namespace ns = namespace(s.get(2));
        String catalogNs = catalogNamespace(ns);
        if (s.size() == 3) {
            // Loading a namespace's properties needs read on it; checking that it exists, only seeing it.
            if (m.equals("DELETE")) require(access.namespaceChange(op, catalogNs, Privilege.DROP), ns, null, false);
            else require(access.check(op, catalogNs, null, m.equals("GET") ? Privilege.READ : null), ns, null, false);
            return;
        }
        String kind = s.get(3);
        if (s.size() == 4) {
            Privilege need = switch (kind + " " + m) {
                case "properties POST" -> Privilege.WRITE;
                case "tables POST", "register POST", "views POST", "register-view POST" -> Privilege.CREATE;
                default -> null; // listings (filtered by the route) and unknown routes (refused by it) need only the namespace
            };
            require(access.check(op, catalogNs, null, need), ns, null, false);
            return;
        }
        if (!kind.equals("tables") && !kind.equals("views")) return;
        TableIdentifier id = TableIdentifier.of(ns, RESTUtil.decodeString(s.get(4)));
        if (s.size() == 5 && kind.equals("tables") && m.equals("POST")) {
            // The body decides: a commit that creates (assert-create) needs create, whatever write is held.
            commit(access, op, id, parse(r, UpdateTableRequest.class));
            return;
        }
        Privilege need = s.size() == 6 ? Privilege.READ : switch (m) {
            case "POST" -> Privilege.WRITE;
            case "DELETE" -> Privilege.DROP;
            default -> Privilege.READ;
        };
        require(access, op, id, need, kind.equals("views"));
    }

    /**
     * A table commit needs write on the table, except the commit that ends a staged create
     * ({@code assert-create}): that one creates the table, and needs create on its namespace.
     */
    private static void commit(IcebergAccess access, String op, TableIdentifier id, UpdateTableRequest change) {
        boolean creates = change.requirements().stream().anyMatch(q -> q instanceof org.apache.iceberg.UpdateRequirement.AssertTableDoesNotExist);
        if (!creates) {
            require(access, op, id, Privilege.WRITE, false);
            return;
        }
        require(access.check(op, catalogNamespace(id.namespace()), null, Privilege.CREATE), id.namespace(), null, false);
    }

    static void require(IcebergAccess access, String op, TableIdentifier id, Privilege need, boolean view) {
        require(access.check(op, catalogNamespace(id.namespace()), IcebergNames.name(id.name()), need), id.namespace(), id, view);
    }

    /** Throws {@code refusal}: as the absence of {@code id} (or of namespace {@code ns}) when hidden, else as forbidden. */
    static void require(Optional<Authorizer.CatalogRefusal> refusal, Namespace ns, TableIdentifier id, boolean view) {
        if (refusal.isEmpty()) return;
        if (!refusal.get().hidden()) throw new org.apache.iceberg.exceptions.ForbiddenException("Forbidden: %s", refusal.get().reason());
        if (id == null) throw new org.apache.iceberg.exceptions.NoSuchNamespaceException("Namespace does not exist: %s", ns);
        if (view) throw new org.apache.iceberg.exceptions.NoSuchViewException("View does not exist: %s", id);
        throw new NoSuchTableException("Table does not exist: %s", id);
    }

    static String catalogNamespace(Namespace ns) {
        return IcebergNames.namespace(ns);
    }

    /**
     * A mutation with an {@code Idempotency-Key}. A live record of the key answers at once: with
     * the original response when the request is the same, {@code 422} when it is not. Otherwise
     * the mutation runs, and its transaction writes the key's record (creating it, or replacing an
     * expired one on its exact bytes): the record exists if and only if the mutation applied, on
     * every node and across failovers. A mutation that failed because a concurrent request with
     * the same key applied first answers as that one did.
     */
    private IcebergResponse idempotent(IcebergRequest r, IcebergAccess access, Management.Call call) throws java.io.IOException {
        String key = r.idempotencyKey();
        String recordKey;
        try {
            recordKey = lake.catalog.Catalog.idempotencyRecordKey(key);
        } catch (lake.catalog.model.CatalogException.InvalidArgument bad) {
            // A malformed key is the request's fault (400), never a server error: on a commit route
            // a 500 would read as commit-state-unknown.
            throw new org.apache.iceberg.exceptions.BadRequestException("Invalid Idempotency-Key: %s", bad.getMessage());
        }
        String fingerprint = Idempotency.fingerprint(r);
        long now = wallMillis.getAsLong();
        Optional<byte[]> stored = catalog.idempotencyRecord(key);
        if (stored.isPresent()) {
            Idempotency.Record record = Idempotency.Record.parse(stored.get());
            if (!record.expiredAt(now)) return replay(record, fingerprint, key);
        }
        if (keyed.incrementAndGet() % PURGE_EVERY == 0) purgeExpired(now);
        byte[] expired = stored.orElse(null);
        IcebergResponse response;
        try {
            response = RequestScope.run(outcome -> {
                byte[] value = new Idempotency.Record(fingerprint, now + Idempotency.LIFETIME_MS, outcome).toBytes();
                return List.of(expired == null ? lake.meta.Transaction.Op.create(recordKey, value)
                        : lake.meta.Transaction.Op.update(recordKey, expired, value));
            }, () -> {
                try {
                    return route(r, access, call);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        } catch (RuntimeException e) {
            response = error(e);
        }
        if (response.status() >= 400) {
            Optional<byte[]> now2 = catalog.idempotencyRecord(key);
            if (now2.isPresent() && !java.util.Arrays.equals(now2.get(), expired)) {
                return replay(Idempotency.Record.parse(now2.get()), fingerprint, key);
            }
        }
        return response;
    }

    private IcebergResponse replay(Idempotency.Record record, String fingerprint, String key) {
        if (!record.fingerprint().equals(fingerprint)) {
            throw new org.apache.iceberg.exceptions.UnprocessableEntityException(
                    "Idempotency-Key %s was used for a different request within its lifetime (%s)", key, Idempotency.LIFETIME);
        }
        RequestScope.Outcome o = record.outcome();
        return switch (o.kind()) {
            case "table" -> withETag(LoadTableResponse.builder().withTableMetadata(catalog.tableMetadata(o.metadataLocation())).build(), Map.of());
            case "view" -> ok(org.apache.iceberg.rest.responses.ImmutableLoadViewResponse.builder()
                    .metadataLocation(o.metadataLocation()).metadata(catalog.viewMetadata(o.metadataLocation())).build());
            case "body" -> IcebergResponse.json(o.status(), o.body());
            default -> IcebergResponse.empty(o.status());
        };
    }

    private void purgeExpired(long now) {
        try {
            catalog.purgeIdempotencyRecords(bytes -> Idempotency.expired(bytes, now), 256);
        } catch (RuntimeException ignored) {
            // Purging is housekeeping: the next round tries again, and an expired record is replaced on use.
        }
    }

    public static IcebergResponse error(Throwable e) {
        org.apache.iceberg.rest.responses.ErrorResponse err = IcebergErrors.of(e);
        return IcebergResponse.json(err.code(), org.apache.iceberg.rest.responses.ErrorResponseParser.toJson(err));
    }

    /** {@code call}: the management request {@code r} is, read once ({@code null} for the spec's routes). */
    private IcebergResponse route(IcebergRequest r, IcebergAccess access, Management.Call call) throws java.io.IOException {
        List<String> s = r.segments();
        String m = r.method();
        if (call != null) return new Management(catalog, dropRetentionMs, orphans).route(call);
        if (s.size() < 2 || !s.get(0).equals("v1")) throw notFound(r);
        if (s.size() == 2 && s.get(1).equals("config")) {
            if (!m.equals("GET")) throw notAllowed(r);
            List<Endpoint> endpoints = ENDPOINTS;
            if (storage.vends() || storage.signs()) {
                endpoints = new java.util.ArrayList<>(ENDPOINTS);
                if (storage.vends()) endpoints.add(Endpoint.V1_TABLE_CREDENTIALS);
                if (storage.signs()) endpoints.add(Endpoint.V1_TABLE_REMOTE_SIGN);
            }
            return ok(ConfigResponse.builder().withEndpoints(endpoints).withIdempotencyKeyLifetime(Idempotency.LIFETIME).build());
        }
        if (s.size() == 3 && s.get(1).equals("tables") && s.get(2).equals("rename") && m.equals("POST")) {
            RenameTableRequest req = parse(r, RenameTableRequest.class);
            req.validate();
            CatalogHandlers.renameTable(catalog, req);
            return IcebergResponse.empty(204);
        }
        if (s.size() == 3 && s.get(1).equals("views") && s.get(2).equals("rename") && m.equals("POST")) {
            RenameTableRequest req = parse(r, RenameTableRequest.class);
            req.validate();
            CatalogHandlers.renameView(catalog, req);
            return IcebergResponse.empty(204);
        }
        if (s.size() == 3 && s.get(1).equals("transactions") && s.get(2).equals("commit") && m.equals("POST")) {
            CommitTransactionRequest req = parse(r, CommitTransactionRequest.class);
            req.validate();
            catalog.commitTransaction(req.tableChanges());
            return IcebergResponse.empty(204);
        }
        if (!s.get(1).equals("namespaces")) throw notFound(r);
        if (s.size() == 2) {
            switch (m) {
                case "GET" -> {
                    String parent = r.query().get("parent");
                    Namespace ns = parent == null ? Namespace.empty() : RESTUtil.namespaceFromQueryParam(parent);
                    String pageSize = r.query().get("pageSize");
                    if (!access.grants().unrestricted()) {
                        if (pageSize != null) checkPageSize(pageSize);
                        return ok(Listings.namespaces(catalog.listNamespaces(ns), access.grants(), r.query()));
                    }
                    return ok(pageSize == null ? CatalogHandlers.listNamespaces(catalog, ns)
                            : CatalogHandlers.listNamespaces(catalog, ns, r.query().get("pageToken"), checkPageSize(pageSize)));
                }
                case "POST" -> {
                    CreateNamespaceRequest req = parse(r, CreateNamespaceRequest.class);
                    req.validate();
                    String answer = write(org.apache.iceberg.rest.responses.CreateNamespaceResponse.builder()
                            .withNamespace(req.namespace()).setProperties(req.properties()).build());
                    catalog.createNamespace(req.namespace(), req.properties(), RequestScope.Outcome.body(answer));
                    return IcebergResponse.json(200, answer);
                }
                default -> throw notAllowed(r);
            }
        }
        Namespace ns = namespace(s.get(2));
        if (s.size() == 3) {
            switch (m) {
                case "GET" -> { return ok(CatalogHandlers.loadNamespace(catalog, ns)); }
                case "HEAD" -> { CatalogHandlers.namespaceExists(catalog, ns); return IcebergResponse.empty(204); }
                case "DELETE" -> { CatalogHandlers.dropNamespace(catalog, ns); return IcebergResponse.empty(204); }
                default -> throw notAllowed(r);
            }
        }
        String kind = s.get(3);
        if (s.size() == 4) {
            switch (kind + " " + m) {
                case "properties POST" -> {
                    UpdateNamespacePropertiesRequest req = parse(r, UpdateNamespacePropertiesRequest.class);
                    req.validate();
                    return ok(updateNamespace(ns, req));
                }
                case "tables GET" -> {
                    String pageSize = r.query().get("pageSize");
                    if (!access.grants().readsAllIn(catalogNamespace(ns))) {
                        if (pageSize != null) checkPageSize(pageSize);
                        return ok(Listings.tables(catalog.listTables(ns), ns, access.grants(), r.query()));
                    }
                    return ok(pageSize == null ? CatalogHandlers.listTables(catalog, ns)
                            : CatalogHandlers.listTables(catalog, ns, r.query().get("pageToken"), checkPageSize(pageSize)));
                }
                case "tables POST" -> {
                    CreateTableRequest req = parse(r, CreateTableRequest.class);
                    req.validate();
                    if (req.stageCreate()) {
                        if (!catalog.namespaceExists(ns)) {
                            throw new org.apache.iceberg.exceptions.NoSuchNamespaceException("Namespace does not exist: %s", ns);
                        }
                        TableIdentifier staged = TableIdentifier.of(ns, req.name());
                        // Nothing is committed by a staged create: an STS failure or a foreign location is an error here.
                        LoadTableResponse stagedAnswer = CatalogHandlers.stageTableCreate(catalog, ns, req);
                        // Only a location this request was given by the catalog (fresh, claimed when the create commits).
                        String assigned = req.location() == null ? stagedAnswer.tableMetadata().location() : null;
                        return ok(storage.delegate(asked(r), stagedAnswer, staged, true, assigned, false, refusedFor(access, r, staged)));
                    }
                    LoadTableResponse created = CatalogHandlers.createTable(catalog, ns, req);
                    if (storage.delegates(asked(r))) {
                        // Its creator may commit to it (it held create); no ETag: the body holds credentials.
                        TableIdentifier id = TableIdentifier.of(ns, req.name());
                        String assigned = catalog.registration(id).map(IcebergCatalog::assignedLocation).orElse(null);
                        return ok(storage.delegate(asked(r), created, id, true, assigned, true, refusedFor(access, r, id)));
                    }
                    return withETag(created, Map.of());
                }
                case "register POST" -> {
                    RegisterTableRequest req = parse(r, RegisterTableRequest.class);
                    req.validate();
                    return withETag(CatalogHandlers.registerTable(catalog, ns, req), Map.of());
                }
                case "views GET" -> {
                    String pageSize = r.query().get("pageSize");
                    if (!access.grants().readsAllIn(catalogNamespace(ns))) {
                        if (pageSize != null) checkPageSize(pageSize);
                        return ok(Listings.tables(catalog.listViews(ns), ns, access.grants(), r.query()));
                    }
                    return ok(pageSize == null ? CatalogHandlers.listViews(catalog, ns)
                            : CatalogHandlers.listViews(catalog, ns, r.query().get("pageToken"), checkPageSize(pageSize)));
                }
                case "views POST" -> {
                    CreateViewRequest req = parse(r, CreateViewRequest.class);
                    req.validate();
                    return ok(CatalogHandlers.createView(catalog, ns, req));
                }
                case "register-view POST" -> {
                    RegisterViewRequest req = parse(r, RegisterViewRequest.class);
                    req.validate();
                    return ok(CatalogHandlers.registerView(catalog, ns, req));
                }
                default -> throw notFoundOrNotAllowed(r, Set.of("properties", "tables", "register", "views", "register-view").contains(kind));
            }
        }
        String name = RESTUtil.decodeString(s.get(4));
        TableIdentifier id = TableIdentifier.of(ns, name);
        if (s.size() == 5 && kind.equals("tables")) {
            switch (m) {
                case "GET" -> { return loadTable(id, r, access); }
                case "HEAD" -> { CatalogHandlers.tableExists(catalog, id); return IcebergResponse.empty(204); }
                case "POST" -> {
                    UpdateTableRequest req = parse(r, UpdateTableRequest.class);
                    req.validate();
                    return withETag(CatalogHandlers.updateTable(catalog, id, req), Map.of());
                }
                case "DELETE" -> {
                    if (Boolean.parseBoolean(r.query().getOrDefault("purgeRequested", "false"))) CatalogHandlers.purgeTable(catalog, id);
                    else CatalogHandlers.dropTable(catalog, id);
                    return IcebergResponse.empty(204);
                }
                default -> throw notAllowed(r);
            }
        }
        if (s.size() == 5 && kind.equals("views")) {
            switch (m) {
                case "GET" -> { return ok(CatalogHandlers.loadView(catalog, id)); }
                case "HEAD" -> { CatalogHandlers.viewExists(catalog, id); return IcebergResponse.empty(204); }
                case "POST" -> {
                    UpdateTableRequest req = parse(r, UpdateTableRequest.class);
                    return ok(CatalogHandlers.updateView(catalog, id, req));
                }
                case "DELETE" -> { CatalogHandlers.dropView(catalog, id); return IcebergResponse.empty(204); }
                default -> throw notAllowed(r);
            }
        }
        if (s.size() == 6 && kind.equals("tables") && s.get(5).equals("credentials")) {
            if (!m.equals("GET")) throw notAllowed(r);
            Current current = current(id);
            return ok(storage.credentials(current.metadata(), mayCommit(access, id), current.assignedLocation(), refusedFor(access, r, id)));
        }
        if (s.size() == 6 && kind.equals("tables") && s.get(5).equals("sign")) {
            if (!m.equals("POST")) throw notAllowed(r);
            Current current = current(id);
            String signed = storage.sign(current.metadata(), mayCommit(access, id), new String(r.body(), java.nio.charset.StandardCharsets.UTF_8),
                    current.assignedLocation(), refusedFor(access, r, id));
            return IcebergResponse.json(200, signed);
        }
        if (s.size() == 6 && kind.equals("tables") && s.get(5).equals("metrics")) {
            if (!m.equals("POST")) throw notAllowed(r);
            ReportMetricsRequest req = parse(r, ReportMetricsRequest.class);
            if (req.report() == null) throw new IllegalArgumentException("Invalid metrics report: missing report");
            metricsReported.run();
            return IcebergResponse.empty(204);
        }
        throw notFound(r);
    }

    /**
     * {@code GET .../tables/{t}}: the ETag is decided from the registration alone; a matching
     * {@code If-None-Match} answers {@code 304} without reading the metadata file.
     */
    private IcebergResponse loadTable(TableIdentifier id, IcebergRequest r, IcebergAccess access) {
        Optional<Registration> reg = catalog.registration(id);
        Optional<String> location = reg.filter(x -> IcebergCatalog.TABLE_ENGINE.equals(x.engine())).flatMap(Registration::metadataLocation);
        if (location.isEmpty()) {
            // Not an Iceberg table here: the catalog names the engine, or resolves a metadata table.
            return ok(CatalogHandlers.loadTable(catalog, id));
        }
        if (storage.delegates(asked(r))) {
            // Credentials or a signer in the body: never answered 304 with an engine's older copy of them.
            TableMetadata metadata = catalog.tableMetadata(location.get());
            return ok(storage.delegate(asked(r), LoadTableResponse.builder().withTableMetadata(metadata).build(), id, mayCommit(access, id),
                    IcebergCatalog.assignedLocation(reg.get()), false, refusedFor(access, r, id)));
        }
        Map<String, String> params = new TreeMap<>(r.query());
        String tag = etag(location.get(), params);
        if (tag.equals(r.ifNoneMatch())) {
            catalog.checkPresent(location.get());
            return new IcebergResponse(304, Map.of("ETag", tag), null);
        }
        TableMetadata metadata = catalog.tableMetadata(location.get());
        return withETag(LoadTableResponse.builder().withTableMetadata(metadata).build(), params);
    }

    /** Counts and audits a storage refusal for table {@code id}. */
    private static java.util.function.Consumer<String> refusedFor(IcebergAccess access, IcebergRequest r, TableIdentifier id) {
        return reason -> access.storageRefused(routeName(r), catalogNamespace(id.namespace()), IcebergNames.name(id.name()), reason);
    }

    /** Whether the caller may commit to the table (read-write storage credentials) or only read it. */
    private static boolean mayCommit(IcebergAccess access, TableIdentifier id) {
        return access.holds(catalogNamespace(id.namespace()), IcebergNames.name(id.name()), Privilege.WRITE);
    }

    /** The table's current metadata; a table this catalog does not hold as Iceberg's is absent. */
    /** An Iceberg table's registration and its current metadata. */
    private record Current(Registration registration, TableMetadata metadata) {
        /** The location the catalog assigned the table, or {@code null}: storage is delegated only there. */
        String assignedLocation() {
            return IcebergCatalog.assignedLocation(registration);
        }
    }

    private Current current(TableIdentifier id) {
        Optional<Registration> reg = catalog.registration(id).filter(x -> IcebergCatalog.TABLE_ENGINE.equals(x.engine()));
        Optional<String> location = reg.flatMap(Registration::metadataLocation);
        if (location.isEmpty()) throw new NoSuchTableException("Table does not exist: %s", id);
        return new Current(reg.get(), catalog.tableMetadata(location.get()));
    }

    private IcebergResponse withETag(LoadTableResponse response, Map<String, String> params) {
        return new IcebergResponse(200, Map.of("ETag", etag(response.metadataLocation(), params)), write(response));
    }

    /** The ETag of a metadata location under a load's query parameters: their SHA-256, quoted per RFC 9110. */
    static String etag(String metadataLocation, Map<String, String> params) {
        StringBuilder in = new StringBuilder(metadataLocation);
        new TreeMap<>(params).forEach((k, v) -> in.append('\n').append(k).append('=').append(v));
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(in.toString().getBytes(StandardCharsets.UTF_8));
            return "\"" + HexFormat.of().formatHex(d, 0, 16) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private UpdateNamespacePropertiesResponse updateNamespace(Namespace ns, UpdateNamespacePropertiesRequest req) {
        Map<String, String> before = catalog.loadNamespaceMetadata(ns);
        Set<String> removals = Set.copyOf(req.removals());
        Map<String, String> updates = req.updates();
        List<String> removed = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String k : removals) (before.containsKey(k) ? removed : missing).add(k);
        UpdateNamespacePropertiesResponse answer = UpdateNamespacePropertiesResponse.builder()
                .addUpdated(new ArrayList<>(updates.keySet())).addRemoved(removed).addMissing(missing).build();
        catalog.updateNamespace(ns, removals, updates, RequestScope.Outcome.body(write(answer)));
        return answer;
    }

    static Namespace namespace(String encoded) {
        Namespace ns = RESTUtil.decodeNamespace(encoded);
        if (ns.isEmpty()) throw new IllegalArgumentException("Invalid namespace: empty");
        for (String level : ns.levels()) {
            if (level.isEmpty()) throw new IllegalArgumentException("Invalid namespace " + ns + ": a level is empty");
        }
        return ns;
    }

    static String checkPageSize(String pageSize) {
        try {
            if (Integer.parseInt(pageSize) < 1) throw new NumberFormatException();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid pageSize: " + pageSize + " (a positive integer)");
        }
        return pageSize;
    }

    private static <T> T parse(IcebergRequest r, Class<T> type) throws java.io.IOException {
        byte[] body = r.body();
        if (body.length == 0) throw new IllegalArgumentException("Invalid request: a " + type.getSimpleName() + " body is required");
        T value;
        try {
            value = JSON.readValue(body, type);
        } catch (RuntimeException e) {
            // iceberg-core's parsers refuse an unknown update action or requirement type with an
            // unchecked exception (UnsupportedOperationException, IllegalArgumentException...): it is
            // still the client's malformed request, the spec's 400.
            throw new org.apache.iceberg.exceptions.BadRequestException(e, "Malformed %s: %s", type.getSimpleName(), e.getMessage());
        }
        if (value == null) throw new IllegalArgumentException("Invalid request: a " + type.getSimpleName() + " body is required");
        return value;
    }

    static IcebergResponse ok(Object response) {
        return IcebergResponse.json(200, write(response));
    }

    static String write(Object response) {
        try {
            return JSON.writeValueAsString(response);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot render " + response.getClass().getSimpleName(), e);
        }
    }

    static RuntimeException notFound(IcebergRequest r) {
        return new org.apache.iceberg.exceptions.NotFoundException("No route for %s /iceberg/%s", r.method(), String.join("/", r.segments()));
    }

    static RuntimeException notAllowed(IcebergRequest r) {
        return new org.apache.iceberg.exceptions.BadRequestException("Method %s is not allowed on /iceberg/%s", r.method(), String.join("/", r.segments()));
    }

    private static RuntimeException notFoundOrNotAllowed(IcebergRequest r, boolean known) {
        return known ? notAllowed(r) : notFound(r);
    }
}
