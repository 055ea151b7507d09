package lake.config;

import lake.config.access.AuthToken;
import lake.config.access.CatalogGrant;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * Parses and checks the {@code auth_tokens} setting and the {@code auth_tokens_file} it may come
 * from. An entry is {@code {"name", "access": "read"|"read-write"|"admin", "token_sha256": hex}}
 * or, with {@code "token"} instead of {@code "token_sha256"}, the token itself; optionally
 * {@code "prefixes"} and {@code "namespaces"} (grants, see {@link AuthToken}) and
 * {@code "client_cert_cn"} (a client certificate whose subject CN is this names the principal;
 * an entry may then omit the token). Plaintext tokens are refused
 * on the command line (every local user can read a process's arguments) and in files other users
 * can read. Error messages name the setting and the entry, never a token.
 */
public final class AuthTokens {
    /** Short tokens can be guessed; 16 characters of a random alphabet is the floor we accept. */
    public static final int MIN_TOKEN_CHARS = 16;

    private AuthTokens() {}

    /** Whether any entry of {@code tokens} carries a plaintext token. */
    static boolean hasPlaintext(JsonArray tokens) {
        if (tokens == null) return false;
        for (Object o : tokens) if (o instanceof JsonObject e && e.containsKey("token")) return true;
        return false;
    }

    /**
     * The inline entries plus those of {@code file} (re-read now), checked together: what a reload
     * of the tokens file produces. Throws {@link ConfigException} naming the file and the entry.
     */
    public static List<AuthToken> withFile(List<AuthToken> inline, Path file) {
        JsonArray entries = readFile(file);
        List<AuthToken> fromFile = parse(java.util.Collections.singletonList(entries), List.of("auth-tokens-file " + file));
        Set<String> names = new HashSet<>();
        Set<String> digests = new HashSet<>();
        HexFormat hex = HexFormat.of();
        List<AuthToken> out = new ArrayList<>(inline);
        Set<String> cns = new HashSet<>();
        for (AuthToken t : inline) {
            names.add(t.name());
            if (t.sha256() != null) digests.add(hex.formatHex(t.sha256()));
            if (t.certSubject() != null) cns.add(t.certSubject());
        }
        for (AuthToken t : fromFile) {
            String at = "auth-tokens-file " + file + " entry '" + t.name() + "'";
            if (!names.add(t.name())) throw new ConfigException(at + ": the name is used twice");
            if (t.sha256() != null && !digests.add(hex.formatHex(t.sha256()))) {
                throw new ConfigException(at + ": the same token is configured twice");
            }
            // One certificate, one principal, across the inline entries and the file alike.
            if (t.certSubject() != null && !cns.add(t.certSubject())) {
                throw new ConfigException(at + ": client_cert_cn '" + t.certSubject() + "' names another entry's principal too");
            }
            out.add(t);
        }
        return List.copyOf(out);
    }

    /** Reads {@code auth_tokens_file}: a JSON array of entries, not readable by other users. */
    static JsonArray readFile(Path path) {
        PrivateFiles.check(path, "auth-tokens-file", "tokens", true);
        try {
            return new JsonArray(Files.readString(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw ConfigException.file("auth-tokens-file", path, e);
        } catch (DecodeException | ClassCastException e) {
            throw new ConfigException("auth-tokens-file: " + path + " is not a JSON array of token entries");
        }
    }

    /** Validates every entry; names are unique across all sources, and so are tokens. */
    static List<AuthToken> parse(List<JsonArray> sources, List<String> sourceNames) {
        List<AuthToken> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> digests = new HashSet<>();
        HexFormat hex = HexFormat.of();
        for (int s = 0; s < sources.size(); s++) {
            JsonArray entries = sources.get(s);
            if (entries == null) continue;
            String where = sourceNames.get(s);
            for (int i = 0; i < entries.size(); i++) {
                String at = where + " entry " + i;
                if (!(entries.getValue(i) instanceof JsonObject e)) throw new ConfigException(at + ": must be an object");
                for (String k : e.fieldNames()) {
                    if (!Set.of("name", "access", "token", "token_sha256", "prefixes", "namespaces", "grants", "client_cert_cn").contains(k)) {
                        throw new ConfigException(at + ": unknown field '" + k + "'");
                    }
                }
                String name = e.getValue("name") instanceof String n ? n : null;
                if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
                    throw new ConfigException(at + ": 'name' must be 1-64 characters of letters, digits, '.', '_' or '-'");
                }
                at = where + " entry '" + name + "'";
                AuthToken.Access access = AuthToken.Access.of(e.getValue("access"));
                if (access == null) {
                    throw new ConfigException(at + ": 'access' must be \"read\", \"read-write\" or \"admin\"");
                }
                List<String> prefixes = grants(e, "prefixes", at);
                List<String> namespaces = grants(e, "namespaces", at);
                List<CatalogGrant> catalogGrants = catalogGrants(e, at);
                if (access == AuthToken.Access.ADMIN && (prefixes != null || namespaces != null || catalogGrants != null)) {
                    throw new ConfigException(at + ": an admin entry acts on the whole service and takes no 'prefixes', 'namespaces' or 'grants'");
                }
                if (access == AuthToken.Access.READ && catalogGrants != null) {
                    for (CatalogGrant g : catalogGrants) {
                        if (!g.privileges().equals(Set.of(CatalogGrant.Privilege.READ))) {
                            throw new ConfigException(at + ": a read entry's 'grants' may hold only \"read\" (" + g + "); give the entry read-write access");
                        }
                    }
                }
                String cn = null;
                if (e.containsKey("client_cert_cn")) {
                    if (!(e.getValue("client_cert_cn") instanceof String c) || c.isBlank() || c.length() > 256) {
                        throw new ConfigException(at + ": 'client_cert_cn' must be a certificate subject's common name");
                    }
                    cn = c;
                }
                byte[] digest = null;
                boolean plain = e.containsKey("token");
                if (plain && e.containsKey("token_sha256")) {
                    throw new ConfigException(at + ": give exactly one of 'token' and 'token_sha256'");
                }
                if (!plain && !e.containsKey("token_sha256") && cn == null) {
                    throw new ConfigException(at + ": give exactly one of 'token' and 'token_sha256' (or 'client_cert_cn')");
                }
                if (plain) {
                    if (!(e.getValue("token") instanceof String t) || t.length() < MIN_TOKEN_CHARS || !t.equals(t.strip())) {
                        throw new ConfigException(at + ": 'token' must be a string of at least " + MIN_TOKEN_CHARS
                                + " characters without surrounding whitespace");
                    }
                    digest = sha256(t);
                } else if (e.containsKey("token_sha256")) {
                    Object d = e.getValue("token_sha256");
                    if (!(d instanceof String h) || !h.matches("[0-9a-fA-F]{64}")) {
                        throw new ConfigException(at + ": 'token_sha256' must be 64 hex digits (sha256sum of the token)");
                    }
                    digest = hex.parseHex(h.toLowerCase());
                }
                if (!names.add(name)) throw new ConfigException(at + ": the name is used twice");
                if (digest != null && !digests.add(hex.formatHex(digest))) {
                    throw new ConfigException(at + ": the same token is configured twice");
                }
                // One certificate, one principal: with two entries the first would silently win.
                if (cn != null && !digests.add("cn:" + cn)) {
                    throw new ConfigException(at + ": client_cert_cn '" + cn + "' names another entry's principal too");
                }
                out.add(new AuthToken(name, digest, access, prefixes, namespaces, cn, catalogGrants));
            }
        }
        return List.copyOf(out);
    }

    /**
     * A grant list: absent is {@code null} (see {@link AuthToken}); present, a non-empty array of
     * non-empty strings without NUL, at most 1,024 characters (a key's limit).
     */
    private static List<String> grants(JsonObject e, String field, String at) {
        if (!e.containsKey(field)) return null;
        if (!(e.getValue(field) instanceof JsonArray a) || a.isEmpty()) {
            throw new ConfigException(at + ": '" + field + "' must be a non-empty array of strings (omit it for no restriction)");
        }
        List<String> out = new ArrayList<>();
        for (Object o : a) {
            if (!(o instanceof String g) || g.isEmpty() || g.length() > 1024 || g.indexOf('\0') >= 0) {
                throw new ConfigException(at + ": every '" + field + "' item must be a non-empty string of at most 1024 characters");
            }
            out.add(g);
        }
        return List.copyOf(out);
    }

    /**
     * The {@code grants} field: absent is {@code null}; present, an array (empty: restricted, nothing granted yet) of
     * {@code {"namespace": NS, "name": TABLE_OR_VIEW (optional), "privileges": [...]}}.
     */
    private static List<CatalogGrant> catalogGrants(JsonObject e, String at) {
        if (!e.containsKey("grants")) return null;
        // Empty is allowed: restricted, with nothing yet (grants then come at runtime, /v1/grants).
        if (!(e.getValue("grants") instanceof JsonArray a)) {
            throw new ConfigException(at + ": 'grants' must be an array of grants ([] for none yet; omit it for no restriction)");
        }
        List<CatalogGrant> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            String g = at + " grant " + i;
            if (!(a.getValue(i) instanceof JsonObject o)) throw new ConfigException(g + ": must be an object");
            for (String k : o.fieldNames()) {
                if (!Set.of("namespace", "name", "privileges").contains(k)) throw new ConfigException(g + ": unknown field '" + k + "'");
            }
            if (!(o.getValue("namespace") instanceof String ns)) throw new ConfigException(g + ": 'namespace' must be a catalog namespace");
            Object name = o.getValue("name");
            if (name != null && !(name instanceof String)) throw new ConfigException(g + ": 'name' must be a table or view name");
            if (!(o.getValue("privileges") instanceof JsonArray ps) || ps.isEmpty()) {
                throw new ConfigException(g + ": 'privileges' must be a non-empty array of "
                        + java.util.Arrays.stream(CatalogGrant.Privilege.values()).map(CatalogGrant.Privilege::label).toList());
            }
            Set<CatalogGrant.Privilege> privileges = java.util.EnumSet.noneOf(CatalogGrant.Privilege.class);
            for (Object p : ps) {
                CatalogGrant.Privilege privilege = CatalogGrant.Privilege.of(p);
                if (privilege == null) {
                    throw new ConfigException(g + ": unknown privilege " + p + "; known: "
                            + java.util.Arrays.stream(CatalogGrant.Privilege.values()).map(CatalogGrant.Privilege::label).toList());
                }
                privileges.add(privilege);
            }
            try {
                out.add(new CatalogGrant(ns, (String) name, privileges));
            } catch (IllegalArgumentException bad) {
                throw new ConfigException(g + ": " + bad.getMessage());
            }
        }
        return List.copyOf(out);
    }

    /** SHA-256 of the token's UTF-8 bytes: what is stored and what a presented token is compared by. */
    public static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
