package lake.wire;

import java.util.Map;

/**
 * A JSON object that is not the shape a record decodes: {@link #field()} is missing or of the
 * wrong type in {@link #object()} (the object that should hold it, which may be nested in the
 * whole message). Unchecked: each side maps it to its own error at its boundary (the client to
 * its bad-reply error, the server to a fault).
 */
public final class WireException extends RuntimeException {
    private final String field;
    private final transient Map<String, Object> object;

    public WireException(String field, Map<String, Object> object) {
        super("no valid '" + field + "'");
        this.field = field;
        this.object = object;
    }

    /** The member that is missing or mistyped. */
    public String field() { return field; }

    /** The object that should hold {@link #field()}, as it was read. */
    public Map<String, Object> object() { return object; }
}
