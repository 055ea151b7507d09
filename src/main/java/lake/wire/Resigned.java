package lake.wire;

import java.util.Map;

/** {@code POST /v1/leader/resign}, {@code {"resigned"}}: whether the answering node held the lease and handed it over. */
public record Resigned(boolean resigned) {
    public static Resigned from(Map<String, Object> o) { return new Resigned(Fields.bool(o, "resigned")); }

    public Map<String, Object> toMap() { return Fields.of("resigned", resigned); }
}
