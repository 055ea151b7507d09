package lake.cli;

import lake.client.MetasrvClient;
import lake.client.model.Json;
import lake.wire.WatchEvent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Map;

/** {@code lakectl catalog events}: the catalog's typed events as they commit. */
@Command(name = "events", mixinStandardHelpOptions = true, description = {
        "Print the catalog's events (namespaces and tables created, committed, dropped, renamed) in revision order,",
        "one line each, REVISION TYPE NAMESPACE/NAME and what changed, until interrupted (-o json: one event per line)."})
final class CatalogEventsCommand extends Base {
    @Option(names = "--after", paramLabel = "R",
            description = "Start after revision R (default: the current revision, so only events from now on).") String after;
    @Option(names = "--count", paramLabel = "N", description = "Stop after N events (default: never).") Integer count;

    @Override
    int run(MetasrvClient client) throws Exception {
        Follow.checkCount(count);
        Follow.follow(count, client::watchCatalog, Follow.start(client, after), this::print);
        return ExitCodes.OK;
    }

    private synchronized void print(WatchEvent e) {
        if (root().json()) {
            println(Json.write(e.toMap()));
        } else {
            println(Long.toUnsignedString(e.revision()) + "\t" + describe(e.event()));
        }
        root().out.flush();
    }

    /** {@code TYPE NAMESPACE[/NAME]} and the detail that matters for the type. */
    static String describe(Map<String, Object> ev) {
        if (ev == null) return "?";
        String type = String.valueOf(ev.get("type"));
        if ("tables_committed".equals(type) && ev.get("tables") instanceof java.util.List<?> tables) {
            StringBuilder b = new StringBuilder(type);
            for (Object t : tables) {
                if (t instanceof Map<?, ?> m) b.append('\t').append(m.get("namespace")).append('/').append(m.get("name"))
                        .append(" -> ").append(m.get("metadata_location"));
            }
            return b.toString();
        }
        String what = ev.get("name") == null ? String.valueOf(ev.get("namespace")) : ev.get("namespace") + "/" + ev.get("name");
        String detail = switch (type) {
            case "table_version_committed" -> "version " + ev.get("version");
            case "table_renamed" -> "to " + ev.get("to_namespace") + "/" + ev.get("to_name");
            case "table_created" -> String.valueOf(ev.getOrDefault("metadata_location", ev.get("location")));
            default -> "";
        };
        return type + "\t" + what + (detail.isEmpty() ? "" : "\t" + detail);
    }
}
