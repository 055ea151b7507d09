package lake.security;

import lake.config.access.AuthToken;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What one principal may do with the catalog's objects, decided in memory from its grants: the
 * namespaces it lists in {@code namespaces} (read, and for a read-write principal also write,
 * create and drop, on exactly each of them) and its {@code grants} on namespaces, tables and views
 * (from the tokens file, and stored at runtime).
 *
 * <p>Rules: a grant in {@code grants} on a namespace covers it, its child namespaces (catalog
 * names that continue it after a {@code .}) and every table and view in them; a namespace listed
 * in {@code namespaces} covers exactly that namespace and what is in it, as it always has (catalog
 * names may hold a {@code .} without being Iceberg levels). A principal sees (may learn exists) an
 * object it holds any privilege on, and a namespace that holds or lies above something granted
 * by {@code grants}; everything else is hidden, and answers as absent. Listing the tables of a
 * namespace, loading one, and reading its events need {@code read}. A principal without grants of
 * any kind, and a {@code null} one (access control off, or the node itself), may do everything
 * ({@link #ALL}). Immutable; built per request, in time linear in the principal's grants.
 */
public final class CatalogAccess {
    /** No restriction. */
    public static final CatalogAccess ALL = new CatalogAccess(true, Map.of(), Map.of(), Map.of(), Set.of());
    private static final Set<Privilege> NONE = Set.of();
    private static final Set<Privilege> EVERY = Set.copyOf(EnumSet.allOf(Privilege.class));

    private final boolean all;
    /** Privileges on exactly these namespaces (from {@code namespaces}): not inherited by children. */
    private final Map<String, Set<Privilege>> exact;
    /** Privileges granted on each namespace itself (not yet those inherited from its ancestors). */
    private final Map<String, Set<Privilege>> onNamespace;
    /** Privileges granted on single tables and views, by namespace, then name. */
    private final Map<String, Map<String, Set<Privilege>>> onObject;
    /** Namespaces that hold or lie above something granted: visible, with no privilege of their own. */
    private final Set<String> above;

    private CatalogAccess(boolean all, Map<String, Set<Privilege>> exact, Map<String, Set<Privilege>> onNamespace,
                          Map<String, Map<String, Set<Privilege>>> onObject, Set<String> above) {
        this.all = all;
        this.exact = exact;
        this.onNamespace = onNamespace;
        this.onObject = onObject;
        this.above = above;
    }

    public static CatalogAccess of(AuthToken p) {
        if (p == null || !p.restricted()) return ALL;
        Map<String, Set<Privilege>> exact = new HashMap<>();
        Map<String, EnumSet<Privilege>> namespaces = new HashMap<>();
        Map<String, Map<String, EnumSet<Privilege>>> objects = new HashMap<>();
        Set<String> above = new HashSet<>();
        if (p.namespaces() != null) {
            Set<Privilege> implied = p.readWrite() ? Set.of(Privilege.READ, Privilege.WRITE, Privilege.CREATE, Privilege.DROP)
                    : Set.of(Privilege.READ);
            for (String ns : p.namespaces()) exact.put(ns, implied);
        }
        if (p.grants() != null) {
            for (CatalogGrant g : p.grants()) {
                if (g.onNamespace()) {
                    namespaces.computeIfAbsent(g.namespace(), k -> EnumSet.noneOf(Privilege.class)).addAll(g.privileges());
                    addAncestors(g.namespace(), above);
                } else {
                    objects.computeIfAbsent(g.namespace(), k -> new HashMap<>())
                            .computeIfAbsent(g.name(), k -> EnumSet.noneOf(Privilege.class)).addAll(g.privileges());
                    above.add(g.namespace());
                    addAncestors(g.namespace(), above);
                }
            }
        }
        Map<String, Set<Privilege>> ns = new HashMap<>();
        namespaces.forEach((k, v) -> ns.put(k, Set.copyOf(v)));
        Map<String, Map<String, Set<Privilege>>> obj = new HashMap<>();
        objects.forEach((k, v) -> {
            Map<String, Set<Privilege>> names = new HashMap<>();
            v.forEach((n, s) -> names.put(n, Set.copyOf(s)));
            obj.put(k, Map.copyOf(names));
        });
        return new CatalogAccess(false, Map.copyOf(exact), Map.copyOf(ns), Map.copyOf(obj), Set.copyOf(above));
    }

    /** Every proper ancestor of catalog namespace {@code ns} ({@code a} and {@code a.b} for {@code a.b.c}). */
    private static void addAncestors(String ns, Set<String> out) {
        for (int i = ns.indexOf('.'); i > 0; i = ns.indexOf('.', i + 1)) out.add(ns.substring(0, i));
    }

    /** Whether nothing is restricted: listings need no filtering and every check passes. */
    public boolean unrestricted() {
        return all;
    }

    /** The privileges held on namespace {@code ns} and so on everything in it: granted on it or on an ancestor. */
    public Set<Privilege> onNamespace(String ns) {
        if (all) return EVERY;
        Set<Privilege> own = onNamespace.getOrDefault(ns, NONE);
        Set<Privilege> listed = exact.get(ns);
        if (listed != null) {
            if (own.isEmpty()) {
                own = listed;
            } else {
                EnumSet<Privilege> both = EnumSet.copyOf(own);
                both.addAll(listed);
                own = both;
            }
        }
        EnumSet<Privilege> out = null;
        for (int i = ns.indexOf('.'); i > 0; i = ns.indexOf('.', i + 1)) {
            Set<Privilege> inherited = onNamespace.get(ns.substring(0, i));
            if (inherited == null) continue;
            if (out == null) out = own.isEmpty() ? EnumSet.noneOf(Privilege.class) : EnumSet.copyOf(own);
            out.addAll(inherited);
        }
        return out == null ? own : out;
    }

    /** The privileges granted by {@code grants} (not {@code namespaces}) on namespace {@code ns} or above it. */
    public Set<Privilege> grantedOnNamespace(String ns) {
        if (all) return EVERY;
        EnumSet<Privilege> out = EnumSet.noneOf(Privilege.class);
        out.addAll(onNamespace.getOrDefault(ns, NONE));
        for (int i = ns.indexOf('.'); i > 0; i = ns.indexOf('.', i + 1)) out.addAll(onNamespace.getOrDefault(ns.substring(0, i), NONE));
        return out;
    }

    /** The privileges held on table or view {@code name} of {@code ns}: its own grants and its namespace's. */
    public Set<Privilege> on(String ns, String name) {
        if (all) return EVERY;
        Set<Privilege> inNamespace = onNamespace(ns);
        Map<String, Set<Privilege>> names = onObject.get(ns);
        Set<Privilege> own = names == null ? null : names.get(name);
        if (own == null) return inNamespace;
        if (inNamespace.isEmpty()) return own;
        EnumSet<Privilege> out = EnumSet.copyOf(own);
        out.addAll(inNamespace);
        return out;
    }

    /** Whether the principal may learn that namespace {@code ns} exists. */
    public boolean seesNamespace(String ns) {
        return all || above.contains(ns) || !onNamespace(ns).isEmpty();
    }

    /** Whether the principal may learn that table or view {@code name} of {@code ns} exists. */
    public boolean sees(String ns, String name) {
        return !on(ns, name).isEmpty();
    }

    /** Whether the principal may list and load every object in {@code ns} ({@code read} on the namespace), so a listing of it needs no filtering. */
    public boolean readsAllIn(String ns) {
        return all || onNamespace(ns).contains(Privilege.READ);
    }

    /** Whether the principal may list and load table or view {@code name} of {@code ns}. */
    public boolean reads(String ns, String name) {
        return all || on(ns, name).contains(Privilege.READ);
    }
}
