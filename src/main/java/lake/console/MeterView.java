package lake.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Comparator;
import java.util.concurrent.TimeUnit;

/**
 * A JSON view of a node's own meters (the {@code lake.*} ones {@code GET /metrics} serves as
 * Prometheus text), for the console's charts. Counts are cumulative since the node started, as
 * in Prometheus: the browser takes differences between two reads to get rates, and the
 * difference of two histograms to get a p99 over that interval. Reading meters is a few map
 * reads per meter and never blocks, so it runs on the event loop that received the request.
 *
 * <pre>{"node_id","at_ms",
 *  "requests":[{"op","outcome","count","sum_ms","buckets":[{"le_ms","count"}…]}…],
 *  "counters":{"fenced","epoch_mismatch","renewal_failures","renewals","leadership_changes"},
 *  "store_errors":{"&lt;kind&gt;":n…}, "auth_rejections":{"&lt;ingress&gt;/&lt;code&gt;":n…},
 *  "gauges":{"leader","epoch","catalog_waiting"},
 *  "purge":{"files_deleted","batches","tables","refused","passes","queue_jobs"}}</pre>
 * The purge worker runs on the leader only: another node's {@code purge} counts are those of its
 * own times as leader, and {@code queue_jobs} is the queue's length at its own last pass.
 */
public final class MeterView {
    private MeterView() {}

    public static JsonObject of(MeterRegistry registry, String nodeId, long atMs) {
        JsonArray requests = new JsonArray();
        registry.find("lake.requests").tag("node", nodeId).timers().stream()
                .sorted(Comparator.comparing((Timer t) -> t.getId().getTag("op")).thenComparing(t -> t.getId().getTag("outcome")))
                .forEach(t -> {
                    JsonArray buckets = new JsonArray();
                    for (CountAtBucket b : t.takeSnapshot().histogramCounts()) {
                        buckets.add(new JsonObject().put("le_ms", b.bucket(TimeUnit.MILLISECONDS)).put("count", (long) b.count()));
                    }
                    requests.add(new JsonObject().put("op", t.getId().getTag("op")).put("outcome", t.getId().getTag("outcome"))
                            .put("count", t.count()).put("sum_ms", t.totalTime(TimeUnit.MILLISECONDS)).put("buckets", buckets));
                });
        JsonObject counters = new JsonObject()
                .put("fenced", count(registry, "lake.fenced.rejections", nodeId))
                .put("epoch_mismatch", count(registry, "lake.epoch.mismatch.rejections", nodeId))
                .put("renewal_failures", count(registry, "lake.lease.renewal.failures", nodeId))
                .put("renewals", count(registry, "lake.lease.renewals", nodeId))
                .put("leadership_changes", count(registry, "lake.leadership.changes", nodeId));
        JsonObject storeErrors = new JsonObject();
        registry.find("lake.store.errors").tag("node", nodeId).counters().stream()
                .sorted(Comparator.comparing(c -> c.getId().getTag("kind")))
                .forEach(c -> storeErrors.put(c.getId().getTag("kind"), (long) c.count()));
        JsonObject auth = new JsonObject();
        registry.find("lake.auth.rejections").tag("node", nodeId).counters().stream()
                .sorted(Comparator.comparing(c -> c.getId().getTag("ingress") + "/" + c.getId().getTag("code")))
                .forEach(c -> auth.put(c.getId().getTag("ingress") + "/" + c.getId().getTag("code"), (long) c.count()));
        JsonObject gauges = new JsonObject()
                .put("leader", gauge(registry, "lake.leader", nodeId))
                .put("epoch", gauge(registry, "lake.epoch", nodeId))
                .put("catalog_waiting", gauge(registry, "lake.catalog.waiting", nodeId));
        JsonObject purge = new JsonObject()
                .put("files_deleted", count(registry, "lake.purge.files.deleted", nodeId))
                .put("batches", count(registry, "lake.purge.batches", nodeId))
                .put("tables", count(registry, "lake.purge.tables", nodeId))
                .put("refused", count(registry, "lake.purge.refused", nodeId))
                .put("passes", count(registry, "lake.purge.passes", nodeId))
                .put("queue_jobs", gauge(registry, "lake.purge.queue.jobs", nodeId));
        return new JsonObject().put("node_id", nodeId).put("at_ms", atMs).put("requests", requests)
                .put("counters", counters).put("store_errors", storeErrors).put("auth_rejections", auth).put("gauges", gauges)
                .put("purge", purge);
    }

    private static long count(MeterRegistry registry, String name, String nodeId) {
        Counter c = registry.find(name).tag("node", nodeId).counter();
        return c == null ? 0 : (long) c.count();
    }

    private static Object gauge(MeterRegistry registry, String name, String nodeId) {
        Gauge g = registry.find(name).tag("node", nodeId).gauge();
        return g == null ? null : (long) g.value();
    }
}
