package lake.grants;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;

/**
 * One principal's privileges on one catalog object, as the store keeps it: the key
 * {@code __lake_internal/grants/p:<principal>/<namespace>/<name>} (components percent-encoded, so
 * none holds a {@code /}; {@code name} empty for a grant on the namespace; {@code p:} the grantee's
 * kind, a principal — other kinds, such as roles, are reserved and grant nothing yet) and the
 * value {@code {"privileges":[...],"by":<principal>,"at_ms":<ms>}}. Written only by the leader's
 * fenced writer, so a grant changes with the lease and is in the change feed like any write.
 */
public record StoredGrant(String principal, CatalogGrant grant, String by, long atMs) {
    public static final String PREFIX = "__lake_internal/grants/";
    /** The grantee kind of a principal (an identity: a tokens-file name, or an identity provider's subject). */
    private static final String PRINCIPAL = "p:";

    public StoredGrant {
        checkPrincipal(principal);
        if (grant == null) throw new IllegalArgumentException("a stored grant holds a grant");
    }

    /** A principal's name as a grantee: 1-255 characters, no control characters (an identity provider's subject may hold '@', '|', ':'). */
    public static void checkPrincipal(String principal) {
        if (principal == null || principal.isEmpty() || principal.length() > 255 || principal.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a principal's name is 1-255 characters without control characters");
        }
    }

    /** The key of {@code principal}'s grant on {@code ns} (and table or view {@code name}, or null). */
    public static String key(String principal, String ns, String name) {
        return prefix(principal) + enc(ns) + "/" + (name == null ? "" : enc(name));
    }

    /** The key prefix of every grant of {@code principal}. */
    public static String prefix(String principal) {
        checkPrincipal(principal);
        return PREFIX + PRINCIPAL + enc(principal) + "/";
    }

    public byte[] value() {
        return new JsonObject().put("privileges", new JsonArray(grant.privileges().stream().map(Privilege::label).sorted().toList()))
                .put("by", by).put("at_ms", atMs).encode().getBytes(StandardCharsets.UTF_8);
    }

    /** The grant stored at {@code key} with {@code value}; {@link IllegalArgumentException} when either is not one. */
    public static StoredGrant parse(String key, byte[] value) {
        if (!key.startsWith(PREFIX + PRINCIPAL)) throw new IllegalArgumentException("not a principal's grant key: " + key);
        String[] parts = key.substring(PREFIX.length() + PRINCIPAL.length()).split("/", -1);
        if (parts.length != 3) throw new IllegalArgumentException("a grant key has a principal, a namespace and a name: " + key);
        JsonObject v = new JsonObject(new String(value, StandardCharsets.UTF_8));
        Set<Privilege> privileges = EnumSet.noneOf(Privilege.class);
        for (Object p : v.getJsonArray("privileges")) {
            Privilege privilege = Privilege.of(p);
            if (privilege == null) throw new IllegalArgumentException("unknown privilege " + p + " at " + key);
            privileges.add(privilege);
        }
        CatalogGrant grant = new CatalogGrant(dec(parts[1]), parts[2].isEmpty() ? null : dec(parts[2]), privileges);
        return new StoredGrant(dec(parts[0]), grant, v.getString("by"), v.getLong("at_ms", 0L));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
