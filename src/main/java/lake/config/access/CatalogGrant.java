package lake.config.access;

import java.util.EnumSet;
import java.util.Set;

/**
 * Privileges on one catalog object, granted to a principal: a namespace ({@code name == null}),
 * which covers the namespace, its child namespaces (catalog names below it, {@code ns.child}) and
 * every table and view in them; or one table or view ({@code name}) of {@code namespace}. Names
 * are the catalog's (an Iceberg namespace {@code [a, b]} is {@code a.b}, docs/iceberg.md).
 *
 * <p>Invariants: at least one privilege; names are non-empty, without NUL, at most 1,024 characters.
 */
public record CatalogGrant(String namespace, String name, Set<Privilege> privileges) {
    /** What a grant allows on its object. */
    public enum Privilege {
        /** List the object and load its metadata (and see its events). */
        READ("read"),
        /** Commit to a table or view; update a namespace's properties. */
        WRITE("write"),
        /** Create or register tables and views in a namespace, and child namespaces under it. */
        CREATE("create"),
        /** Drop tables and views (and rename them away), and child namespaces. */
        DROP("drop"),
        /** Grant and revoke privileges on the object to others. */
        MANAGE_GRANTS("manage-grants");

        private final String label;

        Privilege(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** The privilege labelled {@code label}, or {@code null}. */
        public static Privilege of(Object label) {
            for (Privilege p : values()) if (p.label.equals(label)) return p;
            return null;
        }
    }

    public CatalogGrant {
        check(namespace, "namespace");
        if (name != null) check(name, "name");
        if (privileges == null || privileges.isEmpty()) throw new IllegalArgumentException("a grant needs at least one privilege");
        privileges = Set.copyOf(EnumSet.copyOf(privileges));
    }

    /** Whether this grant is on a namespace (and so on everything beneath it). */
    public boolean onNamespace() {
        return name == null;
    }

    private static void check(String s, String what) {
        if (s == null || s.isEmpty() || s.length() > 1024 || s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a grant's " + what + " must be a non-empty string of at most 1024 characters");
        }
    }

    @Override public String toString() {
        return (name == null ? "namespace " + namespace : namespace + "." + name) + " "
                + privileges.stream().map(Privilege::label).sorted().toList();
    }
}
