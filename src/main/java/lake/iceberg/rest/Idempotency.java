package lake.iceberg.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import lake.iceberg.RequestScope;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The spec's {@code Idempotency-Key}: a mutation's record, written in the same fenced transaction
 * as the mutation itself, holds the request's fingerprint and what it answered, and lives for
 * {@link #LIFETIME_MS}. Stored as compact JSON:
 * {@code {"fingerprint","expires_at_ms","status","kind","metadata_location"?,"body"?}}.
 */
public final class Idempotency {
    /** How long a key is remembered; {@code GET /v1/config} advertises it as {@link #LIFETIME}. */
    public static final long LIFETIME_MS = 30 * 60 * 1000L;
    static final String LIFETIME = "PT30M";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Idempotency() {}

    /** A stored record: the request it answered (fingerprint), until when, and the answer. */
    record Record(String fingerprint, long expiresAtMs, RequestScope.Outcome outcome) {
        boolean expiredAt(long nowMs) {
            return nowMs >= expiresAtMs;
        }

        byte[] toBytes() {
            ObjectNode o = JSON.createObjectNode();
            o.put("fingerprint", fingerprint);
            o.put("expires_at_ms", expiresAtMs);
            o.put("status", outcome.status());
            o.put("kind", outcome.kind());
            if (outcome.metadataLocation() != null) o.put("metadata_location", outcome.metadataLocation());
            if (outcome.body() != null) o.put("body", outcome.body());
            try {
                return JSON.writeValueAsBytes(o);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The record in {@code bytes}; an unreadable one is {@link IllegalStateException} (never guessed at). */
        static Record parse(byte[] bytes) {
            try {
                JsonNode o = JSON.readTree(bytes);
                JsonNode ml = o.get("metadata_location");
                JsonNode body = o.get("body");
                return new Record(o.get("fingerprint").asText(), o.get("expires_at_ms").asLong(), new RequestScope.Outcome(
                        o.get("status").asInt(), o.get("kind").asText(), ml == null ? null : ml.asText(), body == null ? null : body.asText()));
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException("unreadable idempotency record", e);
            }
        }
    }

    /** What identifies a request: its method, its path, its query and its body, hashed (SHA-256). */
    static String fingerprint(IcebergRequest r) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update((r.method() + " /" + String.join("/", r.segments()) + "?" + new java.util.TreeMap<>(r.query()) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            d.update(r.body());
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static boolean expired(byte[] record, long nowMs) {
        try {
            return Record.parse(record).expiredAt(nowMs);
        } catch (IllegalStateException unreadable) {
            return false;
        }
    }
}
