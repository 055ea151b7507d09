package lake.security;

import lake.config.access.AuthToken;

/**
 * A principal as the node's {@link Principals} configure it now, for what outlives one request (a
 * watch stream): its grants are looked up again whenever the set of principals or the stored
 * grants change, so a revoke, a tokens-file reload or a removed principal applies to the next
 * record a stream shows, not only to the next request. Cheap when nothing changed (one read of
 * a counter). Confined to one thread at a time (a stream's context).
 */
public final class LivePrincipal {
    private final Principals principals;
    private final AuthToken principal;
    private long generation = -1;
    private AuthToken current;
    private CatalogAccess access;

    public LivePrincipal(Principals principals, AuthToken principal) {
        this.principals = principals;
        this.principal = principal;
    }

    /** The principal as configured now; {@code null} once it is no longer configured (it then sees nothing). */
    public AuthToken now() {
        refresh();
        return current;
    }

    /** Its grants on catalog objects now ({@code null} once it is no longer configured). */
    public CatalogAccess access() {
        refresh();
        return access;
    }

    private void refresh() {
        long g = principals.generation();
        if (g == generation) return;
        generation = g;
        current = principals.now(principal).orElse(null);
        access = current == null ? null : CatalogAccess.of(current);
    }
}
