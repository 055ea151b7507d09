package lake.cli;

import lake.client.MetasrvClient;
import lake.client.model.Json;
import lake.wire.WatchEvent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;


/** {@code lakectl watch}: the change feed under a prefix, one line per changed key, until stopped. */
@Command(name = "watch", mixinStandardHelpOptions = true, description = {
        "Print every change under PREFIX as it commits, in revision order, until interrupted:",
        "one line per changed key, REVISION, put or del, KEY and the new value (-o json: one event per line).",
        "Resumes across reconnects and leader failover without a gap or a repeat."})
final class WatchCommand extends Base {
    @Parameters(arity = "0..1", paramLabel = "PREFIX", defaultValue = "",
            description = "Watch the keys that start with PREFIX (default: every key you may read).") String prefix;
    @Option(names = "--after", paramLabel = "R",
            description = "Start after revision R (default: the current revision, so only changes from now on).") String after;
    @Option(names = "--count", paramLabel = "N", description = "Stop after N events (default: never).") Integer count;
    @Option(names = "--base64", description = "Show values as base64.") boolean base64;

    @Override
    int run(MetasrvClient client) throws Exception {
        Follow.checkCount(count);
        Values v = new Values();
        v.base64 = base64;
        Follow.follow(count, (start, listener) -> client.watch(prefix, start, listener), Follow.start(client, after), e -> print(e, v));
        return ExitCodes.OK;
    }

    private synchronized void print(WatchEvent event, Values v) {
        if (root().json()) {
            println(Json.write(event.toMap()));
            return;
        }
        String revision = Long.toUnsignedString(event.revision());
        for (WatchEvent.Change c : event.changes()) {
            println(c.deleted() ? revision + "\tdel\t" + c.key() : revision + "\tput\t" + c.key() + "\t" + v.display(c.value()));
        }
        root().out.flush();
    }
}
