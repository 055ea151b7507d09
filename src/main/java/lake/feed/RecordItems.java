package lake.feed;

import lake.meta.KeyValue;
import lake.meta.Keys;
import lake.meta.Transaction;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A change record as the items of its write's transaction, and back. Each item is created with
 * condition ABSENT: a revision's key is written once, by the write that applied or by the void
 * record that settled it, never both.
 */
public final class RecordItems {
    /** Bytes of a record per item: the store's largest value. */
    public static final int PART_BYTES = Keys.MAX_VALUE_BYTES;

    private RecordItems() {}

    /** The operations that create {@code record}: one per {@link #PART_BYTES} of its encoding. */
    public static List<Transaction.Op> ops(ChangeRecord record) {
        byte[] bytes = record.encode();
        int parts = Math.max(1, (bytes.length + PART_BYTES - 1) / PART_BYTES);
        if (parts > 1 + Revisions.MAX_PARTS) {
            throw new IllegalArgumentException("a change record of " + bytes.length + " bytes needs " + parts + " parts");
        }
        List<Transaction.Op> ops = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            byte[] chunk = Arrays.copyOfRange(bytes, p * PART_BYTES, Math.min(bytes.length, (p + 1) * PART_BYTES));
            ops.add(Transaction.Op.create(p == 0 ? Revisions.key(record.revision()) : Revisions.partKey(record.revision(), p), chunk));
        }
        return ops;
    }

    /**
     * The record whose items are {@code items}, in key order (part 0 first).
     *
     * @throws IllegalArgumentException when the items are not one record's parts 0..n in order
     */
    public static ChangeRecord assemble(List<KeyValue> items) {
        if (items.isEmpty()) throw new IllegalArgumentException("no items");
        long revision = Revisions.parse(items.get(0).key());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < items.size(); i++) {
            String key = items.get(i).key();
            if (Revisions.parse(key) != revision || Revisions.part(key) != i) {
                throw new IllegalArgumentException("item " + key + " is not part " + i + " of revision " + Long.toUnsignedString(revision));
            }
            out.writeBytes(items.get(i).value());
        }
        ChangeRecord r = ChangeRecord.decode(out.toByteArray());
        if (r.revision() != revision) {
            throw new IllegalArgumentException("the record at " + items.get(0).key() + " names revision " + Long.toUnsignedString(r.revision()));
        }
        return r;
    }
}
