package lake.iceberg;

import lake.meta.Transaction.Op;

import java.util.List;
import java.util.function.Function;

/**
 * What one REST request adds to the fenced transaction of its mutation: the idempotency record
 * (written atomically with the change it answers for). Bound to the worker thread serving the
 * request for exactly that request's duration ({@link #run}).
 */
public final class RequestScope {
    /**
     * What a mutation will answer if it applies: the status, and either the metadata file a
     * table or view response is rendered from (immutable, so a replay renders the same answer) or
     * a small body rendered up front.
     */
    public record Outcome(int status, String kind, String metadataLocation, String body) {
        static Outcome table(String location) { return new Outcome(200, "table", location, null); }
        static Outcome view(String location) { return new Outcome(200, "view", location, null); }
        public static Outcome body(String json) { return new Outcome(200, "body", null, json); }
        static Outcome noContent() { return new Outcome(204, "none", null, null); }
    }

    private static final ThreadLocal<Function<Outcome, List<Op>>> EXTRAS = new ThreadLocal<>();

    private RequestScope() {}

    /** The records to write with this request's mutation, which answers {@code outcome} if it applies. */
    static List<Op> extras(Outcome outcome) {
        Function<Outcome, List<Op>> f = EXTRAS.get();
        return f == null ? List.of() : f.apply(outcome);
    }

    public static <T> T run(Function<Outcome, List<Op>> extras, java.util.function.Supplier<T> body) {
        EXTRAS.set(extras);
        try {
            return body.get();
        } finally {
            EXTRAS.remove();
        }
    }
}
