package lake.security;

import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;

/**
 * The audit trail: one JSON line per refused request (401/403), per admin action and per
 * configuration reload, on its own logger ({@link #LOGGER}) so operators can route it apart from
 * the node's log (docs/operations.md).
 *
 * <p>Invariant: a line names a principal by its configured name only; no token, digest, or key
 * material ever reaches it (callers pass names, ops, keys and outcomes; JSON encoding escapes any
 * client-chosen text, so a key cannot forge a field or a line).
 */
public final class Audit {
    public static final String LOGGER = "lake.audit";
    private static final Logger log = LoggerFactory.getLogger(LOGGER);

    private Audit() {}

    /** A refused request: {@code status} 401 or 403; {@code principal} {@code null} when none was recognised. */
    public static void refused(String ingress, String principal, String op, String subjectField, String subject, int status,
                               String reason) {
        JsonObject line = base("refused", ingress, principal, op).put("outcome", status).put("reason", reason);
        if (subjectField != null) line.put(subjectField, subject);
        log.warn(line.encode());
    }

    /** An admin action and how it ended ({@code "ok"}, or the error code). */
    public static void admin(String ingress, String principal, String op, String namespace, String outcome) {
        JsonObject line = base("admin", ingress, principal, op).put("outcome", outcome);
        if (namespace != null) line.put("namespace", namespace);
        log.info(line.encode());
    }

    /**
     * A grant or revoke ({@code op}) by {@code principal} of {@code privileges} ({@code null}: all)
     * on {@code namespace} (and {@code name}) for {@code grantee}; {@code answer} is what the
     * leader answered (the privileges held afterwards, whether it changed, its revision), or
     * {@code null} when it failed with {@code outcome}.
     */
    public static void grantChange(String ingress, String principal, String op, String grantee, String namespace, String name,
                                   java.util.List<String> privileges, JsonObject answer, String outcome) {
        JsonObject line = base("admin", ingress, principal, op).put("grantee", grantee).put("namespace", namespace).put("name", name)
                .put("privileges", privileges == null ? null : new io.vertx.core.json.JsonArray(privileges)).put("outcome", outcome);
        if (answer != null) {
            line.put("held", answer.getJsonArray("privileges")).put("changed", answer.getBoolean("changed"));
            if (answer.containsKey("revision")) line.put("revision", answer.getValue("revision"));
        }
        log.info(line.encode());
    }

    /** A reload of security material: {@code what} (tokens, tls, …), the trigger and whether it took effect. */
    public static void reload(String what, String trigger, String outcome, String detail) {
        JsonObject line = base("reload", "config", null, "reload-" + what).put("trigger", trigger).put("outcome", outcome);
        if (detail != null) line.put("detail", detail);
        if ("applied".equals(outcome)) log.info(line.encode());
        else log.warn(line.encode());
    }

    private static JsonObject base(String event, String ingress, String principal, String op) {
        return new JsonObject().put("time", Instant.now().toString()).put("event", event).put("ingress", ingress)
                .put("principal", principal).put("op", op);
    }
}
