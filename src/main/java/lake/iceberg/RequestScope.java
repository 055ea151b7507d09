package lake.iceberg;

import lake.meta.Transaction.Op;

import java.util.List;
import java.util.function.Function;

/**
 * What one REST request adds to the fenced transaction of its mutation: the idempotency record
 * (written atomically with the change it answers for). Bound to the worker thread serving the
 * request for exactly that request's duration ({@link #run}).
 */
final class RequestScope {
    private static final ThreadLocal<Function<String, List<Op>>> EXTRAS = new ThreadLocal<>();

    private RequestScope() {}

    /** The records to write with this request's mutation; {@code metadataLocation} is the new pointer, if any. */
    static List<Op> extras(String metadataLocation) {
        Function<String, List<Op>> f = EXTRAS.get();
        return f == null ? List.of() : f.apply(metadataLocation);
    }

    static <T> T run(Function<String, List<Op>> extras, java.util.function.Supplier<T> body) {
        EXTRAS.set(extras);
        try {
            return body.get();
        } finally {
            EXTRAS.remove();
        }
    }
}
