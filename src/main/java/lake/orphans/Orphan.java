package lake.orphans;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A file a sweep reports: where it is, its size, when it was last modified (the listing's time),
 * and which kind of orphan it is.
 */
public record Orphan(String location, long sizeBytes, long modifiedMs, Kind kind) {
    /** Why nothing references the file: the two expected kinds first. */
    public enum Kind {
        /**
         * A {@code *.metadata.json} under the table's own {@code metadata/} that is not in its log: a
         * commit that wrote it and whose fenced pointer swap never applied (a stale leader's, or one
         * whose clean-up failed), or one that fell out of the log.
         */
        STALE_METADATA("stale-metadata"),
        /** Any other file under the table's own location that its metadata does not reach (an engine's failed write). */
        UNREFERENCED_FILE("unreferenced-file"),
        /** A file under a directory the catalog handed to a create that never committed: an abandoned staged create. */
        ABANDONED_CREATE("abandoned-create");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    Map<String, Object> toMap() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("location", location);
        o.put("size-bytes", sizeBytes);
        o.put("modified-ms", modifiedMs);
        o.put("kind", kind.label());
        return o;
    }
}
