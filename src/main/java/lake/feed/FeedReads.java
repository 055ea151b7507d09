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

    /**
     * The records (void ones included) with revisions in ({@code after}, {@code upTo}], at most
     * {@code limit}, ascending. Every record returned is whole: its parts were written in one
     * transaction, so a record's first part implies the rest.
     */
    public static Future<List<ChangeRecord>> read(MetaStore store, long after, long upTo, int limit) {
        if (limit < 1) throw new IllegalArgumentException("limit must be positive");
        List<ChangeRecord> out = new ArrayList<>();
        if (Long.compareUnsigned(after, upTo) >= 0) return Future.succeededFuture(out);
        // Past every part of `after` (its parts sort right after its key).
        String start = ScanPage.continuationAfter(Revisions.PREFIX, Revisions.partKey(after, Revisions.MAX_PARTS));
        return page(store, start, upTo, limit, out, new ArrayList<>());
    }

    private static Future<List<ChangeRecord>> page(MetaStore store, String continuation, long upTo, int limit,
                                                   List<ChangeRecord> out, List<KeyValue> pending) {
        return store.scanPrefix(Revisions.PREFIX, continuation, PAGE_ITEMS).compose(p -> {
            for (KeyValue kv : p.entries()) {
                long revision = Revisions.parse(kv.key());
                boolean first = Revisions.part(kv.key()) == 0;
                if (first && !pending.isEmpty()) {
                    out.add(RecordItems.assemble(pending));
                    pending.clear();
                }
                if (first && (Long.compareUnsigned(revision, upTo) > 0 || out.size() >= limit)) return Future.succeededFuture(out);
                pending.add(kv);
            }
            if (p.continuation() == null) {
                if (!pending.isEmpty()) out.add(RecordItems.assemble(pending));
                return Future.succeededFuture(out);
            }
            return page(store, p.continuation(), upTo, limit, out, pending);
        });
    }
}
