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
import java.util.function.Function;
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
    /** The longest one POST may take, answer included. */
    static final long POST_DEADLINE_MS = 60_000;

    private final Context context;
    private final List<Sink> sinks = new ArrayList<>();
    private final Supplier<Leadership> leadership;
    private final MetaStore reads;
    private final Function<ClientWrite, Future<FencedWriter.Outcome>> writer;
    private final Watches watches;
    private final Supplier<Long> currentRevision;
    private final HttpClient http;
    private final Function<JsonObject, List<String>> eventNamespaces;
    private final String source;
    private final Meters meters;

    /** What the sinks count: events acknowledged, and failures (a POST, or a run that stopped). */
    public interface Meters {
        void delivered(String webhook, long events);

        void failed(String webhook);
    }

    /**
     * @param source          the CloudEvents {@code source} of every event (names the feed)
     * @param currentRevision where a webhook without a stored cursor starts (changes from then on); null while unknown
     */
    public WebhookSinks(Context context, List<Webhook> hooks, Supplier<Leadership> leadership, MetaStore reads,
                        Function<ClientWrite, Future<FencedWriter.Outcome>> writer, Watches watches, Supplier<Long> currentRevision,
                        Function<JsonObject, List<String>> eventNamespaces, String source, Meters meters) {
        this.context = context;
        this.leadership = leadership;
        this.reads = reads;
        this.writer = writer;
        this.watches = watches;
        this.currentRevision = currentRevision;
        this.eventNamespaces = eventNamespaces;
        this.http = hooks.isEmpty() ? null : context.owner().createHttpClient(new HttpClientOptions().setConnectTimeout(10_000).setIdleTimeout(60));
        this.source = source;
        this.meters = meters;
        for (Webhook h : hooks) sinks.add(new Sink(h));
    }

    /** Starts or stops each webhook as this node's leadership now says; call on the context, on every role change and periodically. */
    public void check() {
        Leadership l = leadership.get();
        for (Sink s : sinks) s.check(l);
    }

    public Future<Void> stop() {
        for (Sink s : sinks) s.stop("the node is stopping", false);
        return http == null ? Future.succeededFuture() : http.close();
    }

    private final class Sink {
        final Webhook hook;
        /** This sink's runs: every start and stop begins a new one, and a callback of an older run does nothing. */
        long run;
        /** The epoch the current run delivers under, 0 when stopped. */
        long epoch;
        /** The stored cursor's bytes, the expected value of the next cursor write. */
        byte[] stored;
        Watches.Watch watch;
        int failures;
        int restarts;
        boolean starting;
        long notBeforeNanos;
        /** The POST in flight ({@code null}: none): reset when its run stops, so two never overlap. */
        io.vertx.core.http.HttpClientRequest posting;

        Sink(Webhook hook) {
            this.hook = hook;
        }

        void check(Leadership l) {
            boolean leads = l.isLeader();
            if (epoch != 0 && (!leads || l.epoch() != epoch)) stop("leadership of epoch " + Long.toUnsignedString(epoch) + " ended", false);
            if (leads && epoch == 0 && !starting && System.nanoTime() - notBeforeNanos >= 0) start(l.epoch());
        }

        /**
         * Reads the stored cursor and watches after it. A webhook without one starts at the current
         * revision, stored first (fenced): a leader that fails before its first delivery leaves
         * the next one the same starting point, so nothing in between is skipped.
         */
        void start(long e) {
            starting = true;
            long r = ++run;
            reads.get(WebhookCursor.key(hook.name())).compose(cursor -> {
                if (cursor.isPresent()) return Future.succeededFuture(cursor.get());
                Long current = currentRevision.get();
                // Just led: its tail has not heard where the feed stands yet; the next check starts it.
                if (current == null) return Future.succeededFuture((byte[]) null);
                WebhookCursor first = new WebhookCursor(hook.name(), null, current, e);
                return writer.apply(first).compose(o -> o.applied() ? Future.succeededFuture(first.bytes())
                        : Future.failedFuture(new IllegalStateException("another leader stored the cursor first")));
            }).onComplete(ready -> {
                starting = false;
                Leadership l = leadership.get();
                if (r != run || !l.isLeader() || l.epoch() != e) return;
                if (ready.failed()) {
                    failed("start: " + ready.cause().getMessage());
                    return;
                }
                if (ready.result() == null) return;
                long after;
                try {
                    after = WebhookCursor.revision(ready.result());
                } catch (IllegalArgumentException corrupt) {
                    failed(corrupt.getMessage());
                    return;
                }
                epoch = e;
                stored = ready.result();
                Watches.Filter filter = hook.prefix() == null
                        ? Watches.Filter.events(eventNamespaces, ns -> true)
                        : Watches.Filter.keys(hook.prefix(), k -> true);
                watch = watches.watch(filter, after, BATCH, receiver(r));
            });
        }

        /** Ends the current run; {@code failed}: not before a backoff (restarts double to a minute). */
        void stop(String why, boolean failed) {
            run++;
            if (posting != null) posting.reset();
            posting = null;
            if (watch != null) watch.cancel();
            watch = null;
            epoch = 0;
            if (failed) {
                meters.failed(hook.name());
                restarts++;
                notBeforeNanos = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.min(60_000L, 500L << Math.min(restarts, 7)));
                org.slf4j.LoggerFactory.getLogger(WebhookSinks.class).warn("webhook {}: delivery stopped ({}); it resumes from its stored cursor",
                        hook.name(), why);
            }
        }

        void failed(String why) {
            stop(why, true);
        }

        Watches.Receiver receiver(long r) {
            return new Watches.Receiver() {
                @Override public Watches.Flow deliver(Watches.Page page) {
                    post(page, r);
                    // Nothing more until this batch is acknowledged and its cursor stored.
                    return Watches.Flow.PAUSE;
                }

                @Override public void fail(Throwable cause) {
                    if (r == run) failed(cause.getMessage());
                }

                @Override public void fellBehind(long cursor) {
                    // Paused too long (the receiver kept failing): restarted from the stored cursor.
                    if (r == run) failed("paused too long at revision " + Long.toUnsignedString(cursor));
                }
            };
        }

        private void post(Watches.Page page, long r) {
            if (r != run) return;
            Buffer body = Buffer.buffer(cloudEvents(page.records(), source).encode());
            http.request(new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(hook.url().toString())
                            .putHeader("Content-Type", "application/cloudevents-batch+json").setTimeout(30_000))
                    .compose(req -> {
                        posting = req;
                        // An absolute bound: the request's own timeout is an idle one, which a receiver trickling bytes never trips.
                        long deadline = context.owner().setTimer(POST_DEADLINE_MS, id -> req.reset());
                        return req.send(body).onComplete(x -> context.owner().cancelTimer(deadline));
                    })
                    // The answer's body is not kept, whatever its size.
                    .compose(res -> res.handler(ignored -> {}).end().map(ignored -> res.statusCode()))
                    .onComplete(answer -> {
                        if (r != run) return;
                        posting = null;
                        if (answer.succeeded() && answer.result() / 100 == 2) {
                            failures = 0;
                            storeCursor(page, r);
                            return;
                        }
                        failures++;
                        meters.failed(hook.name());
                        long backoff = Math.min(MAX_BACKOFF_MS, 250L << Math.min(failures, 7));
                        // Only the failure's kind: its message may repeat the URL, whose path or query may hold a secret.
                        org.slf4j.LoggerFactory.getLogger(WebhookSinks.class).warn("webhook {}: delivery failed ({}); again in {} ms", hook.name(),
                                answer.succeeded() ? "status " + answer.result() : answer.cause().getClass().getSimpleName(), backoff);
                        context.owner().setTimer(backoff, id -> post(page, r));
                    });
        }

        private void storeCursor(Watches.Page page, long r) {
            WebhookCursor move = new WebhookCursor(hook.name(), stored, page.cursor(), epoch);
            writer.apply(move).onComplete(done -> {
                if (r != run) return;
                if (done.succeeded() && done.result().applied()) {
                    stored = move.bytes();
                    meters.delivered(hook.name(), page.records().size());
                    restarts = 0;
                    if (watch != null) watch.resume();
                    return;
                }
                // Another leader moved the cursor, this node can no longer write, or the write's
                // outcome is unknown: stop; a run resumes from the stored cursor (this batch may
                // then be delivered again).
                failed(done.succeeded() ? "the stored cursor moved elsewhere" : done.cause().getMessage());
            });
        }
    }

    /** The batch as CloudEvents 1.0 (JSON format): {@code id} = revision, {@code type} by kind, {@code data} = the watch event. */
    static JsonArray cloudEvents(List<ChangeRecord> records, String source) {
        JsonArray out = new JsonArray();
        for (ChangeRecord r : records) {
            JsonObject event = r.event();
            String type = event != null ? "io.lake.catalog." + event.getString("type") : "io.lake.kv.change";
            JsonObject ce = new JsonObject().put("specversion", "1.0").put("id", Long.toUnsignedString(r.revision()))
                    .put("source", source).put("type", type)
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
