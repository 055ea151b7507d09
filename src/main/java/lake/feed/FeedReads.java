package lake.feed;

import io.vertx.core.Future;
import lake.meta.KeyValue;
import lake.meta.MetaStore;
import lake.meta.ScanPage;

import java.util.ArrayList;
import java.util.List;

/** Reads change records from the store in revision order, assembling records stored in parts. */
public final class FeedReads {
    /** Items read per store page. */
    static final int PAGE_ITEMS = 256;

    private FeedReads() {}

    /** A read met a record it could not read whole: compacted while being read, or (DynamoDB) seen mid-commit. */
    public static final class Compacted extends RuntimeException {
        public Compacted(String message) { super(message, null, false, false); }
    }

    /** A record as stored: the record and the keys of its items (part 0 first). */
    public record Stored(ChangeRecord record, List<String> keys) {
        public Stored {
            keys = List.copyOf(keys);
        }
    }

    /**
     * The records (void ones included) with revisions in ({@code after}, {@code upTo}], at most
     * {@code limit}, ascending. Every record returned is whole: its parts were written in one
     * transaction, so a record's first part implies the rest — unless compaction deleted it
     * between two store pages, or (DynamoDB: a Query is read-committed per item, not per
     * transaction) the read saw a record's transaction half committed; then the read fails with
     * {@link Compacted}, and a reader re-reads the floor: above {@code after}, records are gone;
     * else it reads again. (A read that completes may still have been overtaken by compaction below what
     * it returned: readers that must not miss records compare the floor, read after, with
     * {@code after}.)
     */
    public static Future<List<ChangeRecord>> read(MetaStore store, long after, long upTo, int limit) {
        return items(store, after, upTo, limit).map(stored -> stored.stream().map(Stored::record).toList());
    }

    /** As {@link #read}, with each record's item keys. */
    public static Future<List<Stored>> items(MetaStore store, long after, long upTo, int limit) {
        return items(store, after, upTo, limit, Long.MAX_VALUE, new boolean[1]);
    }

    /** Records read, and whether they are every record up to the read's end ({@code false}: it stopped at its limit or byte budget). */
    public record Batch(List<ChangeRecord> records, boolean whole) {
        public Batch {
            records = List.copyOf(records);
        }
    }

    /** As {@link #read}, stopping once the records read hold {@code maxBytes} (at least one record is read). */
    public static Future<Batch> batch(MetaStore store, long after, long upTo, int limit, long maxBytes) {
        boolean[] whole = {true};
        return items(store, after, upTo, limit, maxBytes, whole)
                .map(stored -> new Batch(stored.stream().map(Stored::record).toList(), whole[0]));
    }

    private static Future<List<Stored>> items(MetaStore store, long after, long upTo, int limit, long maxBytes, boolean[] whole) {
        if (limit < 1) throw new IllegalArgumentException("limit must be positive");
        List<Stored> out = new ArrayList<>();
        whole[0] = true;
        if (Long.compareUnsigned(after, upTo) >= 0) return Future.succeededFuture(out);
        // Past every part of `after` (its parts sort right after its key).
        String start = ScanPage.continuationAfter(Revisions.PREFIX, Revisions.partKey(after, Revisions.MAX_PARTS));
        return page(store, start, upTo, limit, maxBytes, new long[1], whole, out, new ArrayList<>());
    }

    private static Future<List<Stored>> page(MetaStore store, String continuation, long upTo, int limit, long maxBytes, long[] bytes,
                                             boolean[] whole, List<Stored> out, List<KeyValue> pending) {
        // A small read asks for little more than it needs; a record in parts continues on the next page.
        return store.scanPrefix(Revisions.PREFIX, continuation, Math.min(PAGE_ITEMS, limit + 1)).compose(p -> {
            for (KeyValue kv : p.entries()) {
                long revision = Revisions.parse(kv.key());
                boolean first = Revisions.part(kv.key()) == 0;
                // Past the read's end (even a part seen before its first part, mid-commit on DynamoDB): done.
                if (Long.compareUnsigned(revision, upTo) > 0) {
                    if (!pending.isEmpty()) out.add(stored(pending));
                    return Future.succeededFuture(out);
                }
                if (!first && pending.isEmpty()) throw new Compacted("part " + kv.key() + " without its record's first part");
                if (first && !pending.isEmpty()) {
                    out.add(stored(pending));
                    pending.clear();
                }
                if (first && (out.size() >= limit || bytes[0] >= maxBytes)) {
                    whole[0] = false;
                    return Future.succeededFuture(out);
                }
                pending.add(kv);
                bytes[0] += kv.valueLength();
            }
            if (p.continuation() == null) {
                if (!pending.isEmpty()) out.add(stored(pending));
                return Future.succeededFuture(out);
            }
            return page(store, p.continuation(), upTo, limit, maxBytes, bytes, whole, out, pending);
        });
    }

    private static Stored stored(List<KeyValue> items) {
        try {
            return new Stored(RecordItems.assemble(items), items.stream().map(KeyValue::key).toList());
        } catch (IllegalArgumentException partsGone) {
            // Parts are written and deleted together: a record that does not assemble lost its
            // later parts to compaction between two pages of this read.
            throw new Compacted("record " + items.get(0).key() + " was compacted during the read: " + partsGone.getMessage());
        }
    }
}
