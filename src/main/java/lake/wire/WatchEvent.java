package lake.wire;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One change record as a watcher sees it, {@code {"revision","epoch","at_ms","changes":[...],"event"?}}:
 * the revision (unsigned 64-bit) and fencing epoch it was committed under, the leader's commit
 * time, the keys it changed that the watcher may see (each {@code {"key","value"}} with the new
 * value in standard base64, or {@code {"key","deleted":true}}), and for catalog and Iceberg
 * writes a typed event (the catalog's events, {@code GET /v1/catalog/events}, carry the event
 * only, without {@code changes}). The same shape is an SSE event's {@code data}, whose {@code id} is the revision.
 */
public record WatchEvent(long revision, long epoch, long atMs, List<Change> changes, Map<String, Object> event) {
    /** A key's new value, or {@code null} when the write deleted it. */
    public record Change(String key, byte[] value) {
        public Change {
            value = value == null ? null : value.clone();
        }

        @Override public byte[] value() { return value == null ? null : value.clone(); }

        public boolean deleted() { return value == null; }

        public static Change from(Map<String, Object> o) {
            String key = Fields.string(o, "key");
            if (o.get("deleted") != null) {
                if (!Fields.bool(o, "deleted")) throw new WireException("deleted", o);
                return new Change(key, null);
            }
            return new Change(key, Fields.bytes(o, "value"));
        }

        public Map<String, Object> toMap() {
            return toMap(key, value);
        }

        public static Map<String, Object> toMap(String key, byte[] value) {
            return value == null ? Fields.of("key", key, "deleted", true) : Fields.of("key", key, "value", Fields.base64(value));
        }

        @Override public boolean equals(Object o) {
            return o instanceof Change c && c.key.equals(key) && Arrays.equals(c.value, value);
        }

        @Override public int hashCode() { return key.hashCode() * 31 + Arrays.hashCode(value); }
    }

    public WatchEvent {
        changes = List.copyOf(changes);
    }

    public static WatchEvent from(Map<String, Object> o) {
        Map<String, Object> event = o.get("event") == null ? null : Fields.object(o, "event");
        return new WatchEvent(Fields.u64(o, "revision"), Fields.u64(o, "epoch"), Fields.u64(o, "at_ms"),
                o.get("changes") == null && event != null ? List.of() : Fields.records(o, "changes", Change::from), event);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> o = Fields.of("revision", Fields.u64Value(revision), "epoch", Fields.u64Value(epoch), "at_ms", atMs);
        if (!changes.isEmpty() || event == null) o.put("changes", Fields.maps(changes, Change::toMap));
        if (event != null) o.put("event", event);
        return o;
    }

    /**
     * A page of a watch, {@code {"events":[...],"cursor","more"}}: the events after the request's
     * {@code after} that the caller may see, in revision order; {@code cursor} is where the next
     * request resumes ({@code after=cursor}): the revision of the last record read, shown or not;
     * {@code more}: another page is ready now.
     */
    public record Page(List<WatchEvent> events, long cursor, boolean more) {
        public Page {
            events = List.copyOf(events);
        }

        public static Page from(Map<String, Object> o) {
            return new Page(Fields.records(o, "events", WatchEvent::from), Fields.u64(o, "cursor"), Fields.bool(o, "more"));
        }

        public Map<String, Object> toMap() {
            return Fields.of("events", Fields.maps(events, WatchEvent::toMap), "cursor", Fields.u64Value(cursor), "more", more);
        }

        /** The JSON of a page of events already rendered. */
        public static Map<String, Object> toMap(List<Object> events, long cursor, boolean more) {
            return Fields.of("events", new ArrayList<>(events), "cursor", Fields.u64Value(cursor), "more", more);
        }
    }
}
