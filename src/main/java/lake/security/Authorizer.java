package lake.security;

import lake.config.access.AuthToken;
import lake.config.access.CatalogGrant.Privilege;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The grant rules, as pure functions of a principal and an {@link Action}. A {@code null}
 * principal means access control is off (no tokens configured) or the caller is code in this
 * process: everything is allowed.
 *
 * <p>Rules (docs/operations.md, specs/security.spec.md): a write needs read-write or admin; resign
 * and tombstone purge need admin, namespace create/drop too (or the privilege granted on the
 * namespace or one above it, {@link #namespaceChangeRefusal}); a key must lie under one of the
 * principal's prefixes; a scan's prefix must itself lie under one (a scan is refused, never
 * filtered, so a client never mistakes a partial answer for the whole); a transaction is refused
 * whole if any key is outside; catalog operations (both the catalog API and Iceberg's) are decided
 * per object from the principal's grants ({@link CatalogAccess}, {@link #catalogRefusal}); a
 * principal with grants of any kind gets nothing in a dimension it omits, and no whole-catalog reads.
 */
public final class Authorizer {
    private Authorizer() {}

    /** The refusal of {@code action} for {@code p}, or empty when it may proceed. */
    public static Optional<String> refusal(AuthToken p, Action action) {
        if (p == null) return Optional.empty();
        String who = "principal '" + p.name() + "'";
        if (action instanceof Action.Open) return Optional.empty();
        if (action instanceof Action.Key k) {
            if (k.write() && !p.readWrite()) return Optional.of(who + " is read-only; writes need read-write access");
            return keyInside(p, k.key()) ? Optional.empty() : Optional.of("key '" + k.key() + "' is outside the prefixes granted to " + who);
        }
        if (action instanceof Action.Keys t) {
            if (!p.readWrite()) return Optional.of(who + " is read-only; writes need read-write access");
            for (int i = 0; i < t.keys().size(); i++) {
                if (!keyInside(p, t.keys().get(i))) {
                    return Optional.of("operation " + i + ": key '" + t.keys().get(i) + "' is outside the prefixes granted to "
                            + who + "; the transaction is refused whole");
                }
            }
            return Optional.empty();
        }
        if (action instanceof Action.Scan s) {
            return keyInside(p, s.prefix()) ? Optional.empty()
                    : Optional.of("scan prefix '" + s.prefix() + "' is not inside the prefixes granted to " + who
                            + " (scans are refused, not filtered; scan under a granted prefix)");
        }
        if (action instanceof Action.Admin a) {
            return p.admin() ? Optional.empty() : Optional.of(a.op() + " needs an admin principal; " + who + " is " + p.accessLabel());
        }
        if (action instanceof Action.NamespaceChange n) {
            return namespaceChangeRefusal(p, CatalogAccess.of(p), n.namespace(), n.need()).map(CatalogRefusal::reason);
        }
        if (action instanceof Action.CatalogObject o) {
            return catalogRefusal(p, CatalogAccess.of(p), o.namespace(), o.name(), o.need()).map(CatalogRefusal::reason);
        }
        if (action instanceof Action.IcebergCatalog i) {
            // Only the role here: the Iceberg router asks catalogRefusal for each object a route touches.
            if (i.write() && !p.readWrite()) return Optional.of(who + " is read-only; writes need read-write access");
            return Optional.empty();
        }
        if (action instanceof Action.Grants g) {
            if (p.admin()) return Optional.empty();
            // Its own grants, or those within what it manages (on a namespace it holds manage-grants on).
            if (g.namespace() == null) {
                return p.name().equals(g.principal()) ? Optional.empty()
                        : Optional.of("listing " + (g.principal() == null ? "every principal's" : "another principal's") + " grants needs an admin "
                                + "principal, or a namespace the lister holds \"manage-grants\" on; " + who + " may list its own (principal=" + p.name() + ")");
            }
            // `manage-grants` comes only from grants: a principal configured without any holds none.
            CatalogAccess access = CatalogAccess.of(p);
            Set<Privilege> held = access.unrestricted() ? Set.of() : access.grantedOnNamespace(g.namespace());
            return held.contains(Privilege.MANAGE_GRANTS) || p.name().equals(g.principal()) ? Optional.empty()
                    : Optional.of("listing the grants on namespace '" + g.namespace() + "' needs an admin principal or \"manage-grants\" on it; "
                            + who + " holds " + (held.isEmpty() ? "no privilege" : labels(held)) + " there");
        }
        if (action instanceof Action.GrantChange g) return grantChangeRefusal(p, g);
        Action.WholeCatalog w = (Action.WholeCatalog) action;
        return p.restricted() ? Optional.of(w.op() + " spans every namespace; " + who + " has grants, so it may not") : Optional.empty();
    }

    /**
     * Grants are changed by an admin, or by a principal holding {@code manage-grants} on the object
     * (or a namespace above it) that grants only privileges it holds there itself (so managing
     * grants never escalates); revoking needs {@code manage-grants} alone.
     */
    private static Optional<String> grantChangeRefusal(AuthToken p, Action.GrantChange g) {
        if (p.admin()) return Optional.empty();
        String who = "principal '" + p.name() + "'";
        String object = g.name() == null ? "namespace '" + g.namespace() + "'" : "'" + g.namespace() + "." + g.name() + "'";
        CatalogAccess access = CatalogAccess.of(p);
        if (access.unrestricted()) return Optional.of(g.op() + " needs an admin principal or \"manage-grants\" granted on " + object + "; " + who + " has no grants");
        // A manager extends others' rights, never its own: a grant it gave itself would outlive the revoke of its manage-grants.
        if (g.grant() && g.principal().equals(p.name())) return Optional.of(who + " may not grant to itself; ask an admin or another manager");
        // A grant on a namespace is inherited by its children: the manager must hold what it grants
        // there the same way (by grants, not by `namespaces`, which covers exactly one namespace).
        Set<Privilege> held = g.name() == null ? access.grantedOnNamespace(g.namespace()) : access.on(g.namespace(), g.name());
        if (!held.contains(Privilege.MANAGE_GRANTS)) {
            return Optional.of(g.op() + " on " + object + " needs an admin principal or \"manage-grants\" on it; " + who + " holds "
                    + (held.isEmpty() ? "no privilege" : labels(held)) + " there");
        }
        if (g.grant() && !held.containsAll(g.privileges())) {
            return Optional.of(who + " may grant on " + object + " only privileges it holds there (" + labels(held) + ")");
        }
        return Optional.empty();
    }

    /** Whether {@code key} (or a scan prefix) lies under one of {@code p}'s prefixes. */
    public static boolean keyInside(AuthToken p, String key) {
        if (p == null || !p.restricted()) return true;
        List<String> prefixes = p.prefixes();
        if (prefixes == null) return false;
        for (String g : prefixes) if (key.startsWith(g)) return true;
        return false;
    }

    /** Why a catalog object request is refused: {@code hidden} when the principal may not learn that the object exists. */
    public record CatalogRefusal(boolean hidden, String reason) {}

    /**
     * The refusal of privilege {@code need} on table or view {@code name} of catalog namespace
     * {@code ns} ({@code name == null}: on the namespace itself, so on everything in it), for
     * {@code p} whose grants are {@code access}; empty when it may proceed. An object the principal
     * may not see is refused as hidden (answered as absent, never as forbidden, so a refusal does
     * not reveal that it exists); a visible one without the privilege, or a write by a read-only
     * principal, is refused as forbidden.
     */
    public static Optional<CatalogRefusal> catalogRefusal(AuthToken p, CatalogAccess access, String ns, String name, Privilege need) {
        if (p == null || access.unrestricted() && (need == null || need == Privilege.READ || p.readWrite())) return Optional.empty();
        String who = "principal '" + p.name() + "'";
        String object = name == null ? "namespace '" + ns + "'" : "'" + ns + "." + name + "'";
        boolean visible = name == null ? access.seesNamespace(ns) : access.sees(ns, name);
        if (!visible) return Optional.of(new CatalogRefusal(true, object + " is not visible to " + who));
        if (need == null) return Optional.empty();
        if (need != Privilege.READ && !p.readWrite()) {
            return Optional.of(new CatalogRefusal(false, who + " is read-only; " + need.label() + " needs read-write access"));
        }
        Set<Privilege> held = name == null ? access.onNamespace(ns) : access.on(ns, name);
        if (held.contains(need)) return Optional.empty();
        return Optional.of(new CatalogRefusal(false, who + " holds " + (held.isEmpty() ? "no privilege" : labels(held)) + " on "
                + object + "; this needs \"" + need.label() + "\""));
    }

    /**
     * The refusal of creating ({@code CREATE}) or dropping ({@code DROP}) namespace {@code ns}: an
     * admin may; so may a principal holding that privilege by grant on {@code ns} itself or on a
     * namespace above it (a grant on a namespace covers the namespace and its children, so an
     * admin reserves a namespace, top-level or not, for a team by granting {@code create} on its
     * name before it exists). {@code namespaces} entries create or drop nothing: they name exactly
     * the namespaces an operator made. A namespace to drop that the principal may not see, or one
     * to create under a parent it may not see, is refused as hidden.
     */
    public static Optional<CatalogRefusal> namespaceChangeRefusal(AuthToken p, CatalogAccess access, String ns, Privilege need) {
        if (p == null || p.admin()) return Optional.empty();
        String who = "principal '" + p.name() + "'";
        if (need == Privilege.DROP && !access.seesNamespace(ns)) {
            return Optional.of(new CatalogRefusal(true, "namespace '" + ns + "' is not visible to " + who));
        }
        String change = (need == Privilege.CREATE ? "creating" : "dropping") + " namespace '" + ns + "' needs an admin principal or \""
                + need.label() + "\" granted on it or on a namespace above it; " + who;
        if (access.unrestricted()) return Optional.of(new CatalogRefusal(false, change + " is " + p.accessLabel() + " without grants"));
        Set<Privilege> held = access.grantedOnNamespace(ns);
        if (held.contains(need)) {
            return p.readWrite() ? Optional.empty()
                    : Optional.of(new CatalogRefusal(false, who + " is read-only; " + need.label() + " needs read-write access"));
        }
        int dot = ns.lastIndexOf('.');
        if (need == Privilege.CREATE && dot > 0 && !access.seesNamespace(ns.substring(0, dot))) {
            return Optional.of(new CatalogRefusal(true, "namespace '" + ns.substring(0, dot) + "' is not visible to " + who));
        }
        return Optional.of(new CatalogRefusal(false, change + " holds " + (held.isEmpty() ? "no such grant" : labels(held)) + " there"));
    }

    private static java.util.List<String> labels(Set<Privilege> privileges) {
        return privileges.stream().map(Privilege::label).sorted().toList();
    }
}
