package lake.api;

import lake.config.access.CatalogGrant.Privilege;
import lake.iceberg.rest.IcebergAccess;
import lake.metrics.NodeMetrics;
import lake.security.Audit;
import lake.security.Authorizer;
import lake.security.Authorizer.CatalogRefusal;
import lake.security.CatalogAccess;
import lake.security.Caller;

import java.util.Optional;

/**
 * The Iceberg router's questions about one request's caller, answered by {@link Authorizer} from
 * the caller's grants; every refusal is counted and audited here, as {@link AccessControl} does for
 * the other faces (404 for an object the caller may not see, 403 for one it may not touch).
 */
final class IcebergGate implements IcebergAccess {
    private final Caller caller;
    private final CatalogAccess grants;
    private final NodeMetrics metrics;

    IcebergGate(Caller caller, NodeMetrics metrics) {
        this.caller = caller;
        this.grants = CatalogAccess.of(caller.principal());
        this.metrics = metrics;
    }

    @Override public Optional<CatalogRefusal> check(String op, String ns, String name, Privilege need) {
        return audited(op, ns, name, Authorizer.catalogRefusal(caller.principal(), grants, ns, name, need));
    }

    @Override public Optional<CatalogRefusal> namespaceChange(String op, String ns, Privilege need) {
        return audited(op, ns, null, Authorizer.namespaceChangeRefusal(caller.principal(), grants, ns, need));
    }

    @Override public boolean holds(String ns, String name, Privilege need) {
        return Authorizer.catalogRefusal(caller.principal(), grants, ns, name, need).isEmpty();
    }

    @Override public void storageRefused(String op, String ns, String name, String reason) {
        metrics.authRejected(caller.ingress(), "forbidden");
        Audit.refused(caller.ingress(), caller.name(), "iceberg " + op, "object", ns + "." + name, 403, reason);
    }

    @Override public CatalogAccess grants() {
        return grants;
    }

    private Optional<CatalogRefusal> audited(String op, String ns, String name, Optional<CatalogRefusal> refusal) {
        refusal.ifPresent(r -> {
            metrics.authRejected(caller.ingress(), r.hidden() ? "hidden" : "forbidden");
            Audit.refused(caller.ingress(), caller.name(), "iceberg " + op, name == null ? "namespace" : "object",
                    name == null ? ns : ns + "." + name, r.hidden() ? 404 : 403, r.reason());
        });
        return refusal;
    }
}
