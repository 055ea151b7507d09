package lake.grants;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.config.CatalogGrant;
import lake.config.CatalogGrant.Privilege;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;

/**
 * One principal's privileges on one catalog object, as the store keeps it: the key
 * {@code __lake_internal/grants/<principal>/<namespace>/<name>} (components percent-encoded, so
 * none holds a {@code /}; {@code name} empty for a grant on the namespace) and the value
 * {@code {"privileges":[...],"by":<principal>,"at_ms":<ms>}}. Written only by the leader's fenced
 * writer, so a grant changes with the lease and is in the change feed like any write.
 */
public record StoredGrant(String principal, CatalogGrant grant, String by, long atMs) {
    public static final String PREFIX = "__lake_internal/grants/";
    /** A principal's name: what the tokens file and OIDC claims may name. */
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public StoredGrant {
        checkPrincipal(principal);
        if (grant == null) throw new IllegalArgumentException("a stored grant holds a grant");
    }

    public static void checkPrincipal(String principal) {
        if (principal == null || !NAME.matcher(principal).matches()) {
            throw new IllegalArgumentException("a principal's name is 1-64 characters of letters, digits, '.', '_' or '-'");
        }
    }

    /** The key of {@code principal}'s grant on {@code ns} (and table or view {@code name}, or null). */
    public static String key(String principal, String ns, String name) {
        checkPrincipal(principal);
        return PREFIX + principal + "/" + enc(ns) + "/" + (name == null ? "" : enc(name));
    }

    /** The key prefix of every grant of {@code principal}. */
    public static String prefix(String principal) {
        checkPrincipal(principal);
        return PREFIX + principal + "/";
    }

    public String key() {
        return key(principal, grant.namespace(), grant.name());
    }

    public byte[] value() {
        return new JsonObject().put("privileges", new JsonArray(grant.privileges().stream().map(Privilege::label).sorted().toList()))
                .put("by", by).put("at_ms", atMs).encode().getBytes(StandardCharsets.UTF_8);
    }

    /** The grant stored at {@code key} with {@code value}; {@link IllegalArgumentException} when either is not one. */
    public static StoredGrant parse(String key, byte[] value) {
        if (!key.startsWith(PREFIX)) throw new IllegalArgumentException("not a grant key: " + key);
        String[] parts = key.substring(PREFIX.length()).split("/", -1);
        if (parts.length != 3) throw new IllegalArgumentException("a grant key has a principal, a namespace and a name: " + key);
        JsonObject v = new JsonObject(new String(value, StandardCharsets.UTF_8));
        Set<Privilege> privileges = EnumSet.noneOf(Privilege.class);
        for (Object p : v.getJsonArray("privileges")) {
            Privilege privilege = Privilege.of(p);
            if (privilege == null) throw new IllegalArgumentException("unknown privilege " + p + " at " + key);
            privileges.add(privilege);
        }
        CatalogGrant grant = new CatalogGrant(dec(parts[1]), parts[2].isEmpty() ? null : dec(parts[2]), privileges);
        return new StoredGrant(parts[0], grant, v.getString("by"), v.getLong("at_ms", 0L));
    }

    /** The principal a grant key names (without parsing the value). */
    public static String principalOf(String key) {
        String rest = key.substring(PREFIX.length());
        int slash = rest.indexOf('/');
        return slash < 0 ? rest : rest.substring(0, slash);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
