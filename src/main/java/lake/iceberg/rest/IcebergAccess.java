package lake.iceberg.rest;

import lake.config.access.CatalogGrant.Privilege;
import lake.security.Authorizer.CatalogRefusal;
import lake.security.CatalogAccess;

import java.util.Optional;

/**
 * What the caller of one request may do with the catalog's objects, as the router asks it: before
 * a route runs, for every object the route touches, and after a listing, to filter it. Names are
 * the catalog's ({@link lake.iceberg.IcebergNames}). An implementation decides with
 * {@link lake.security.Authorizer} and counts and audits every refusal it returns.
 */
public interface IcebergAccess {
    /**
     * The refusal of {@code need} on table or view {@code name} of namespace {@code ns}
     * ({@code name == null}: on the namespace; {@code need == null}: only seeing it); empty when allowed.
     */
    Optional<CatalogRefusal> check(String op, String ns, String name, Privilege need);

    /** The refusal of creating ({@link Privilege#CREATE}) or dropping ({@link Privilege#DROP}) namespace {@code ns}; empty when allowed. */
    Optional<CatalogRefusal> namespaceChange(String op, String ns, Privilege need);

    /**
     * Whether the caller holds {@code need} on table {@code name} of namespace {@code ns}, asked to
     * choose what to hand out (read-only or read-write storage credentials), not to refuse: neither
     * counted nor audited.
     */
    boolean holds(String ns, String name, Privilege need);

    /** A storage request refused for a table the caller may use (a sign request outside its rights or location): counted and audited. */
    void storageRefused(String op, String ns, String name, String reason);

    /** The caller's grants, for filtering listings. */
    CatalogAccess grants();
}
