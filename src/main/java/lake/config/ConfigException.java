package lake.config;

/** Configuration that cannot start a node. The message names the setting; the process exits 2. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message, null, false, false);
    }
}
