package lake.catalog.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A table's registration as stored at {@code tbl/<ns>/<name>}: compact JSON whose members are
 * {@code location, engine, current_version, incarnation_id, columns} in that order, then any
 * members this version does not know (lake writes {@code schema_ipc}), which are kept intact and
 * in place on every rewrite. A missing {@code incarnation_id} is a legacy table (lake's entries
 * before incarnations); missing {@code columns} means the columns are unknown; a missing
 * {@code engine} reads as {@value #DEFAULT_ENGINE}. {@code current_version} is unsigned 64-bit.
 *
 * <p>Immutable: the JSON tree is private and copied out; {@link #bytes()} are the exact bytes it
 * was read from (or written as), which the catalog uses as transaction conditions.
 */
public final class Registration {
    public static final String DEFAULT_ENGINE = "lance";
    /** The member naming a pointer table's current metadata file (Iceberg's {@code metadata_location}). */
    public static final String METADATA_LOCATION = "metadata_location";
    /**
     * The member ({@code true}) saying the create claimed {@code location} for this incarnation
     * (the claim at {@code __lake_internal/assigned-locations/…} is never given to another table).
     */
    public static final String LOCATION_ASSIGNED = "location_assigned";

    private final ObjectNode json;
    private final byte[] bytes;
    private final String location;
    private final String engine;
    private final long currentVersion;
    private final String incarnationId;
    private final List<Column> columns;

    private Registration(ObjectNode json, byte[] bytes, String what) {
        this.json = json;
        this.bytes = bytes;
        this.location = CatalogJson.text(json.get("location"));
        if (location == null) throw CatalogJson.corrupt(what, "has no string location");
        JsonNode e = json.get("engine");
        this.engine = e == null ? DEFAULT_ENGINE : CatalogJson.text(e);
        if (engine == null) throw CatalogJson.corrupt(what, "has a non-string engine");
        Long version = CatalogJson.unsigned64(json.get("current_version"));
        if (version == null) throw CatalogJson.corrupt(what, "has no unsigned 64-bit current_version");
        this.currentVersion = version;
        JsonNode inc = json.get("incarnation_id");
        this.incarnationId = inc == null ? null : CatalogJson.text(inc);
        if (inc != null && incarnationId == null) throw CatalogJson.corrupt(what, "has a non-string incarnation_id");
        this.columns = readColumns(json.get("columns"), what);
    }

    private static List<Column> readColumns(JsonNode node, String what) {
        if (node == null) return null;
        if (!node.isArray()) throw CatalogJson.corrupt(what, "has columns that are not a list");
        List<Column> out = new ArrayList<>(node.size());
        for (JsonNode c : node) {
            String name = CatalogJson.text(c.get("name"));
            String type = CatalogJson.text(c.get("type"));
            if (name == null || type == null) throw CatalogJson.corrupt(what, "has a column without a string name and type");
            out.add(new Column(name, type));
        }
        return List.copyOf(out);
    }

    /** Reads stored bytes; {@code what} names the record in a {@link CatalogException.CorruptRecord}. */
    public static Registration parse(String what, byte[] stored) {
        return new Registration(CatalogJson.parseObject(what, stored), stored.clone(), what);
    }

    /** Reads a registration embedded in another record (a tombstone). */
    public static Registration fromTree(String what, JsonNode node) {
        if (!(node instanceof ObjectNode object)) throw CatalogJson.corrupt(what, "has no registration object");
        return new Registration(object.deepCopy(), CatalogJson.write(object), what);
    }

    /** A new table's registration at version 0, members in lake's order with {@code columns} last. */
    public static Registration create(String location, String engine, String incarnationId, List<Column> columns) {
        ObjectNode json = CatalogJson.JSON.createObjectNode();
        json.put("location", location);
        json.put("engine", engine);
        json.put("current_version", 0L);
        json.put("incarnation_id", incarnationId);
        ArrayNode cols = json.putArray("columns");
        for (Column c : columns) cols.addObject().put("name", c.name()).put("type", c.type());
        return new Registration(json, CatalogJson.write(json), "new registration");
    }

    /**
     * A new pointer table's registration (an engine such as Iceberg that keeps its own metadata
     * files): lake's members without {@code columns} (unknown to the catalog), then
     * {@code metadata_location}, the file the engine's current state is in.
     */
    public static Registration createPointer(String location, String engine, String incarnationId, String metadataLocation) {
        return pointer(location, engine, incarnationId, metadataLocation, false);
    }

    /**
     * A new pointer table's registration that claims {@code location}: marked
     * {@value #LOCATION_ASSIGNED}, and only together with the claim, which the same transaction
     * must create ({@link Claiming#claimKey()} absent, then {@link Claiming#claim()}): the mark is
     * true only of the one registration whose create wrote the claim.
     */
    public static Claiming createClaimingPointer(String location, String engine, String incarnationId, String metadataLocation, String ns, String name) {
        return new Claiming(pointer(location, engine, incarnationId, metadataLocation, true), CatalogKeys.assignedLocation(location),
                CatalogKeys.assignment(location, ns, name, incarnationId));
    }

    /** A registration marked as its location's, and the claim to create with it. */
    public record Claiming(Registration registration, String claimKey, byte[] claim) {
        public Claiming {
            claim = claim.clone();
        }

        @Override
        public byte[] claim() {
            return claim.clone();
        }
    }

    private static Registration pointer(String location, String engine, String incarnationId, String metadataLocation, boolean locationAssigned) {
        ObjectNode json = CatalogJson.JSON.createObjectNode();
        json.put("location", location);
        json.put("engine", engine);
        json.put("current_version", 0L);
        json.put("incarnation_id", incarnationId);
        json.put(METADATA_LOCATION, metadataLocation);
        if (locationAssigned) json.put(LOCATION_ASSIGNED, true);
        return new Registration(json, CatalogJson.write(json), "new registration");
    }

    /**
     * The same registration pointing at {@code metadataLocation}, with {@code current_version} one
     * higher (so lake's version long polls see every pointer swap); every other member is kept in place.
     */
    public Registration withMetadataLocation(String metadataLocation) {
        ObjectNode copy = json.deepCopy();
        copy.set("current_version", CatalogJson.unsigned64Node(currentVersion + 1));
        copy.put(METADATA_LOCATION, metadataLocation);
        return new Registration(copy, CatalogJson.write(copy), "updated registration");
    }

    /** The same registration with only {@code current_version} changed, in place; every other member is kept. */
    public Registration withCurrentVersion(long version) {
        ObjectNode copy = json.deepCopy();
        copy.set("current_version", CatalogJson.unsigned64Node(version));
        return new Registration(copy, CatalogJson.write(copy), "updated registration");
    }

    public String location() { return location; }
    /** The engine's metadata file (a pointer table's current state); empty for tables that have none (lance). */
    public Optional<String> metadataLocation() {
        JsonNode m = json.get(METADATA_LOCATION);
        return Optional.ofNullable(m == null ? null : CatalogJson.text(m));
    }
    /**
     * Whether {@link #location()} was claimed for this incarnation when it was created: no other
     * table, before or after, was created there by the catalog. Kept through commits, renames and drops.
     */
    public boolean locationAssigned() {
        JsonNode a = json.get(LOCATION_ASSIGNED);
        return a != null && a.isBoolean() && a.booleanValue();
    }
    public String engine() { return engine; }
    /** The current version, unsigned 64-bit ({@link Long#toUnsignedString} to print it). */
    public long currentVersion() { return currentVersion; }
    /** The incarnation id; empty for a legacy registration written without one. */
    public Optional<String> incarnationId() { return Optional.ofNullable(incarnationId); }
    /** The columns; empty when the registration does not list them (e.g. written by lake). */
    public Optional<List<Column>> columns() { return Optional.ofNullable(columns); }
    /** The whole registration as JSON, unknown members included (a copy). */
    public ObjectNode toJson() { return json.deepCopy(); }
    /** The exact stored bytes (a copy). */
    public byte[] bytes() { return bytes.clone(); }

    /** The stored bytes themselves, not a copy, for this package's records (a tombstone embeds them); never changed. */
    byte[] storedBytes() { return bytes; }

    @Override
    public boolean equals(Object o) {
        return o instanceof Registration r && Arrays.equals(bytes, r.bytes);
    }

    @Override
    public int hashCode() { return Arrays.hashCode(bytes); }

    @Override
    public String toString() { return "Registration" + json; }
}
