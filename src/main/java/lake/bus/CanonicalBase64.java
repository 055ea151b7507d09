package lake.bus;

import java.util.Base64;

/**
 * Standard base64 in its one canonical spelling: padded (length a multiple of 4) and with zero
 * bits after the last byte, so a value has exactly one text. Shared by the API decoder and the
 * store protocol.
 */
public final class CanonicalBase64 {
    private CanonicalBase64() {}

    private static final Base64.Encoder ENCODER = Base64.getEncoder();
    private static final Base64.Decoder DECODER = Base64.getDecoder();

    /** The bytes of {@code s}; an {@link IllegalArgumentException} whose message says which rule {@code s} breaks ("is not …"). */
    public static byte[] decode(String s) {
        if (s.length() % 4 != 0) {
            throw new IllegalArgumentException("is not padded base64 (its length, " + s.length() + ", is not a multiple of 4)");
        }
        byte[] out;
        try {
            out = DECODER.decode(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("is not valid base64: " + e.getMessage());
        }
        if (!ENCODER.encodeToString(out).equals(s)) {
            throw new IllegalArgumentException("is not canonical base64 (the bits after the last byte must be zero)");
        }
        return out;
    }
}
