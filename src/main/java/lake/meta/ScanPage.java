package lake.meta;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * One page of a prefix scan: entries in ascending UTF-8 byte order of their keys, and the
 * continuation for the next page, {@code null} when the scan is complete.
 *
 * <p>A continuation is the URL-safe base64 (unpadded) of the byte length of the prefix that issued
 * it (two bytes, big-endian) followed by the UTF-8 of the last key returned; the next page starts
 * strictly after that key. Since the key starts with the prefix, the pair names the issuing prefix
 * exactly: a continuation is accepted only with that very prefix, not with a shorter one the key
 * also starts with. It is opaque to callers.
 */
public record ScanPage(List<KeyValue> entries, String continuation) {
    public ScanPage {
        entries = List.copyOf(entries);
    }

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    /** The continuation that resumes a scan of {@code prefix} strictly after {@code lastKey}. */
    public static String continuationAfter(String prefix, String lastKey) {
        int prefixLength = prefix.getBytes(StandardCharsets.UTF_8).length;
        byte[] key = lastKey.getBytes(StandardCharsets.UTF_8);
        byte[] raw = new byte[2 + key.length];
        raw[0] = (byte) (prefixLength >>> 8);
        raw[1] = (byte) prefixLength;
        System.arraycopy(key, 0, raw, 2, key.length);
        return ENCODER.encodeToString(raw);
    }

    /**
     * The key a scan of {@code prefix} resumes after, or {@code null} for a first page.
     *
     * @throws MetaException.InvalidArgument when the continuation is malformed or was issued for another prefix
     */
    public static String resumeAfter(String prefix, String continuation) {
        if (continuation == null) return null;
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(continuation);
        } catch (IllegalArgumentException e) {
            throw notIssued();
        }
        if (raw.length < 3 || !ENCODER.encodeToString(raw).equals(continuation)) throw notIssued();
        int prefixLength = (raw[0] & 0xff) << 8 | (raw[1] & 0xff);
        String key = Keys.strictUtf8(raw, 2, raw.length - 2);
        if (key == null) throw notIssued();
        if (prefixLength != prefix.getBytes(StandardCharsets.UTF_8).length || !key.startsWith(prefix)) {
            throw new MetaException.InvalidArgument("continuation was issued for another prefix than '" + prefix
                    + "'; a continuation is valid only with the prefix that issued it");
        }
        Keys.validateKey("continuation", key);
        return key;
    }

    private static MetaException.InvalidArgument notIssued() {
        return new MetaException.InvalidArgument("continuation is not a continuation this store issued");
    }
}
