package lake.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A webhook the leader delivers the change feed to (docs/watch.md, "Webhooks"): CloudEvents POSTed
 * to {@code url}, the catalog's typed events ({@code prefix == null}) or the changes of the keys
 * under {@code prefix}. {@code name} keys its stored cursor.
 */
public record Webhook(String name, URI url, String prefix) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    public Webhook {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigException("webhook name '" + name + "': 1 to 63 of a-z, 0-9 and '-', starting with a letter or digit");
        }
        if (url == null || url.getHost() == null || !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))) {
            // Not the URL itself: its path or query may hold a secret.
            throw new ConfigException("webhook '" + name + "': url must be an absolute http or https URL with a host, got "
                    + (url == null ? "none" : "scheme '" + url.getScheme() + "'"));
        }
        if (url.getUserInfo() != null) {
            throw new ConfigException("webhook '" + name + "': url must not carry credentials (user:password@); put a token in its path or query");
        }
    }

    /** Reads {@code [{"name","url","prefix"?}, …]} from {@code file}; names must be distinct. */
    public static List<Webhook> load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (java.io.IOException e) {
            throw new ConfigException("webhooks-file " + file + ": " + e.getMessage());
        }
        JsonArray array;
        try {
            array = new JsonArray(text);
        } catch (RuntimeException e) {
            throw new ConfigException("webhooks-file " + file + ": not a JSON array: " + e.getMessage());
        }
        List<Webhook> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            if (!(array.getValue(i) instanceof JsonObject o)) throw new ConfigException("webhooks-file " + file + ": entry " + i + " is not an object");
            for (String field : o.fieldNames()) {
                if (!Set.of("name", "url", "prefix").contains(field)) {
                    throw new ConfigException("webhooks-file " + file + ": entry " + i + ": unknown field '" + field + "' (name, url, prefix)");
                }
            }
            if (!(o.getValue("name") instanceof String)) throw new ConfigException("webhooks-file " + file + ": entry " + i + ": 'name' (a string) is required");
            if (!(o.getValue("url") instanceof String u)) throw new ConfigException("webhooks-file " + file + ": entry " + i + ": 'url' (a string) is required");
            URI url;
            try {
                url = URI.create(u);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("webhooks-file " + file + ": entry " + i + ": 'url' is not a URI");
            }
            Object prefix = o.getValue("prefix");
            if (prefix != null && !(prefix instanceof String)) throw new ConfigException("webhooks-file " + file + ": entry " + i + ": prefix must be a string");
            Webhook w = new Webhook(o.getString("name"), url, (String) prefix);
            if (!names.add(w.name())) throw new ConfigException("webhooks-file " + file + ": webhook '" + w.name() + "' is named twice");
            out.add(w);
        }
        return List.copyOf(out);
    }
}
