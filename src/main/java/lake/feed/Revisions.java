package lake.feed;

/**
 * Where change records live: one key per revision, {@value #PREFIX} followed by the revision as
 * 20 zero-padded unsigned decimal digits, so the store's byte order is the revisions' numeric order
 * (u64 needs at most 20 digits) and a prefix scan reads records in revision order.
 */
public final class Revisions {
    public static final String PREFIX = "__lake_internal/feed/";
    private static final int DIGITS = 20;

    private Revisions() {}

    /** The record key of {@code revision} (unsigned; revision 0 is never allocated). */
    public static String key(long revision) {
        String digits = Long.toUnsignedString(revision);
        return PREFIX + "0".repeat(DIGITS - digits.length()) + digits;
    }

    /**
     * The revision a record key names.
     *
     * @throws IllegalArgumentException when {@code key} is not exactly a record key
     */
    public static long parse(String key) {
        if (key == null || !key.startsWith(PREFIX) || key.length() != PREFIX.length() + DIGITS) {
            throw new IllegalArgumentException("not a change record key: " + key);
        }
        String digits = key.substring(PREFIX.length());
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
