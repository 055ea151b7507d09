package lake.iceberg.rest;

import com.fasterxml.jackson.databind.JsonNode;
import lake.catalog.model.PurgeJob;
import lake.catalog.model.Tombstone;
import lake.catalog.model.TombstonePage;
import lake.config.access.CatalogGrant.Privilege;
import lake.iceberg.IcebergCatalog;
import lake.iceberg.IcebergNames;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.TableIdentifierParser;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.responses.ImmutableLoadViewResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Iceberg face's management routes, beside the REST spec's {@code v1} (docs/iceberg.md,
 * "Dropped tables"), named as Iceberg names things — tables and views apart, as the spec's
 * {@code …/tables} and {@code …/views} are:
 * <ul>
 *   <li>{@code GET /iceberg/management/v1/namespaces/{ns}/dropped-tables} ({@code pageToken},
 *       {@code pageSize}): the namespace's dropped Iceberg tables, each with its incarnation, UUID,
 *       metadata location and when it was dropped; needs {@code drop} on the namespace;
 *       {@code …/dropped-views}: its dropped views, each with its view UUID;</li>
 *   <li>{@code POST …/dropped-tables/{t}/undrop}, body {@code {"incarnation-id"?,"destination"?}}:
 *       the table back, the same UUID, metadata and snapshots, as one fenced write; needs
 *       {@code drop} on the dropped name and {@code create} where it goes back;
 *       {@code …/dropped-views/{v}/undrop}: a view back, the same UUID, metadata and versions;</li>
 *   <li>{@code POST …/dropped-tables/{t}/purge} and {@code …/dropped-views/{v}/purge}, body
 *       {@code {"incarnation-id"?}}: its purge queued now; needs {@code drop} on the dropped name;</li>
 *   <li>{@code POST …/namespaces/{ns}/tables/{t}/orphan-files}, body {@code {"older-than-ms"?,"delete"?}}:
 *       the table's orphan files reported, and deleted when asked ({@link lake.orphans.OrphanSweep});
 *       needs {@code drop} on the table (a delete run removes files, as a purge does).</li>
 * </ul>
 * A request is read once ({@link #parse}) into a {@link Call}: what {@link #authorize} checks is
 * exactly what {@link #route} then does.
 */
final class Management {
    private static final String ROOT = "management";
    static final int MAX_PAGE = 1000;

    private final IcebergCatalog catalog;
    private final long retentionMs;
    private final lake.orphans.OrphanSweep orphans;

    Management(IcebergCatalog catalog, long retentionMs, lake.orphans.OrphanSweep orphans) {
        this.catalog = catalog;
        this.retentionMs = retentionMs;
        this.orphans = orphans;
    }

    /** What a dropped-object route is about: the path segment that names it, and the engine of the objects it finds. */
    enum Kind {
        TABLES("dropped-tables", IcebergCatalog.TABLE_ENGINE, "table"),
        VIEWS("dropped-views", IcebergCatalog.VIEW_ENGINE, "view");

        final String segment;
        final String engine;
        final String noun;

        Kind(String segment, String engine, String noun) {
            this.segment = segment;
            this.engine = engine;
            this.noun = noun;
        }

        static Kind of(String segment) {
            for (Kind k : values()) if (k.segment.equals(segment)) return k;
            return null;
        }

        boolean view() { return this == VIEWS; }
    }

    enum Route { LIST, UNDROP, PURGE, ORPHAN_FILES, UNKNOWN }

    /**
     * One management request, its path and body read: {@code kind} for the dropped-object routes;
     * {@code object} the dropped (or swept) object; {@code incarnationId} and {@code destination}
     * from an undrop's or purge's body ({@code destination} is {@code object} unless the body names another).
     */
    record Call(IcebergRequest request, Route route, Kind kind, Namespace namespace, TableIdentifier object, String incarnationId,
                TableIdentifier destination) {}

    static boolean handles(List<String> s) {
        return !s.isEmpty() && s.get(0).equals(ROOT);
    }

    static String routeName(IcebergRequest r) {
        List<String> s = r.segments();
        Kind k = s.size() >= 5 ? Kind.of(s.get(4)) : null;
        return switch (route(s)) {
            case LIST -> "list-dropped-" + k.noun + "s";
            case UNDROP -> "undrop-" + k.noun;
            case PURGE -> "purge-dropped-" + k.noun;
            case ORPHAN_FILES -> "sweep-orphan-files";
            case UNKNOWN -> "unknown";
        };
    }

    private static Route route(List<String> s) {
        boolean namespaced = s.size() >= 5 && s.get(1).equals("v1") && s.get(2).equals("namespaces");
        if (!namespaced) return Route.UNKNOWN;
        Kind k = Kind.of(s.get(4));
        if (s.size() == 5 && k != null) return Route.LIST;
        if (s.size() == 7 && k != null && s.get(6).equals("undrop")) return Route.UNDROP;
        if (s.size() == 7 && k != null && s.get(6).equals("purge")) return Route.PURGE;
        if (s.size() == 7 && s.get(4).equals("tables") && s.get(6).equals("orphan-files")) return Route.ORPHAN_FILES;
        return Route.UNKNOWN;
    }

    /**
     * {@code r} read once: its route, the objects it names, and an undrop's or purge's body (a POST's;
     * another method is refused by the route). A body that is not a JSON object of the route's fields
     * is refused here, naming what is wrong, before anything is checked or written.
     */
    static Call parse(IcebergRequest r) throws java.io.IOException {
        List<String> s = r.segments();
        Route route = route(s);
        if (route == Route.UNKNOWN) return new Call(r, route, null, null, null, null, null);
        Kind kind = Kind.of(s.get(4));
        Namespace ns = IcebergRouter.namespace(s.get(3));
        if (route == Route.LIST) return new Call(r, route, kind, ns, null, null, null);
        TableIdentifier object = TableIdentifier.of(ns, RESTUtil.decodeString(s.get(5)));
        if (route == Route.ORPHAN_FILES || !r.method().equals("POST")) return new Call(r, route, kind, ns, object, null, object);
        if (route == Route.PURGE) {
            JsonNode b = body(r, "purge", Set.of("incarnation-id"));
            return new Call(r, route, kind, ns, object, b == null ? null : incarnation(b, "purge"), object);
        }
        JsonNode b = body(r, "undrop", Set.of("incarnation-id", "destination"));
        if (b == null) return new Call(r, route, kind, ns, object, null, object);
        TableIdentifier to = b.get("destination") == null ? object : TableIdentifierParser.fromJson(b.get("destination"));
        return new Call(r, route, kind, ns, object, incarnation(b, "undrop"), to);
    }

    /** A {@code what} request's body as a JSON object of only {@code fields}; {@code null} when it is empty. */
    private static JsonNode body(IcebergRequest r, String what, Set<String> fields) throws java.io.IOException {
        byte[] body = r.body();
        if (body.length == 0) return null;
        JsonNode b = IcebergRouter.JSON.readTree(body);
        if (b == null || !b.isObject()) throw new IllegalArgumentException("Invalid " + what + " request: the body must be a JSON object");
        for (var it = b.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!fields.contains(f)) throw new IllegalArgumentException("Invalid " + what + " request: unknown field " + f);
        }
        return b;
    }

    /** The body's {@code incarnation-id}, a string when present. */
    private static String incarnation(JsonNode b, String what) {
        JsonNode inc = b.get("incarnation-id");
        if (inc != null && !inc.isTextual()) throw new IllegalArgumentException("Invalid " + what + " request: incarnation-id must be a string");
        return inc == null ? null : inc.asText();
    }

    static void authorize(Call c, IcebergAccess access, String op) {
        switch (c.route()) {
            case UNKNOWN -> { } // refused by the route
            case ORPHAN_FILES -> IcebergRouter.require(access, op, c.object(), Privilege.DROP, false);
            case LIST -> IcebergRouter.require(access.check(op, IcebergRouter.catalogNamespace(c.namespace()), null, Privilege.DROP),
                    c.namespace(), null, false);
            case PURGE -> IcebergRouter.require(access, op, c.object(), Privilege.DROP, c.kind().view()); // as a drop with purgeRequested
            case UNDROP -> {
                IcebergRouter.require(access, op, c.object(), Privilege.DROP, c.kind().view());
                Namespace target = c.destination().namespace();
                IcebergRouter.require(access.check(op, IcebergRouter.catalogNamespace(target), null, Privilege.CREATE), target, null, false);
            }
        }
    }

    IcebergResponse route(Call c) {
        IcebergRequest r = c.request();
        switch (c.route()) {
            case LIST -> {
                if (!r.method().equals("GET")) throw IcebergRouter.notAllowed(r);
                String size = r.query().get("pageSize");
                int pageSize = size == null ? 100 : Math.min(MAX_PAGE, Integer.parseInt(IcebergRouter.checkPageSize(size)));
                TombstonePage page = catalog.dropped(c.namespace(), c.kind().engine, r.query().get("pageToken"), pageSize);
                long retention = catalog.dropRetentionMs(c.namespace(), retentionMs);
                List<Map<String, Object>> objects = new java.util.ArrayList<>();
                for (Tombstone t : page.tombstones()) objects.add(dropped(c.namespace(), c.kind(), t, retention));
                Map<String, Object> out = new LinkedHashMap<>();
                out.put(c.kind().segment, objects);
                out.put("next-page-token", page.continuation());
                return IcebergResponse.json(200, IcebergRouter.write(out));
            }
            case UNDROP -> {
                if (!r.method().equals("POST")) throw IcebergRouter.notAllowed(r);
                if (c.kind().view()) {
                    String location = catalog.undropView(c.object(), c.incarnationId(), c.destination());
                    return IcebergRouter.ok(ImmutableLoadViewResponse.builder().metadataLocation(location)
                            .metadata(catalog.viewMetadata(location)).build());
                }
                TableMetadata restored = catalog.undropTable(c.object(), c.incarnationId(), c.destination());
                return IcebergRouter.ok(LoadTableResponse.builder().withTableMetadata(restored).build());
            }
            case PURGE -> {
                if (!r.method().equals("POST")) throw IcebergRouter.notAllowed(r);
                PurgeJob job = catalog.requestPurge(c.object(), c.incarnationId(), c.kind().engine);
                return IcebergResponse.json(202, IcebergRouter.write(purgeState(job)));
            }
            case ORPHAN_FILES -> {
                if (!r.method().equals("POST")) throw IcebergRouter.notAllowed(r);
                return IcebergResponse.json(200, IcebergRouter.write(orphans.serve(c.object(), r.body()).toMap()));
            }
            default -> throw IcebergRouter.notFound(r);
        }
    }

    private Map<String, Object> dropped(Namespace ns, Kind kind, Tombstone t, long retention) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("identifier", Map.of("namespace", List.of(ns.levels()), "name", IcebergNames.nameFromCatalog(t.name())));
        o.put("incarnation-id", t.incarnation());
        String metadata = t.registration().metadataLocation().orElse(null);
        o.put("metadata-location", metadata);
        String uuid = null;
        try {
            if (metadata != null) uuid = kind.view() ? catalog.viewMetadata(metadata).uuid() : catalog.tableMetadata(metadata).uuid();
        } catch (org.apache.iceberg.exceptions.NotFoundException gone) {
            // Its metadata file is gone (purged by hand): listed, without a UUID.
        }
        o.put(kind.view() ? "view-uuid" : "table-uuid", uuid);
        o.put("dropped-at-ms", t.droppedMs());
        o.put("expires-at-ms", lake.catalog.PurgeQueue.expiresMs(t, retention));
        PurgeJob job = catalog.purgeJob(t);
        o.put("purge", job == null ? null : purgeState(job));
        return o;
    }

    private static Map<String, Object> purgeState(PurgeJob j) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("state", j.state().name().toLowerCase(java.util.Locale.ROOT));
        o.put("reason", j.reason().name().toLowerCase(java.util.Locale.ROOT));
        o.put("queued-at-ms", j.queuedMs());
        o.put("files-deleted", j.deleted());
        if (j.message() != null) o.put("message", j.message());
        return o;
    }
}
