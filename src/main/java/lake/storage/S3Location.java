package lake.storage;

import java.util.Locale;

/**
 * A table's location in S3 as a bucket and a key prefix ending in {@code /}, so that a policy on
 * {@code prefix*} never covers a sibling whose name merely starts the same ({@code t1} and
 * {@code t10}). Refuses what a policy cannot safely name: dot segments, empty segments, wildcards.
 */
public record S3Location(String bucket, String prefix) {
    public S3Location {
        if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) throw new IllegalArgumentException("not an S3 bucket name: " + bucket);
        if (prefix == null || !prefix.endsWith("/") || prefix.startsWith("/")) throw new IllegalArgumentException("not a key prefix ending in '/': " + prefix);
        for (String segment : prefix.substring(0, prefix.length() - 1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("the location has an empty or dot segment: " + prefix);
            }
        }
        // `*` and `?` are wildcards in IAM policies; `$` starts a policy variable.
        if (prefix.chars().anyMatch(ch -> ch == '*' || ch == '?' || ch == '$' || ch < 0x20)) {
            throw new IllegalArgumentException("the location has a character a policy would read as a wildcard or variable: " + prefix);
        }
    }

    /** Parses {@code s3://bucket/path} ({@code s3a:} and {@code s3n:} too); empty when the location is not in S3. */
    public static java.util.Optional<S3Location> of(String location) {
        if (location == null) return java.util.Optional.empty();
        String lower = location.toLowerCase(Locale.ROOT);
        int scheme = lower.startsWith("s3://") ? 5 : lower.startsWith("s3a://") || lower.startsWith("s3n://") ? 6 : -1;
        if (scheme < 0) return java.util.Optional.empty();
        String rest = location.substring(scheme);
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) throw new IllegalArgumentException("an S3 table location needs a bucket and a path: " + location);
        String path = rest.substring(slash + 1);
        while (path.endsWith("/")) path = path.substring(0, path.length() - 1);
        return java.util.Optional.of(new S3Location(rest.substring(0, slash), path + "/"));
    }

    /** The location as engines write it: {@code s3://bucket/prefix} without the trailing slash. */
    public String uri() {
        return "s3://" + bucket + "/" + prefix.substring(0, prefix.length() - 1);
    }

    /** Whether {@code key} (an object key in this bucket) lies under this location. */
    public boolean covers(String key) {
        return key.startsWith(prefix);
    }
}
