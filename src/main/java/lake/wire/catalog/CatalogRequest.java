package lake.wire.catalog;

import lake.wire.Fields;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request bodies a client sends to the catalog's operations on the event bus (over HTTP the
 * names travel in the path and the rest in the query or body, as docs/catalog.md says): one
 * record per shape, each with its strict decoder ({@code from}) and its JSON ({@link #toMap()}).
 */
public sealed interface CatalogRequest {
    /** The body as JSON members, in the documented order; optional members left out when absent. */
    Map<String, Object> toMap();

    /**
     * {@code POST /v1/namespaces}, {@code {"namespace","properties"?}}: the properties (string to
     * string) in the order given; none are left out of the JSON.
     */
    public record CreateNamespace(String namespace, Map<String, String> properties) implements CatalogRequest {
        public CreateNamespace {
            properties = properties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        }

        public static CreateNamespace from(Map<String, Object> o) {
            return new CreateNamespace(Fields.string(o, "namespace"),
                    o.get("properties") == null ? Map.of() : Fields.stringMap(o, "properties"));
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of("namespace", namespace);
            if (!properties.isEmpty()) o.put("properties", properties);
            return o;
        }
    }

    /** A get or drop of a namespace on the event bus, {@code {"namespace"}}; over HTTP the name is the path. */
    public record NamespaceName(String namespace) implements CatalogRequest {
        public static NamespaceName from(Map<String, Object> o) { return new NamespaceName(Fields.string(o, "namespace")); }

        @Override public Map<String, Object> toMap() { return Fields.of("namespace", namespace); }
    }

    /**
     * A table create, {@code {"namespace","name","columns":["name:type",…],"engine"?}} on the event
     * bus; over HTTP ({@code POST /v1/namespaces/{ns}/tables}) the namespace is the path and the body
     * {@link #httpBody()}. {@code engine} {@code null} (left out) is the server's default.
     */
    public record CreateTable(String namespace, String name, List<String> columns, String engine) implements CatalogRequest {
        public CreateTable {
            columns = List.copyOf(columns);
        }

        public static CreateTable from(Map<String, Object> o) {
            return new CreateTable(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.strings(o, "columns"),
                    Fields.stringOrNull(o, "engine"));
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of("namespace", namespace);
            o.putAll(httpBody());
            return o;
        }

        /** {@code {"name","columns","engine"?}}: {@link #toMap()} without the namespace the path carries. */
        public Map<String, Object> httpBody() {
            Map<String, Object> o = Fields.of("name", name, "columns", columns);
            if (engine != null) o.put("engine", engine);
            return o;
        }
    }

    /** A table drop on the event bus, {@code {"namespace","name"}}; over HTTP both are the path. */
    public record TableName(String namespace, String name) implements CatalogRequest {
        public static TableName from(Map<String, Object> o) {
            return new TableName(Fields.string(o, "namespace"), Fields.string(o, "name"));
        }

        @Override public Map<String, Object> toMap() { return Fields.of("namespace", namespace, "name", name); }
    }

    /**
     * A table drop on the event bus, {@code {"namespace","name","purge"?}}: with {@code purge} the
     * dropped incarnation is queued for purge in the drop's transaction; {@code false} is left out
     * (the plain drop's body, {@link TableName}'s). Over HTTP the names are the path and
     * {@code purge=true} the query.
     */
    public record DropTable(String namespace, String name, boolean purge) implements CatalogRequest {
        public static DropTable from(Map<String, Object> o) {
            return new DropTable(Fields.string(o, "namespace"), Fields.string(o, "name"), o.get("purge") != null && Fields.bool(o, "purge"));
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of("namespace", namespace, "name", name);
            if (purge) o.put("purge", true);
            return o;
        }
    }

    /**
     * A version commit, {@code {"namespace","name","expected_version","version","incarnation_id"?}}
     * on the event bus; over HTTP ({@code POST …/tables/{name}/versions}) the names are the path and
     * the body {@link #httpBody()}. Versions are unsigned 64-bit; {@code incarnationId} {@code null}
     * (left out) accepts any incarnation.
     */
    public record CommitVersion(String namespace, String name, long expectedVersion, long version, String incarnationId) implements CatalogRequest {
        public static CommitVersion from(Map<String, Object> o) {
            return new CommitVersion(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.u64(o, "expected_version"),
                    Fields.u64(o, "version"), Fields.stringOrNull(o, "incarnation_id"));
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of("namespace", namespace, "name", name);
            o.putAll(httpBody());
            return o;
        }

        /** {@code {"expected_version","version","incarnation_id"?}}: {@link #toMap()} without the names the path carries. */
        public Map<String, Object> httpBody() {
            Map<String, Object> o = Fields.of("expected_version", Fields.u64Value(expectedVersion), "version", Fields.u64Value(version));
            if (incarnationId != null) o.put("incarnation_id", incarnationId);
            return o;
        }
    }

    /**
     * A resolve on the event bus, {@code {"namespace","name","known_version"?,"wait_ms"?}}; over HTTP
     * the names are the path and the rest the query. With {@code knownVersion} (unsigned 64-bit) the
     * answer is a {@link TableChange}, waiting up to {@code waitMs} for one; each is left out when
     * {@code null}.
     */
    public record Resolve(String namespace, String name, Long knownVersion, Long waitMs) implements CatalogRequest {
        public static Resolve from(Map<String, Object> o) {
            return new Resolve(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.u64OrNull(o, "known_version"),
                    Fields.u64OrNull(o, "wait_ms"));
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of("namespace", namespace, "name", name);
            if (knownVersion != null) o.put("known_version", Fields.u64Value(knownVersion));
            if (waitMs != null) o.put("wait_ms", waitMs);
            return o;
        }
    }

    /**
     * A catalog snapshot on the event bus, {@code {"known_generation"?,"wait_ms"?}}; over HTTP the
     * query. With {@code knownGeneration} the answer may be not modified, after waiting up to
     * {@code waitMs} for a change; each is left out when {@code null}.
     */
    public record Snapshot(String knownGeneration, Long waitMs) implements CatalogRequest {
        public static Snapshot from(Map<String, Object> o) {
            return new Snapshot(Fields.stringOrNull(o, "known_generation"), Fields.u64OrNull(o, "wait_ms"));
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of();
            if (knownGeneration != null) o.put("known_generation", knownGeneration);
            if (waitMs != null) o.put("wait_ms", waitMs);
            return o;
        }
    }

    /**
     * A page of a catalog listing on the event bus — namespaces and tombstones ({@code namespace}
     * {@code null}), or the tables of {@code namespace}: {@code {"namespace"?,"limit","continuation"?}};
     * over HTTP the namespace is the path and the rest the query. {@code continuation} {@code null}
     * (left out) asks for the first page.
     */
    public record Page(String namespace, int limit, String continuation) implements CatalogRequest {
        public static Page from(Map<String, Object> o) {
            return new Page(Fields.stringOrNull(o, "namespace"), Fields.int32(o, "limit"), Fields.stringOrNull(o, "continuation"));
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = Fields.of();
            if (namespace != null) o.put("namespace", namespace);
            o.put("limit", (long) limit);
            if (continuation != null) o.put("continuation", continuation);
            return o;
        }
    }

    /**
     * An undrop, {@code {"namespace","name","incarnation_id"?,"to_namespace"?,"to_name"?}}: the
     * dropped table (its only dropped incarnation when none is named) and the name it goes back to
     * (its own when not given). Over HTTP the first two are the path ({@link #httpBody()}).
     */
    public record Undrop(String namespace, String name, String incarnationId, String toNamespace, String toName) implements CatalogRequest {
        public static Undrop from(Map<String, Object> o) {
            return new Undrop(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.stringOrNull(o, "incarnation_id"),
                    Fields.stringOrNull(o, "to_namespace"), Fields.stringOrNull(o, "to_name"));
        }

        /** The HTTP body: only the members given. */
        public Map<String, Object> httpBody() {
            Map<String, Object> o = new java.util.LinkedHashMap<>();
            if (incarnationId != null) o.put("incarnation_id", incarnationId);
            if (toNamespace != null) o.put("to_namespace", toNamespace);
            if (toName != null) o.put("to_name", toName);
            return o;
        }

        @Override public Map<String, Object> toMap() {
            Map<String, Object> o = new java.util.LinkedHashMap<>(Fields.of("namespace", namespace, "name", name));
            o.putAll(httpBody());
            return o;
        }
    }

    /** A tombstone purge on the event bus, {@code {"namespace","name","incarnation_id"}}; over HTTP all three are the path. */
    public record Purge(String namespace, String name, String incarnationId) implements CatalogRequest {
        public static Purge from(Map<String, Object> o) {
            return new Purge(Fields.string(o, "namespace"), Fields.string(o, "name"), Fields.string(o, "incarnation_id"));
        }

        @Override public Map<String, Object> toMap() { return Fields.of("namespace", namespace, "name", name, "incarnation_id", incarnationId); }
    }
}
