package lake.catalog.model;

import java.util.random.RandomGenerator;

/**
 * UUIDv7 text (RFC 9562 §5.7) from an injected wall clock and random source: 48 bits of Unix
 * milliseconds, version 7, 12 random bits, variant {@code 10}, 62 random bits, in lowercase
 * canonical form. Two values differ unless 74 random bits collide, which is what lets "the
 * directory generation is unchanged" stand for "no DDL happened".
 */
public final class UuidV7 {
    private UuidV7() {}

    public static String next(long unixMillis, RandomGenerator random) {
        long high = (unixMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | (random.nextLong() & 0x0FFFL);
        long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        String hex = hex16(high) + hex16(low);
        return hex.substring(0, 8) + '-' + hex.substring(8, 12) + '-' + hex.substring(12, 16) + '-'
                + hex.substring(16, 20) + '-' + hex.substring(20);
    }

    private static String hex16(long v) {
        String s = Long.toHexString(v);
        return "0".repeat(16 - s.length()) + s;
    }
}
