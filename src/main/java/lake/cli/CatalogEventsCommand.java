package lake.cli;

import lake.client.MetasrvClient;
import lake.client.Watcher;
import lake.client.model.Json;
import lake.client.model.MetasrvException;
import lake.wire.WatchEvent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

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
        if (count != null && count < 1) throw new MetasrvException.InvalidArgument("--count must be at least 1, got " + count);
        long start;
        if (after == null) {
            start = await(client.currentRevision());
        } else {
            try {
                start = Long.parseUnsignedLong(after);
            } catch (NumberFormatException e) {
                throw new MetasrvException.InvalidArgument("--after must be an unsigned 64-bit revision, got '" + after + "'");
            }
        }
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger();
        Watcher[] w = new Watcher[1];
        w[0] = client.watchCatalog(start, event -> {
            print(event);
            if (count != null && seen.incrementAndGet() >= count) {
                w[0].cancel();
                done.countDown();
            }
        });
        w[0].ended().onComplete(ar -> done.countDown());
        done.await();
        if (w[0].ended().failed()) throw w[0].ended().cause() instanceof RuntimeException r ? r : new RuntimeException(w[0].ended().cause());
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
