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
import org.apache.iceberg.rest.responses.LoadTableResponse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Iceberg face's management routes, beside the REST spec's {@code v1} (docs/iceberg.md,
 * "Dropped tables"), named as Iceberg names things:
 * <ul>
 *   <li>{@code GET /iceberg/management/v1/namespaces/{ns}/dropped-tables} ({@code pageToken},
 *       {@code pageSize}): the namespace's dropped Iceberg tables, each with its incarnation, UUID,
 *       metadata location and when it was dropped; needs {@code drop} on the namespace;</li>
 *   <li>{@code POST …/dropped-tables/{t}/undrop}, body {@code {"incarnation-id"?,"destination"?}}:
 *       the table back, the same UUID, metadata and snapshots, as one fenced write; needs
 *       {@code drop} on the dropped name and {@code create} where it goes back;</li>
 *   <li>{@code POST …/namespaces/{ns}/tables/{t}/orphan-files}, body {@code {"older-than-ms"?,"delete"?}}:
 *       the table's orphan files reported, and deleted when asked ({@link lake.orphans.OrphanSweep});
 *       needs {@code drop} on the table (a delete run removes files, as a purge does).</li>
 * </ul>
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

    static boolean handles(List<String> s) {
        return !s.isEmpty() && s.get(0).equals(ROOT);
    }

    static String routeName(IcebergRequest r) {
        List<String> s = r.segments();
        if (listing(s)) return "list-dropped-tables";
        if (undrop(s)) return "undrop-table";
        if (purge(s)) return "purge-dropped-table";
        if (orphanFiles(s)) return "sweep-orphan-files";
        return "unknown";
    }

    private static boolean listing(List<String> s) {
        return s.size() == 5 && s.get(1).equals("v1") && s.get(2).equals("namespaces") && s.get(4).equals("dropped-tables");
    }

    private static boolean undrop(List<String> s) {
        return s.size() == 7 && s.get(1).equals("v1") && s.get(2).equals("namespaces") && s.get(4).equals("dropped-tables")
                && s.get(6).equals("undrop");
    }

    private static boolean purge(List<String> s) {
        return s.size() == 7 && s.get(1).equals("v1") && s.get(2).equals("namespaces") && s.get(4).equals("dropped-tables")
                && s.get(6).equals("purge");
    }

    private static boolean orphanFiles(List<String> s) {
        return s.size() == 7 && s.get(1).equals("v1") && s.get(2).equals("namespaces") && s.get(4).equals("tables")
                && s.get(6).equals("orphan-files");
    }

    /** A purge request's body: which incarnation ({@code null}: the name's only dropped one). */
    private static String purgeBody(IcebergRequest r) throws java.io.IOException {
        JsonNode b = body(r, "purge", Set.of("incarnation-id"));
        return b == null ? null : incarnation(b, "purge");
    }

    /** An undrop's body: which incarnation, and where it goes back (its own name by default). */
    private record Undrop(String incarnationId, TableIdentifier destination) {}

    private static Undrop undropBody(IcebergRequest r, TableIdentifier from) throws java.io.IOException {
        JsonNode b = body(r, "undrop", Set.of("incarnation-id", "destination"));
        if (b == null) return new Undrop(null, from);
        TableIdentifier to = b.get("destination") == null ? from : TableIdentifierParser.fromJson(b.get("destination"));
        return new Undrop(incarnation(b, "undrop"), to);
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

    static void authorize(IcebergRequest r, IcebergAccess access, String op) throws java.io.IOException {
        List<String> s = r.segments();
        if (!listing(s) && !undrop(s) && !purge(s) && !orphanFiles(s)) return; // refused by the route
        Namespace ns = IcebergRouter.namespace(s.get(3));
        if (orphanFiles(s)) {
            IcebergRouter.require(access, op, TableIdentifier.of(ns, RESTUtil.decodeString(s.get(5))), Privilege.DROP, false);
            return;
        }
        if (listing(s)) {
            IcebergRouter.require(access.check(op, IcebergRouter.catalogNamespace(ns), null, Privilege.DROP), ns, null, false);
            return;
        }
        TableIdentifier from = TableIdentifier.of(ns, RESTUtil.decodeString(s.get(5)));
        IcebergRouter.require(access, op, from, Privilege.DROP, false);
        if (purge(s)) return; // who may drop it with purgeRequested may purge it
        Namespace target = undropBody(r, from).destination().namespace();
        IcebergRouter.require(access.check(op, IcebergRouter.catalogNamespace(target), null, Privilege.CREATE), target, null, false);
    }

    IcebergResponse route(IcebergRequest r) throws java.io.IOException {
        List<String> s = r.segments();
        if (listing(s)) {
            if (!r.method().equals("GET")) throw IcebergRouter.notAllowed(r);
            Namespace ns = IcebergRouter.namespace(s.get(3));
            String size = r.query().get("pageSize");
            int pageSize = size == null ? 100 : Math.min(MAX_PAGE, Integer.parseInt(IcebergRouter.checkPageSize(size)));
            TombstonePage page = catalog.droppedTables(ns, r.query().get("pageToken"), pageSize);
            long retention = catalog.dropRetentionMs(ns, retentionMs);
            List<Map<String, Object>> tables = new java.util.ArrayList<>();
            for (Tombstone t : page.tombstones()) tables.add(dropped(ns, t, retention));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("dropped-tables", tables);
            out.put("next-page-token", page.continuation());
            return IcebergResponse.json(200, IcebergRouter.write(out));
        }
        if (undrop(s)) {
            if (!r.method().equals("POST")) throw IcebergRouter.notAllowed(r);
            TableIdentifier from = TableIdentifier.of(IcebergRouter.namespace(s.get(3)), RESTUtil.decodeString(s.get(5)));
            Undrop u = undropBody(r, from);
            TableMetadata restored = catalog.undropTable(from, u.incarnationId(), u.destination());
            return IcebergRouter.ok(LoadTableResponse.builder().withTableMetadata(restored).build());
        }
        if (purge(s)) {
            if (!r.method().equals("POST")) throw IcebergRouter.notAllowed(r);
            TableIdentifier from = TableIdentifier.of(IcebergRouter.namespace(s.get(3)), RESTUtil.decodeString(s.get(5)));
            PurgeJob job = catalog.requestPurge(from, purgeBody(r));
            return IcebergResponse.json(202, IcebergRouter.write(purgeState(job)));
        }
        if (orphanFiles(s)) {
            if (!r.method().equals("POST")) throw IcebergRouter.notAllowed(r);
            TableIdentifier id = TableIdentifier.of(IcebergRouter.namespace(s.get(3)), RESTUtil.decodeString(s.get(5)));
            return IcebergResponse.json(200, IcebergRouter.write(orphans.serve(id, r.body()).toMap()));
        }
        throw IcebergRouter.notFound(r);
    }

    private Map<String, Object> dropped(Namespace ns, Tombstone t, long retention) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("identifier", Map.of("namespace", List.of(ns.levels()), "name", IcebergNames.nameFromCatalog(t.name())));
        o.put("incarnation-id", t.incarnation());
        String metadata = t.registration().metadataLocation().orElse(null);
        o.put("metadata-location", metadata);
        String uuid = null;
        try {
            if (metadata != null) uuid = catalog.tableMetadata(metadata).uuid();
        } catch (org.apache.iceberg.exceptions.NotFoundException gone) {
            // Its metadata file is gone (purged by hand): listed, without a UUID.
        }
        o.put("table-uuid", uuid);
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
