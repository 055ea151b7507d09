package lake.meta;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * One page of a prefix scan: entries in ascending UTF-8 byte order of their keys, and the
 * continuation for the next page, {@code null} when the scan is complete.
 *
 * <p>A continuation is the URL-safe base64 of the last key returned; the next page starts strictly
 * after it. It is opaque to callers and is only accepted with a prefix that the key starts with.
 */
public record ScanPage(List<KeyValue> entries, String continuation) {
    public ScanPage {
        entries = List.copyOf(entries);
    }

    /** The continuation that resumes a scan strictly after {@code lastKey}. */
    public static String continuationAfter(String lastKey) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(lastKey.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The key a scan of {@code prefix} resumes after, or {@code null} for a first page.
     *
     * @throws MetaException.InvalidArgument when the continuation is malformed or belongs to another prefix
     */
    public static String resumeAfter(String prefix, String continuation) {
        if (continuation == null) return null;
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(continuation);
        } catch (IllegalArgumentException e) {
            throw new MetaException.InvalidArgument("continuation is not a continuation this store issued");
        }
        String key;
        try {
            key = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new MetaException.InvalidArgument("continuation is not a continuation this store issued");
        }
        if (key.isEmpty() || !key.startsWith(prefix)) {
            throw new MetaException.InvalidArgument("continuation does not belong to prefix '" + prefix + "'");
        }
        Keys.validateKey("continuation", key);
        return key;
    }
}
