package lake.cli;

import lake.client.MetasrvClient;
import lake.client.Watcher;
import lake.client.model.Json;
import lake.wire.WatchEvent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

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
        if (count != null && count < 1) throw new lake.client.model.MetasrvException.InvalidArgument("--count must be at least 1, got " + count);
        long start;
        if (after == null) {
            start = await(client.currentRevision());
        } else {
            try {
                start = Long.parseUnsignedLong(after);
            } catch (NumberFormatException e) {
                throw new lake.client.model.MetasrvException.InvalidArgument("--after must be an unsigned 64-bit revision, got '" + after + "'");
            }
        }
        Values v = new Values();
        v.base64 = base64;
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger();
        Watcher[] w = new Watcher[1];
        w[0] = client.watch(prefix, start, event -> {
            print(event, v);
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
