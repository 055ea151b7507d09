package lake.security;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.access.CatalogGrant;
import lake.config.ConfigException;
import lake.config.SecuritySettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;

/**
 * The node's current set of principals, shared by every ingress of the node and replaced whole on
 * a reload of {@code auth_tokens_file} (SIGHUP, or the file's content changing).
 *
 * <p>Invariants: the set is one immutable {@link Snapshot} behind a volatile field, so a request
 * sees either the old set or the new one, never a mix. A reload reads and parses on a worker
 * thread (never an event loop); a file that does not parse or check keeps the old set, and the
 * reason is logged and audited (naming the file and entry, never a token). Presented tokens are
 * compared against every digest in constant time with no early exit.
 */
public final class Principals {
    private static final Logger log = LoggerFactory.getLogger(Principals.class);
    /** How often the tokens file's content is compared with what was last loaded. */
    public static final long WATCH_INTERVAL_MS = 1_000;

    /**
     * One consistent set: the principals, their digests in the same order ({@code null} for
     * certificate-only ones), and the stored grants by principal name (which OIDC principals,
     * configured nowhere, take theirs from).
     */
    private record Snapshot(List<AuthToken> all, byte[][] digests, Map<String, AuthToken> named, Map<String, List<CatalogGrant>> stored) {
        static Snapshot of(List<AuthToken> tokens, Map<String, List<CatalogGrant>> stored) {
            List<AuthToken> all = List.copyOf(tokens);
            Map<String, AuthToken> named = new java.util.HashMap<>();
            for (AuthToken t : all) named.putIfAbsent(t.name(), t); // names are unique (AuthTokens refuses a name twice)
            return new Snapshot(all, all.stream().map(AuthToken::sha256).toArray(byte[][]::new), Map.copyOf(named), stored);
        }
    }

    private final SecuritySettings settings;
    /** The tokens file's (and inline) principals as configured, before stored grants are added. */
    private List<AuthToken> configured;
    /** Grants stored at runtime (lake.grants), by principal name; replaced whole. */
    private Map<String, List<CatalogGrant>> stored = Map.of();
    /** What requests see: the configured principals with their stored grants added. */
    private volatile Snapshot current;
    /** Moves whenever {@link #current} is replaced: what outlives a request re-reads its principal then ({@link LivePrincipal}). */
    private final java.util.concurrent.atomic.AtomicLong generation = new java.util.concurrent.atomic.AtomicLong();
    /** SHA-256 of the tokens file's bytes last loaded (or refused): a change is a different digest. Worker-confined. */
    private volatile byte[] fileDigest;
    private long watchTimer = -1;

    public Principals(List<AuthToken> initial, SecuritySettings settings) {
        this.configured = List.copyOf(initial);
        this.current = Snapshot.of(initial, Map.of());
        this.settings = settings;
    }

    /**
     * Replaces the grants stored at runtime ({@code lake.grants} follows them in the change feed).
     * They are added to the configured grants of principals that have grants (a principal
     * configured without any covers everything, and an admin acts on everything: neither is
     * narrowed by a stored grant); a read principal keeps only their {@code read}.
     */
    public synchronized void storedGrants(Map<String, List<CatalogGrant>> grants) {
        stored = Map.copyOf(grants);
        current = Snapshot.of(withStored(configured, stored), stored);
        generation.incrementAndGet();
    }

    private static List<AuthToken> withStored(List<AuthToken> configured, Map<String, List<CatalogGrant>> stored) {
        if (stored.isEmpty()) return configured;
        List<AuthToken> out = new ArrayList<>(configured.size());
        for (AuthToken t : configured) {
            List<CatalogGrant> extra = stored.get(t.name());
            if (extra == null || !t.restricted() || t.admin()) {
                out.add(t);
                continue;
            }
            List<CatalogGrant> grants = new ArrayList<>(t.grants() == null ? List.of() : t.grants());
            grants.addAll(usable(t.access(), extra));
            out.add(new AuthToken(t.name(), t.sha256(), t.access(), t.prefixes(), t.namespaces(), t.certSubject(), grants));
        }
        return out;
    }

    /** The stored grants a principal of role {@code access} can use: all of them, or for a read principal their {@code read}. */
    private static List<CatalogGrant> usable(AuthToken.Access access, List<CatalogGrant> stored) {
        if (access != AuthToken.Access.READ) return stored;
        List<CatalogGrant> out = new ArrayList<>(stored.size());
        for (CatalogGrant g : stored) {
            if (g.privileges().contains(CatalogGrant.Privilege.READ)) out.add(new CatalogGrant(g.namespace(), g.name(), Set.of(CatalogGrant.Privilege.READ)));
        }
        return out;
    }

