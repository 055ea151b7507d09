package lake.election;

/**
 * Fencing epochs are unsigned 64-bit integers held in a {@code long}: the bit pattern of
 * {@code -1L} is 2^64-1. Every comparison and rendering goes through here so that no caller
 * compares or prints an epoch above {@link Long#MAX_VALUE} as a negative number.
 *
 * <p>Invariants: 0 is the legacy epoch of records written before epochs existed; a leader always
 * holds an epoch of at least {@link #FIRST}; an epoch never wraps.
 */
public final class Epochs {
    /** 2^64-1, the largest epoch; it cannot advance. */
    public static final long MAX = -1L;
    /** The epoch of a record written by the original implementation before it had epochs. */
    public static final long LEGACY = 0L;
    /** The epoch of the first lease ever installed at a key. */
    public static final long FIRST = 1L;

    private Epochs() {}

    /**
     * The epoch a takeover installs: {@code epoch + 1} (so a legacy 0 becomes 1).
     *
     * @throws ElectionException.EpochExhausted when {@code epoch} is {@link #MAX}
     */
    public static long next(long epoch) {
        if (epoch == MAX) {
            throw new ElectionException.EpochExhausted(
                    "fencing epoch " + toString(epoch) + " is the largest and cannot advance", null);
        }
        return epoch + 1;
    }

    /** The epoch a renewal by the same holder keeps: {@code max(epoch, 1)}, upgrading a legacy 0. */
    public static long renewed(long epoch) {
        return epoch == LEGACY ? FIRST : epoch;
    }

    /** Unsigned comparison: negative, zero or positive as {@code a} is older than, equal to or newer than {@code b}. */
    public static int compare(long a, long b) {
        return Long.compareUnsigned(a, b);
    }

    /** The decimal rendering of the unsigned value, as it appears in lease records and messages. */
    public static String toString(long epoch) {
        return Long.toUnsignedString(epoch);
    }

    /**
     * Parses a decimal unsigned epoch (0 to 2^64-1).
     *
     * @throws NumberFormatException when {@code text} is not such a number
     */
    public static long parse(String text) {
        return Long.parseUnsignedLong(text);
    }
}
