package lake.grants;

import lake.config.CatalogGrant;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every stored grant, by principal, as one node last read it: immutable, replaced whole on each
 * change (readers see the old book or the new one, never a mix).
 */
public record GrantBook(Map<String, StoredGrant> byKey) {
    public static final GrantBook EMPTY = new GrantBook(Map.of());

    public GrantBook {
        byKey = Map.copyOf(byKey);
    }

    /** This book with the grant at {@code key} set to {@code value} ({@code null}: removed). A value that does not parse is skipped, as absent. */
    public GrantBook with(String key, byte[] value) {
        Map<String, StoredGrant> next = new HashMap<>(byKey);
        if (value == null) {
            next.remove(key);
        } else {
            try {
                next.put(key, StoredGrant.parse(key, value));
            } catch (RuntimeException malformed) {
                // Only the leader writes these keys, through GrantRequests: a bad one is a bug or
                // tampering, and grants nothing (fail closed).
                next.remove(key);
            }
        }
        return new GrantBook(next);
    }

    /** The grants of every principal: what {@link lake.security.Principals} adds to the tokens file's. */
    public Map<String, List<CatalogGrant>> byPrincipal() {
        Map<String, List<CatalogGrant>> out = new HashMap<>();
        for (StoredGrant g : byKey.values()) out.computeIfAbsent(g.principal(), k -> new ArrayList<>()).add(g.grant());
        return out;
    }

    /** Grants of {@code principal} ({@code null}: of everyone), sorted by key. */
    public List<StoredGrant> list(String principal) {
        return byKey.entrySet().stream().filter(e -> principal == null || e.getValue().principal().equals(principal))
                .sorted(Map.Entry.comparingByKey()).map(Map.Entry::getValue).toList();
    }
}
