package lake.webhook;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.config.Webhook;
import lake.feed.ChangeRecord;
import lake.meta.MetaStore;
import lake.metasrv.ClientWrite;
import lake.metasrv.FencedWriter;
import lake.metasrv.Leadership;
import lake.metasrv.WebhookCursor;
import lake.watch.Watches;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Delivers the change feed to webhooks while this node leads (docs/watch.md, "Webhooks"). Each
 * webhook resumes after its cursor, stored at {@link WebhookCursor#key} and moved by a fenced
 * write after every delivered batch; events go out in revision order, at least once, as a
 * CloudEvents 1.0 batch whose events' {@code id} is the revision (consumers dedupe by it). A
 * batch is POSTed until the receiver answers 2xx (backing off to 30 s); a cursor write that does
 * not apply (another leader moved it, or this node lost its lease) stops delivery; the next
 * leader resumes from the stored cursor. Confined to one context (the node's API verticle).
 */
public final class WebhookSinks {
    /** Events one POST carries at most. */
    static final int BATCH = 100;
    static final long MAX_BACKOFF_MS = 30_000;

    private final Context context;
    private final List<Sink> sinks = new ArrayList<>();
    private final Supplier<Leadership> leadership;
    private final MetaStore reads;
    private final Function<ClientWrite, Future<FencedWriter.Outcome>> writer;
    private final Watches watches;
    private final LongSupplier currentRevision;
    private final HttpClient http;
    private final Function<JsonObject, List<String>> eventNamespaces;

    /**
     * @param currentRevision where a webhook without a stored cursor starts (changes from then on)
     */
    public WebhookSinks(Context context, List<Webhook> hooks, Supplier<Leadership> leadership, MetaStore reads,
                        Function<ClientWrite, Future<FencedWriter.Outcome>> writer, Watches watches, LongSupplier currentRevision,
                        Function<JsonObject, List<String>> eventNamespaces) {
        this.context = context;
        this.leadership = leadership;
        this.reads = reads;
        this.writer = writer;
        this.watches = watches;
        this.currentRevision = currentRevision;
        this.eventNamespaces = eventNamespaces;
        this.http = context.owner().createHttpClient(new HttpClientOptions().setConnectTimeout(10_000).setIdleTimeout(60));
        for (Webhook h : hooks) sinks.add(new Sink(h));
    }

    /** Starts or stops each webhook as this node's leadership now says; call on the context, on every role change and periodically. */
    public void check() {
        Leadership l = leadership.get();
        for (Sink s : sinks) s.check(l);
    }

    public Future<Void> stop() {
        for (Sink s : sinks) s.stop("the node is stopping");
        return http.close();
    }

    /** Events a webhook has had acknowledged by its receiver, per webhook (for tests and metrics). */
    public long delivered(String name) {
        return sinks.stream().filter(s -> s.hook.name().equals(name)).mapToLong(s -> s.delivered).sum();
    }

    private final class Sink implements Watches.Receiver {
        final Webhook hook;
        /** The epoch this sink delivers under, 0 when stopped. */
        long epoch;
        /** The stored cursor's bytes ({@code null}: absent), the expected value of the next cursor write. */
        byte[] stored;
        Watches.Watch watch;
        long delivered;
        int failures;
        boolean starting;

        Sink(Webhook hook) {
            this.hook = hook;
        }

        void check(Leadership l) {
            boolean leads = l.isLeader();
            if (epoch != 0 && (!leads || l.epoch() != epoch)) stop("leadership of epoch " + Long.toUnsignedString(epoch) + " ended");
            if (leads && epoch == 0 && !starting) start(l.epoch());
        }

        void start(long e) {
            starting = true;
            reads.get(WebhookCursor.key(hook.name())).onComplete(read -> {
                starting = false;
                Leadership l = leadership.get();
                if (read.failed() || !l.isLeader() || l.epoch() != e) return;
                Optional<byte[]> cursor = read.result();
                long after;
                try {
                    after = cursor.map(WebhookCursor::revision).orElseGet(currentRevision::getAsLong);
                } catch (IllegalArgumentException corrupt) {
                    org.slf4j.LoggerFactory.getLogger(WebhookSinks.class).error("webhook {}: {}", hook.name(), corrupt.getMessage());
                    return;
                }
                epoch = e;
                stored = cursor.orElse(null);
                Watches.Filter filter = hook.prefix() == null
                        ? Watches.Filter.events(eventNamespaces, ns -> true)
                        : Watches.Filter.keys(hook.prefix(), k -> true);
                watch = watches.watch(filter, after, BATCH, this);
            });
        }

        void stop(String why) {
            if (watch != null) watch.cancel();
            watch = null;
            epoch = 0;
        }

        @Override public Watches.Flow deliver(Watches.Page page) {
            long e = epoch;
            post(page, e);
            // Nothing more until this batch is acknowledged and its cursor stored.
            return Watches.Flow.PAUSE;
        }

        private void post(Watches.Page page, long e) {
            if (epoch != e) return;
            Buffer body = Buffer.buffer(cloudEvents(page.records()).encode());
            http.request(new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(hook.url().toString())
                            .putHeader("Content-Type", "application/cloudevents-batch+json").setTimeout(30_000))
                    .compose(req -> req.send(body))
                    .compose(res -> res.body().map(ignored -> res.statusCode()))
                    .onComplete(answer -> {
                        if (epoch != e) return;
                        if (answer.succeeded() && answer.result() / 100 == 2) {
                            failures = 0;
                            storeCursor(page, e);
                            return;
                        }
                        failures++;
                        long backoff = Math.min(MAX_BACKOFF_MS, 250L << Math.min(failures, 7));
                        org.slf4j.LoggerFactory.getLogger(WebhookSinks.class).warn("webhook {}: delivery failed ({}); again in {} ms", hook.name(),
                                answer.succeeded() ? "status " + answer.result() : answer.cause().toString(), backoff);
                        context.owner().setTimer(backoff, id -> post(page, e));
                    });
        }

        private void storeCursor(Watches.Page page, long e) {
            WebhookCursor move = new WebhookCursor(hook.name(), stored, page.cursor(), e);
            writer.apply(move).onComplete(done -> {
                if (epoch != e) return;
                if (done.succeeded() && done.result().applied()) {
                    stored = move.bytes();
                    delivered += page.records().size();
                    if (watch != null) watch.resume();
                    return;
                }
                // Another leader moved the cursor, or this node can no longer write: stop; the
                // leader resumes from the stored cursor (these events may be delivered again).
                stop(done.succeeded() ? "the cursor moved elsewhere" : done.cause().getMessage());
            });
        }

        @Override public void fail(Throwable cause) {
            stop(cause.getMessage());
        }

        @Override public void fellBehind(long cursor) {
            // Paused too long (the receiver kept failing): restart from the stored cursor at the next check.
            stop("paused too long at revision " + Long.toUnsignedString(cursor));
        }
    }

    /** The batch as CloudEvents 1.0 (JSON format): {@code id} = revision, {@code type} by kind, {@code data} = the watch event. */
    static JsonArray cloudEvents(List<ChangeRecord> records) {
        JsonArray out = new JsonArray();
        for (ChangeRecord r : records) {
            JsonObject event = r.event();
            String type = event != null ? "io.lake.catalog." + event.getString("type") : "io.lake.kv.change";
            JsonObject ce = new JsonObject().put("specversion", "1.0").put("id", Long.toUnsignedString(r.revision()))
                    .put("source", "urn:lake-metasrv:feed").put("type", type)
                    .put("time", Instant.ofEpochMilli(r.atMs()).toString()).put("datacontenttype", "application/json")
                    .put("lakerevision", Long.toUnsignedString(r.revision())).put("lakeepoch", Long.toUnsignedString(r.epoch()))
                    .put("data", new JsonObject(Watches.render(r)));
            if (event != null && event.getString("namespace") != null) {
                ce.put("subject", event.getString("namespace") + (event.getString("name") == null ? "" : "/" + event.getString("name")));
            }
            out.add(ce);
        }
        return out;
    }
}
