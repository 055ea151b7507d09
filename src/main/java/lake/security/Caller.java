package lake.security;

import lake.config.access.AuthToken;

/**
 * Who sent a request and how: the ingress ({@code http}, {@code bus}) and the authenticated
 * principal. {@code principal == null} means nothing is checked: access control is off, or the
 * caller is code in this process (the node's local address).
 */
public record Caller(String ingress, AuthToken principal) {
    /** Code in this process: the node's local address, reachable by nothing outside the JVM. */
    public static final Caller INTERNAL = new Caller("local", null);

    /** The principal's name for logs and audit, never a token. */
    public String name() {
        return principal == null ? null : principal.name();
    }
}