    /**
     * The principal a verified OIDC token names, as of now: its role from the token, its catalog
     * grants those stored for {@code name} (none yet: restricted, it sees nothing). An admin holds
     * everything; any other OIDC principal has no key prefixes (the key-value API is for
     * configured principals). Empty when {@code name} is a configured principal's: a provider
     * must not be able to speak for a principal this node configures (nor take its grants).
     */
    public Optional<AuthToken> external(String name, AuthToken.Access access) {
        Snapshot s = current;
        if (s.named().containsKey(name)) return Optional.empty();
        if (access == AuthToken.Access.ADMIN) return Optional.of(AuthToken.external(name, access, null));
        return Optional.of(AuthToken.external(name, access, usable(access, s.stored().getOrDefault(name, List.of()))));
    }

    /** {@code p} as the node would authenticate it now (its grants re-read), or empty once it is no longer a principal here. */
    public Optional<AuthToken> now(AuthToken p) {
        return p.external() ? external(p.name(), p.access()) : byName(p.name());
    }

    /** A number that changes whenever the principals or their stored grants do. */
    public long generation() {
        return generation.get();
    }

    /** Whether access control is on: at least one principal is configured, or OIDC principals are accepted. */
    public boolean enabled() {
        return settings.oidc() != null || !current.all().isEmpty();
    }

    public List<AuthToken> all() {
        return current.all();
    }

    /** The principal whose token is {@code token}, if any. Every entry is compared, whatever matched. */
    public Optional<AuthToken> byToken(String token) {
        Snapshot s = current;
        byte[] presented = AuthTokens.sha256(token);
        AuthToken match = null;
        for (int i = 0; i < s.digests().length; i++) {
            byte[] d = s.digests()[i];
            // No early exit: the loop's time does not depend on which entry (if any) matched.
            if (d != null && MessageDigest.isEqual(presented, d) && match == null) match = s.all().get(i);
        }
        return Optional.ofNullable(match);
    }

    /** The principal configured under {@code name}, if any. */
    public Optional<AuthToken> byName(String name) {
        return Optional.ofNullable(current.named().get(name));
    }

    /** The principal a client certificate whose subject CN is {@code cn} names, if any. */
    public Optional<AuthToken> byCertificateCn(String cn) {
        if (cn == null) return Optional.empty();
        for (AuthToken t : current.all()) if (cn.equals(t.certSubject())) return Optional.of(t);
        return Optional.empty();
    }

    /**
     * Re-reads the tokens file (if one is configured) on a worker thread and, if it checks,
     * replaces the set. Completes with whether the set was replaced; a refused file fails nothing:
     * the old set stays and the reason is logged and audited.
     */
    public Future<Boolean> reload(Vertx vertx, String trigger) {
        Path file = settings.authTokensFile();
        if (file == null) return Future.succeededFuture(false);
        return vertx.executeBlocking(() -> load(file, trigger, true), false);
    }

    /** Compares the file's content with the last loaded every {@link #WATCH_INTERVAL_MS}, reloading on a change. */
    public void watch(Vertx vertx) {
        Path file = settings.authTokensFile();
        if (file == null || watchTimer >= 0) return;
        fileDigest = digestOf(file);
        watchTimer = vertx.setPeriodic(WATCH_INTERVAL_MS, id -> vertx.executeBlocking(() -> load(file, "file-change", false), false)
                .onFailure(t -> log.warn("watching {} failed: {}", file, t.toString())));
    }

    public void stopWatching(Vertx vertx) {
        if (watchTimer >= 0) vertx.cancelTimer(watchTimer);
        watchTimer = -1;
    }

    /** Worker thread. {@code always}: reload even if the content is what was last seen (SIGHUP). */
    private synchronized boolean load(Path file, String trigger, boolean always) {
        byte[] digest = digestOf(file);
        if (!always && Arrays.equals(digest, fileDigest)) return false;
        fileDigest = digest;
        try {
            List<AuthToken> next = AuthTokens.withFile(settings.inlineTokens(), file);
            // Whether access control is on is decided at start (the cluster-secret rule, the
            // console's prompt depend on it): a reload never turns it off (an emptied file must not
            // open the node to anonymous writes) nor on. That takes a restart.
            if (settings.oidc() == null && next.isEmpty() != current.all().isEmpty()) {
                throw new ConfigException(next.isEmpty()
                        ? "the file names no principal: that would turn access control off; to revoke everyone keep one "
                                + "principal whose token nobody holds, or restart without tokens to turn it off"
                        : "the node started without principals: turning access control on takes a restart");
            }
            List<String> before = current.all().stream().map(AuthToken::name).toList();
            configured = List.copyOf(next);
            current = Snapshot.of(withStored(configured, stored), stored);
            generation.incrementAndGet();
            List<String> after = next.stream().map(AuthToken::name).toList();
            log.info("auth-tokens-file {} reloaded ({}): {} principals", file, trigger, next.size());
            Audit.reload("tokens", trigger, "applied", "principals " + before + " -> " + after);
            return true;
        } catch (ConfigException e) {
            log.warn("auth-tokens-file {} not reloaded ({}), keeping the {} principals in use: {}", file, trigger,
                    current.all().size(), e.getMessage());
            Audit.reload("tokens", trigger, "refused", e.getMessage());
            return false;
        }
    }

    private static byte[] digestOf(Path file) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (IOException e) {
            return new byte[0]; // unreadable: a distinct state, so its repair is noticed as a change
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
