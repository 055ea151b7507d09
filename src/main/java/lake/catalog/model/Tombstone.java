package lake.catalog.model;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;

/**
 * A drop tombstone at {@code drop/<ns>/<name>/<incarnation>}:
 * {@code {"table":{"namespace","name"},"dropped_ms":…,"registration":{…}}}, the registration
 * embedded verbatim (its exact stored bytes). {@code incarnation} is the key segment: the dropped
 * registration's incarnation id, or {@code "legacy"} when it had none. It stays until purged, so
 * the table can be undropped and a data garbage collector can find what to delete. A tombstone
 * lake itself wrote at {@code drop/<ns>/<name>} (an interrupted lake drop) is listed with
 * {@code incarnation == null}; one written before drops were timed has {@code droppedMs == null}.
 */
public record Tombstone(String namespace, String name, String incarnation, Long droppedMs, Registration registration) {

    /** The tombstone of {@code registration}, dropped at {@code droppedMs}, the registration's exact bytes embedded as they are. */
    public static byte[] encode(String ns, String name, long droppedMs, Registration registration) {
        ObjectNode table = CatalogJson.JSON.createObjectNode().put("namespace", ns).put("name", name);
        byte[] head = ("{\"table\":" + new String(CatalogJson.write(table), StandardCharsets.UTF_8) + ",\"dropped_ms\":" + droppedMs
                + ",\"registration\":").getBytes(StandardCharsets.UTF_8);
        byte[] reg = registration.storedBytes();
        byte[] out = new byte[head.length + reg.length + 1];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(reg, 0, out, head.length, reg.length);
        out[out.length - 1] = '}';
        return out;
    }

    /** Where this tombstone is stored. */
    public String key() {
        return incarnation == null ? CatalogKeys.TOMBSTONES + namespace + '/' + name : CatalogKeys.tombstone(namespace, name, incarnation);
    }

    public static Tombstone parse(String key, byte[] stored) {
        String what = "tombstone " + key;
        String[] seg = CatalogKeys.segments(CatalogKeys.TOMBSTONES, key);
        if (seg.length != 2 && seg.length != 3) {
            throw CatalogJson.corrupt(what, "is not keyed drop/<ns>/<name>/<incarnation>");
        }
        ObjectNode json = CatalogJson.parseObject(what, stored);
        Long dropped = null;
        if (json.get("dropped_ms") != null) {
            dropped = CatalogJson.unsigned64(json.get("dropped_ms"));
            if (dropped == null) throw CatalogJson.corrupt(what, "has a dropped_ms that is not an unsigned 64-bit integer");
        }
        return new Tombstone(seg[0], seg[1], seg.length == 3 ? seg[2] : null, dropped, Registration.fromTree(what, json.get("registration")));
    }
}
