package lake.client;

import java.util.List;

/** A page of namespace or table names in ascending order, and the continuation of the next ({@code null} on the last). */
public record NamePage(List<String> names, String continuation) {
    public NamePage {
        names = List.copyOf(names);
    }

    /** The API's JSON, the names under {@code field} ({@code "namespaces"} or {@code "names"}). */
    public String toJson(String field) {
        return Json.write(Json.object(field, names, "continuation", continuation));
    }
}
