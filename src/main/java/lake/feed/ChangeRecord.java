package lake.feed;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one applied mutation changed, stored at {@link Revisions#key} in the mutation's own fenced
 * transaction: the keys it wrote with their new values (or their deletion), the epoch it was
 * decided under, the leader's commit time, and for catalog and Iceberg writes a typed event.
 *
 * <p>A <em>void</em> record holds nothing: it is what the leader writes at a revision whose write
 * had an unknown outcome, to settle it (if the void record applies, the write's own record never
 * can, its key being taken). Readers skip void records.
 *
 * <p>Stored as JSON, u64 fields as decimal strings, values in standard base64. Immutable.
 */
public record ChangeRecord(long revision, long epoch, long atMs, List<Change> changes, JsonObject event, boolean isVoid) {

    /** One key's change: its new value, or {@code null} when the mutation deleted it. */
    public record Change(String key, byte[] value) {
        public Change {
            Objects.requireNonNull(key, "key");
            value = value == null ? null : value.clone();
        }

        @Override public byte[] value() { return value == null ? null : value.clone(); }

        public boolean deleted() { return value == null; }

        /** The new value's length in bytes (0 when deleted), without copying it. */
        public int valueLength() { return value == null ? 0 : value.length; }

        @Override public boolean equals(Object o) {
            return o instanceof Change c && c.key.equals(key) && Arrays.equals(c.value, value);
        }

        @Override public int hashCode() { return key.hashCode() * 31 + Arrays.hashCode(value); }
    }

    public ChangeRecord {
        if (revision == 0) throw new IllegalArgumentException("revision 0 is never allocated");
        changes = List.copyOf(changes);
        event = event == null ? null : event.copy();
        if (isVoid && (!changes.isEmpty() || event != null)) throw new IllegalArgumentException("a void record holds nothing");
        if (!isVoid && changes.isEmpty() && event == null) {
            throw new IllegalArgumentException("revision " + Long.toUnsignedString(revision) + ": a record names at least one change");
        }
        Set<String> keys = new HashSet<>();
        for (Change c : changes) {
            if (!keys.add(c.key())) throw new IllegalArgumentException("key '" + c.key() + "' changes twice in one record");
        }
    }

    /** The record of an applied write. */
    public static ChangeRecord of(long revision, long epoch, long atMs, List<Change> changes, JsonObject event) {
        return new ChangeRecord(revision, epoch, atMs, changes, event, false);
    }

    /** The void record that settles {@code revision} as a write that did not apply. */
    public static ChangeRecord voidAt(long revision, long epoch, long atMs) {
        return new ChangeRecord(revision, epoch, atMs, List.of(), null, true);
    }

    @Override public JsonObject event() { return event == null ? null : event.copy(); }

    public byte[] encode() {
        return toJson().encode().getBytes(StandardCharsets.UTF_8);
    }

    /** The record as JSON (what {@link #encode} stores). */
    public JsonObject toJson() {
        JsonObject o = new JsonObject().put("revision", Long.toUnsignedString(revision)).put("epoch", Long.toUnsignedString(epoch))
                .put("at_ms", atMs);
        if (isVoid) return o.put("void", true);
        JsonArray cs = new JsonArray();
        for (Change c : changes) {
            JsonObject j = new JsonObject().put("key", c.key());
            if (c.deleted()) j.put("deleted", true);
            else j.put("value", Base64.getEncoder().encodeToString(c.value));
            cs.add(j);
        }
        o.put("changes", cs);
        if (event != null) o.put("event", event.copy());
        return o;
    }

    /**
     * @throws IllegalArgumentException when {@code bytes} is not a record this class wrote
     */
    public static ChangeRecord decode(byte[] bytes) {
        JsonObject o;
        try {
            o = new JsonObject(new String(bytes, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a change record: " + e.getMessage(), e);
        }
        return fromJson(o);
    }

    /**
     * @throws IllegalArgumentException when {@code o} is not a record {@link #toJson} wrote
     */
    public static ChangeRecord fromJson(JsonObject o) {
        try {
            long revision = Long.parseUnsignedLong(o.getString("revision"));
            long epoch = Long.parseUnsignedLong(o.getString("epoch"));
            long atMs = o.getLong("at_ms");
            if (o.getBoolean("void", false)) return voidAt(revision, epoch, atMs);
            List<Change> changes = new ArrayList<>();
            for (Object x : o.getJsonArray("changes")) {
                JsonObject c = (JsonObject) x;
                changes.add(new Change(c.getString("key"), c.getBoolean("deleted", false) ? null
                        : Base64.getDecoder().decode(c.getString("value"))));
            }
            return of(revision, epoch, atMs, changes, o.getJsonObject("event"));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a change record: " + e.getMessage(), e);
        }
    }
}
