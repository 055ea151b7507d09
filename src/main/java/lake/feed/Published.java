package lake.feed;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/**
 * A run of the feed the leader's watermark has just passed: every record in revisions
 * ({@code from}, {@code to}] of {@code epoch}, in revision order ({@code records}), or, when
 * {@code records} is {@code null}, a run whose records only the store knows (readers read it);
 * {@code floor}: the compaction floor as the publisher knew it (0: none known).
 * {@code last} is the greatest revision at or below {@code to} that a record held when the run
 * left (or a revision below which every record is older): the only "current revision" a reader
 * may be given. A heartbeat is a run with {@code from == to} and no records.
 *
 * <p>Every revision in a run is settled: its record exists for good, or never will.
 */
public record Published(long epoch, long from, long to, long last, List<ChangeRecord> records, long floor) {
    public Published(long epoch, long from, long to, long last, List<ChangeRecord> records) {
        this(epoch, from, to, last, records, 0);
    }

    /** This run, carrying the compaction floor as its publisher knows it (records at or below it are gone from the store). */
    public Published withFloor(long floor) {
        return new Published(epoch, from, to, last, records, floor);
    }

    public Published {
        if (Long.compareUnsigned(from, to) > 0) throw new IllegalArgumentException("a run ends at or above where it starts");
        if (Long.compareUnsigned(last, to) > 0) throw new IllegalArgumentException("last record " + Long.toUnsignedString(last)
                + " is above the run's end " + Long.toUnsignedString(to));
        if (records != null) {
            records = List.copyOf(records);
            long previous = from;
            for (ChangeRecord r : records) {
                if (Long.compareUnsigned(r.revision(), previous) <= 0 || Long.compareUnsigned(r.revision(), to) > 0 || r.isVoid()) {
                    throw new IllegalArgumentException("record " + Long.toUnsignedString(r.revision()) + " is out of order or outside ("
                            + Long.toUnsignedString(from) + ", " + Long.toUnsignedString(to) + "], or void");
                }
                previous = r.revision();
            }
        }
    }

    /** A run whose records readers take from the store. */
    public static Published fromStore(long epoch, long from, long to, long last) {
        return new Published(epoch, from, to, last, null);
    }

    public boolean complete() {
        return records != null;
    }

    public JsonObject toJson() {
        JsonObject o = new JsonObject().put("epoch", Long.toUnsignedString(epoch)).put("from", Long.toUnsignedString(from))
                .put("to", Long.toUnsignedString(to)).put("last", Long.toUnsignedString(last)).put("floor", Long.toUnsignedString(floor));
        if (records != null) {
            JsonArray rs = new JsonArray();
            for (ChangeRecord r : records) rs.add(r.toJson());
            o.put("records", rs);
        }
        return o;
    }

    /** @throws IllegalArgumentException when {@code o} is not a run {@link #toJson} wrote */
    public static Published fromJson(JsonObject o) {
        try {
            JsonArray rs = o.getJsonArray("records");
            List<ChangeRecord> records = null;
            if (rs != null) {
                records = new ArrayList<>(rs.size());
                for (Object r : rs) records.add(ChangeRecord.fromJson((JsonObject) r));
            }
            return new Published(Long.parseUnsignedLong(o.getString("epoch")), Long.parseUnsignedLong(o.getString("from")),
                    Long.parseUnsignedLong(o.getString("to")), Long.parseUnsignedLong(o.getString("last")), records,
                    Long.parseUnsignedLong(o.getString("floor", "0")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a published run: " + e.getMessage(), e);
        }
    }
}
