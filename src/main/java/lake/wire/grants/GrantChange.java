package lake.wire.grants;

import lake.wire.Fields;

import java.util.List;
import java.util.Map;

/**
 * The answer to a grant or a revoke: {@code {"principal","namespace","name","privileges","changed","revision"?}}
 * — the privileges the principal holds on the object afterwards (by stored grant), whether the
 * request wrote anything (granting what is held, or revoking what is not, writes nothing), and
 * the write's revision in the change feed when it did (unsigned 64-bit).
 */
public record GrantChange(String principal, String namespace, String name, List<String> privileges, boolean changed, Long revision) {
    public GrantChange {
        privileges = List.copyOf(privileges);
        if (changed != (revision != null)) throw new IllegalArgumentException("a change has a revision, and only a change");
    }

    public static GrantChange from(Map<String, Object> o) {
        return new GrantChange(Fields.string(o, "principal"), Fields.string(o, "namespace"), Fields.stringOrNull(o, "name"),
                Fields.strings(o, "privileges"), Fields.bool(o, "changed"), Fields.u64OrNull(o, "revision"));
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = Fields.of("principal", principal, "namespace", namespace, "name", name, "privileges", privileges,
                "changed", changed);
        if (revision != null) m.put("revision", Fields.u64Value(revision));
        return m;
    }
}
