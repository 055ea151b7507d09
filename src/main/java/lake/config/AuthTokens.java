package lake.config;

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
 * from. An entry is {@code {"name", "access": "read"|"read-write", "token_sha256": hex}} or, with
 * {@code "token"} instead of {@code "token_sha256"}, the token itself. Plaintext tokens are refused
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

    /** Reads {@code auth_tokens_file}: a JSON array of entries, not readable by other users. */
    static JsonArray readFile(Path path) {
        PrivateFiles.check(path, "auth-tokens-file", "tokens", true);
        try {
            return new JsonArray(Files.readString(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ConfigException("auth-tokens-file: cannot read " + path + ": " + e.getMessage());
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
                    if (!Set.of("name", "access", "token", "token_sha256").contains(k)) {
                        throw new ConfigException(at + ": unknown field '" + k + "'");
                    }
                }
                String name = e.getValue("name") instanceof String n ? n : null;
                if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
                    throw new ConfigException(at + ": 'name' must be 1-64 characters of letters, digits, '.', '_' or '-'");
                }
                at = where + " entry '" + name + "'";
                Object access = e.getValue("access");
                if (!"read".equals(access) && !"read-write".equals(access)) {
                    throw new ConfigException(at + ": 'access' must be \"read\" or \"read-write\"");
                }
                byte[] digest;
                boolean plain = e.containsKey("token");
                if (plain == e.containsKey("token_sha256")) {
                    throw new ConfigException(at + ": give exactly one of 'token' and 'token_sha256'");
                }
                if (plain) {
                    if (!(e.getValue("token") instanceof String t) || t.length() < MIN_TOKEN_CHARS || !t.equals(t.strip())) {
                        throw new ConfigException(at + ": 'token' must be a string of at least " + MIN_TOKEN_CHARS
                                + " characters without surrounding whitespace");
                    }
                    digest = sha256(t);
                } else {
                    Object d = e.getValue("token_sha256");
                    if (!(d instanceof String h) || !h.matches("[0-9a-fA-F]{64}")) {
                        throw new ConfigException(at + ": 'token_sha256' must be 64 hex digits (sha256sum of the token)");
                    }
                    digest = hex.parseHex(h.toLowerCase());
                }
                if (!names.add(name)) throw new ConfigException(at + ": the name is used twice");
                if (!digests.add(hex.formatHex(digest))) throw new ConfigException(at + ": the same token is configured twice");
                out.add(new AuthToken(name, digest, "read-write".equals(access)));
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
