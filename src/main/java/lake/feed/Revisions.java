package lake.feed;

/**
 * Where change records live: one key per revision, {@value #PREFIX} followed by the revision as
 * 20 zero-padded unsigned decimal digits, so the store's byte order is the revisions' numeric order
 * (u64 needs at most 20 digits) and a prefix scan reads records in revision order.
 *
 * <p>A record larger than one value ({@link lake.meta.Keys#MAX_VALUE_BYTES}) is stored in parts:
 * part 0 at {@link #key}, part n at {@link #partKey} ({@code <key>/<n as 2 digits>}), all in the
 * same transaction. Part keys sort right after their record's key and before the next revision's.
 */
public final class Revisions {
    public static final String PREFIX = "__lake_internal/feed/";
    /**
     * The compaction floor: the greatest revision compacted away, as unsigned decimal text (absent:
     * none). Records at or below it are gone; it sits outside {@link #PREFIX}, so scans of records
     * never meet it.
     */
    public static final String FLOOR_KEY = "__lake_internal/feed-floor";
    private static final int DIGITS = 20;
    /** Parts a record may have; more would not fit a store transaction of 4 MiB anyway. */
    public static final int MAX_PARTS = 99;

    private Revisions() {}

    /** The record key of {@code revision} (unsigned; revision 0 is never allocated). */
    public static String key(long revision) {
        String digits = Long.toUnsignedString(revision);
        return PREFIX + "0".repeat(DIGITS - digits.length()) + digits;
    }

    /** The key of part {@code part} (1 to {@value #MAX_PARTS}) of {@code revision}'s record; part 0 is at {@link #key}. */
    public static String partKey(long revision, int part) {
        if (part < 1 || part > MAX_PARTS) throw new IllegalArgumentException("part " + part + " is not between 1 and " + MAX_PARTS);
        return key(revision) + "/" + (part < 10 ? "0" : "") + part;
    }

    /** The floor stored at {@link #FLOOR_KEY} (0 when absent); throws {@link IllegalArgumentException} when it is not one. */
    public static long floor(java.util.Optional<byte[]> stored) {
        if (stored.isEmpty()) return 0;
        String text = new String(stored.get(), java.nio.charset.StandardCharsets.US_ASCII);
        try {
            if (!text.matches("[0-9]{1,20}")) throw new NumberFormatException();
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the feed's floor is not an unsigned decimal: '" + text + "'");
        }
    }

    /** The bytes {@link #FLOOR_KEY} holds for {@code revision}. */
    public static byte[] floorBytes(long revision) {
        return Long.toUnsignedString(revision).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** The part a record key names: 0 for {@link #key}, n for {@link #partKey}; assumes {@link #parse} accepts it. */
    public static int part(String key) {
        return key.length() == PREFIX.length() + DIGITS ? 0 : Integer.parseInt(key.substring(PREFIX.length() + DIGITS + 1));
    }

    /**
     * The revision a record key (or a part's key) names.
     *
     * @throws IllegalArgumentException when {@code key} is not exactly a record key or part key
     */
    public static long parse(String key) {
        if (key == null || !key.startsWith(PREFIX)) throw new IllegalArgumentException("not a change record key: " + key);
        int end = PREFIX.length() + DIGITS;
        if (key.length() == end + 3) {
            char slash = key.charAt(end), tens = key.charAt(end + 1), ones = key.charAt(end + 2);
            if (slash != '/' || tens < '0' || tens > '9' || ones < '0' || ones > '9' || (tens == '0' && ones == '0')) {
                throw new IllegalArgumentException("not a change record part key: " + key);
            }
        } else if (key.length() != end) {
            throw new IllegalArgumentException("not a change record key: " + key);
        }
        String digits = key.substring(PREFIX.length(), end);
        for (int i = 0; i < DIGITS; i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') throw new IllegalArgumentException("not a change record key: " + key);
        }
        try {
            return Long.parseUnsignedLong(digits);
        } catch (NumberFormatException beyondU64) {
            throw new IllegalArgumentException("not a change record key (beyond u64): " + key);
        }
    }
}
