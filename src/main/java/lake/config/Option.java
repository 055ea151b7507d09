package lake.config;

import java.util.Locale;

/**
 * One setting, reachable three ways with one name: command line {@code --http-port}, environment
 * {@code LAKE_HTTP_PORT}, config file key {@code http_port}.
 */
public record Option(String name, Type type, String help) {
    /** {@code TOKENS}: a JSON array of token entries (see {@link AuthTokens}). */
    public enum Type { STRING, INT, LONG, BOOL, PATH, TOKENS }

    public String flag() { return "--" + name; }
    public String envVar() { return "LAKE_" + name.toUpperCase(Locale.ROOT).replace('-', '_'); }
    public String fileKey() { return name.replace('-', '_'); }

    /** What a value of this option is, for messages: "an int", "true or false". */
    String kind() {
        return switch (type) {
            case INT -> "an int";
            case LONG -> "an integer";
            case BOOL -> "true or false";
            case STRING, PATH -> "a string";
            case TOKENS -> "a JSON array of token entries";
        };
    }

    /** Parses a textual value (command line or environment) into the JSON type the settings use. */
    Object parse(String raw, String source) {
        try {
            return switch (type) {
                case STRING, PATH -> raw;
                case TOKENS -> {
                    try {
                        yield new io.vertx.core.json.JsonArray(raw);
                    } catch (io.vertx.core.json.DecodeException e) {
                        throw new ConfigException(source + ": not a JSON array of token entries for " + name);
                    }
                }
                case INT -> Integer.parseInt(raw.trim());
                case LONG -> Long.parseLong(raw.trim());
                case BOOL -> switch (raw.trim().toLowerCase(Locale.ROOT)) {
                    case "true", "1", "yes" -> true;
                    case "false", "0", "no" -> false;
                    default -> throw new NumberFormatException();
                };
            };
        } catch (NumberFormatException e) {
            throw new ConfigException(source + ": must be " + kind() + ", got '" + raw + "'");
        }
    }
}
