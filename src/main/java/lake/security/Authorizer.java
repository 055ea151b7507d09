package lake.security;

import lake.config.AuthToken;

import java.util.List;
import java.util.Optional;

/**
 * The grant rules, as pure functions of a principal and an {@link Action}. A {@code null}
 * principal means access control is off (no tokens configured) or the caller is code in this
 * process: everything is allowed.
 *
 * <p>Rules (docs/operations.md, specs/security.spec.md): a write needs read-write or admin; resign,
 * namespace create/drop and tombstone purge need admin; a key must lie under one of the
 * principal's prefixes; a scan's prefix must itself lie under one (a scan is refused, never
 * filtered, so a client never mistakes a partial answer for the whole); a transaction is refused
 * whole if any key is outside; catalog operations need their namespace granted; a principal with
 * grants of either kind gets nothing in the dimension it omits, and no whole-catalog reads.
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
        if (action instanceof Action.Namespace n) {
            if (n.write() && !p.readWrite()) return Optional.of(who + " is read-only; writes need read-write access");
            return namespaceGranted(p, n.namespace()) ? Optional.empty()
                    : Optional.of("namespace '" + n.namespace() + "' is not granted to " + who);
        }
        if (action instanceof Action.IcebergCatalog i) {
            if (i.write() && !p.readWrite()) return Optional.of(who + " is read-only; writes need read-write access");
            return p.restricted() ? Optional.of("the Iceberg catalog spans every namespace; " + who + " has grants, so it may not use it")
                    : Optional.empty();
        }
        Action.WholeCatalog w = (Action.WholeCatalog) action;
        return p.restricted() ? Optional.of(w.op() + " spans every namespace; " + who + " has grants, so it may not") : Optional.empty();
    }

    /** Whether {@code key} (or a scan prefix) lies under one of {@code p}'s prefixes. */
    public static boolean keyInside(AuthToken p, String key) {
        if (p == null || !p.restricted()) return true;
        List<String> prefixes = p.prefixes();
        if (prefixes == null) return false;
        for (String g : prefixes) if (key.startsWith(g)) return true;
        return false;
    }

    /** Whether {@code p} may use {@code namespace} (listing namespaces shows only these to a principal with grants). */
    public static boolean namespaceGranted(AuthToken p, String namespace) {
        if (p == null || !p.restricted()) return true;
        return p.namespaces() != null && p.namespaces().contains(namespace);
    }
}
