package lake.grants;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.config.access.CatalogGrant.Privilege;
import lake.protocol.ApiError;
import lake.protocol.ApiRequests;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * A grant or revoke as decoded from {@code POST /v1/grants} / {@code POST /v1/grants/revoke} (and
 * the bus): {@code {"principal", "namespace", "name"?, "privileges"}}; a revoke without
 * {@code privileges} removes every privilege the principal holds on the object. Decoded strictly:
 * an unknown field, a malformed name or an unknown privilege is {@code 400}, naming it.
 */
public record GrantRequest(String principal, String namespace, String name, Set<Privilege> privileges) {
    public GrantRequest {
        privileges = privileges == null ? null : Set.copyOf(privileges);
    }

    public static GrantRequest grant(JsonObject body) {
        GrantRequest r = decode(body);
        if (r.privileges == null) throw ApiError.invalid("field 'privileges' is required: the privileges to grant, of " + known());
        return r;
    }

    public static GrantRequest revoke(JsonObject body) {
        return decode(body);
    }

    /** What a listing asks for: the grants of {@code principal} ({@code null}: everyone's) on {@code namespace} and beneath ({@code null}: all). */
    public record Listing(String principal, String namespace) {}

    public static Listing list(JsonObject body) {
        if (body == null) return new Listing(null, null);
        ApiRequests.allowOnly(body, Set.of("principal", "namespace"));
        String p = body.containsKey("principal") ? ApiRequests.string(body, "principal") : null;
        if (p != null) checkPrincipal(p);
        String ns = body.containsKey("namespace") ? ApiRequests.string(body, "namespace") : null;
        if (ns != null && (ns.isEmpty() || ns.length() > 1024)) throw ApiError.invalid("field 'namespace' must be 1-1024 characters");
        return new Listing(p, ns);
    }

    private static GrantRequest decode(JsonObject body) {
        if (body == null) throw ApiError.invalid("a grant needs a body: {\"principal\", \"namespace\", \"name\"?, \"privileges\"}");
        ApiRequests.allowOnly(body, Set.of("principal", "namespace", "name", "privileges"));
        String principal = ApiRequests.string(body, "principal");
        checkPrincipal(principal);
        String ns = ApiRequests.string(body, "namespace");
        String name = body.containsKey("name") && body.getValue("name") != null ? ApiRequests.string(body, "name") : null;
        Set<Privilege> privileges = null;
        if (body.containsKey("privileges")) {
            if (!(body.getValue("privileges") instanceof JsonArray a) || a.isEmpty()) {
                throw ApiError.invalid("field 'privileges' must be a non-empty array of " + known());
            }
            privileges = EnumSet.noneOf(Privilege.class);
            for (Object p : a) {
                Privilege privilege = Privilege.of(p);
                if (privilege == null) throw ApiError.invalid("field 'privileges': unknown privilege " + p + "; known: " + known());
                privileges.add(privilege);
            }
        }
        try {
            new lake.config.access.CatalogGrant(ns, name, privileges == null ? Set.of(Privilege.READ) : privileges);
            if (StoredGrant.key(principal, ns, name).length() > lake.meta.Keys.MAX_KEY_BYTES) {
                throw new IllegalArgumentException("the namespace and name are too long to store as a grant");
            }
        } catch (IllegalArgumentException bad) {
            throw ApiError.invalid(bad.getMessage());
        }
        return new GrantRequest(principal, ns, name, privileges);
    }

    private static void checkPrincipal(String p) {
        try {
            StoredGrant.checkPrincipal(p);
        } catch (IllegalArgumentException bad) {
            throw ApiError.invalid("field 'principal': " + bad.getMessage());
        }
    }

    static String known() {
        return Arrays.stream(Privilege.values()).map(Privilege::label).toList().toString();
    }
}
