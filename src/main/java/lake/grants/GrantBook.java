package lake.grants;

import lake.config.access.CatalogGrant;

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

    /** The book of every grant stored at the keys of {@code stored} (a full read). */
    public static GrantBook of(Map<String, byte[]> stored) {
        Map<String, StoredGrant> all = new HashMap<>();
        stored.forEach((key, value) -> put(all, key, value));
        return new GrantBook(all);
    }

    /** This book with each change applied in order: the grant at its key set to its value ({@code null}: removed). */
    public GrantBook with(List<lake.feed.ChangeRecord.Change> changes) {
        Map<String, StoredGrant> next = new HashMap<>(byKey);
        for (lake.feed.ChangeRecord.Change c : changes) put(next, c.key(), c.value());
        return new GrantBook(next);
    }

    /** A value that does not parse is taken as absent. */
    private static void put(Map<String, StoredGrant> book, String key, byte[] value) {
        if (value == null) {
            book.remove(key);
            return;
        }
        try {
            book.put(key, StoredGrant.parse(key, value));
        } catch (RuntimeException malformed) {
            // Only the leader writes these keys, through Grants: a bad one is a bug, tampering or a
            // grantee kind this version does not know, and grants nothing (fail closed).
            book.remove(key);
        }
    }

    /** The grants of every principal: what {@link lake.security.Principals} adds to the tokens file's. */
    public Map<String, List<CatalogGrant>> byPrincipal() {
        Map<String, List<CatalogGrant>> out = new HashMap<>();
        for (StoredGrant g : byKey.values()) out.computeIfAbsent(g.principal(), k -> new ArrayList<>()).add(g.grant());
        return out;
    }
}
