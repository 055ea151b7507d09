package lake.config;

import java.util.Arrays;

/**
 * One configured API token. Only its SHA-256 digest is kept in memory after start-up, so neither a
 * heap dump nor {@link Settings#toJson()} reveals the token itself.
 *
 * @param name      an operator's label for the token (logged and counted instead of the token)
 * @param sha256    SHA-256 of the token's UTF-8 bytes, 32 bytes
 * @param readWrite {@code true}: may read and write; {@code false}: reads only
 */
public record AuthToken(String name, byte[] sha256, boolean readWrite) {
    public AuthToken {
        if (sha256 == null || sha256.length != 32) throw new IllegalArgumentException("sha256 must be 32 bytes");
        sha256 = sha256.clone();
    }

    @Override
    public byte[] sha256() {
        return sha256.clone();
    }

    public String access() {
        return readWrite ? "read-write" : "read";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthToken t && t.name.equals(name) && Arrays.equals(t.sha256, sha256) && t.readWrite == readWrite;
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /** Never prints the digest: even a digest of a weak token is worth guessing against. */
    @Override
    public String toString() {
        return "AuthToken[" + name + ", " + access() + "]";
    }
}
