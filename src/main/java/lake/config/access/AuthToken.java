package lake.config.access;

import java.util.Arrays;
import java.util.List;

/**
 * One configured principal: an API token (by its digest) with a role and optional grants. Only the
 * token's SHA-256 digest is kept in memory after start-up, so neither a heap dump nor
 * {@code lake.config.Settings#toJson()} reveals the token itself.
 *
 * <p>Grants: {@code prefixes} (keys a principal may touch) and {@code namespaces} (catalog
 * namespaces it may use). An entry with neither ({@code null} both) covers the whole keyspace and
 * every namespace, as entries did before grants existed. An entry with either is restricted to
 * exactly what it lists: the dimension it omits grants nothing (fail closed: a principal written
 * for one table's keys does not silently get the whole catalog). {@link Access#ADMIN} entries carry
 * no grants (refused when parsed): an admin acts on the whole service.
 *
 * @param name       an operator's label for the principal (logged, audited and counted instead of the token)
 * @param sha256     SHA-256 of the token's UTF-8 bytes, 32 bytes; {@code null} for a principal
 *                   named only by a client certificate's subject ({@code certSubject}), and for one a
 *                   verified OIDC token names ({@link #external()}: neither a digest nor a subject)
 * @param access     what it may do
 * @param prefixes   the key prefixes granted, or {@code null}: see above
 * @param namespaces the catalog namespaces granted, or {@code null}: see above
 * @param certSubject the client-certificate subject common name that also names this principal, or {@code null}
 * @param grants     privileges on catalog objects (namespaces, tables, views) beyond what {@code namespaces}
 *                   implies, or {@code null}; a principal with any grant is restricted like one with
 *                   {@code namespaces} (lake.security.CatalogAccess combines them)
 */
public record AuthToken(String name, byte[] sha256, Access access, List<String> prefixes, List<String> namespaces,
                        String certSubject, List<CatalogGrant> grants) {
    /** A principal's role. Each includes the ones before it. */
    public enum Access {
        READ("read"), READ_WRITE("read-write"), ADMIN("admin");

        private final String label;

        Access(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public static Access of(Object label) {
            for (Access a : values()) if (a.label.equals(label)) return a;
            return null;
        }
    }

    public AuthToken {
        if (sha256 != null && sha256.length != 32) throw new IllegalArgumentException("sha256 must be 32 bytes");
        if (access == null) throw new IllegalArgumentException("access is required");
        sha256 = sha256 == null ? null : sha256.clone();
        prefixes = prefixes == null ? null : List.copyOf(prefixes);
        namespaces = namespaces == null ? null : List.copyOf(namespaces);
        grants = grants == null ? null : List.copyOf(grants);
        if (access == Access.ADMIN && (prefixes != null || namespaces != null || grants != null)) {
            throw new IllegalArgumentException("an admin principal carries no grants");
        }
        if (access == Access.READ && grants != null) {
            for (CatalogGrant g : grants) {
                if (!g.privileges().equals(java.util.Set.of(CatalogGrant.Privilege.READ))) {
                    throw new IllegalArgumentException("a read principal's grants hold only \"read\" (" + g + ")");
                }
            }
        }
    }

    /** A principal without catalog object grants. */
    public AuthToken(String name, byte[] sha256, Access access, List<String> prefixes, List<String> namespaces, String certSubject) {
        this(name, sha256, access, prefixes, namespaces, certSubject, null);
    }

    /** A token over the whole keyspace, as entries were before roles and grants. */
    public AuthToken(String name, byte[] sha256, boolean readWrite) {
        this(name, sha256, readWrite ? Access.READ_WRITE : Access.READ, null, null, null);
    }

    /** A token with a role and grants. */
    public AuthToken(String name, byte[] sha256, Access access, List<String> prefixes, List<String> namespaces) {
        this(name, sha256, access, prefixes, namespaces, null);
    }

    @Override
    public byte[] sha256() {
        return sha256 == null ? null : sha256.clone();
    }

    /** A principal an OIDC provider vouches for (a verified JWT), not configured here: it has neither a token digest nor a certificate subject. */
    public static AuthToken external(String name, Access access, List<CatalogGrant> grants) {
        return new AuthToken(name, null, access, null, null, null, access == Access.ADMIN ? null : grants);
    }

    public boolean external() {
        return sha256 == null && certSubject == null;
    }

    public boolean readWrite() {
        return access != Access.READ;
    }

    public boolean admin() {
        return access == Access.ADMIN;
    }

    /** Whether grants restrict this principal (else it covers every key and namespace). */
    public boolean restricted() {
        return prefixes != null || namespaces != null || grants != null;
    }

    public String accessLabel() {
        return access.label();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthToken t && t.name.equals(name) && Arrays.equals(t.sha256, sha256) && t.access == access
                && java.util.Objects.equals(t.prefixes, prefixes) && java.util.Objects.equals(t.namespaces, namespaces)
                && java.util.Objects.equals(t.certSubject, certSubject) && java.util.Objects.equals(t.grants, grants);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /** Never prints the digest: even a digest of a weak token is worth guessing against. */
    @Override
    public String toString() {
        return "AuthToken[" + name + ", " + access.label() + (prefixes == null ? "" : ", prefixes=" + prefixes)
                + (namespaces == null ? "" : ", namespaces=" + namespaces) + (grants == null ? "" : ", grants=" + grants) + "]";
    }
}
