package lake.watch;

import io.vertx.core.Context;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import lake.bus.Bus;
import lake.feed.ChangeRecord;
import lake.feed.Feed;
import lake.feed.Published;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Carries the change feed from the leader's sequencers to every node's tail: drains the node's
 * {@link Feed} runs on one context and publishes them cluster-wide on {@link Bus#FEED_RUNS}
 * (consecutive runs of one epoch merged into one message), and takes every node's publications
 * into this node's {@link TailFeeder}. A publication without the cluster's secret (when it has
 * one) is dropped: only a member may feed the tails.
 */
public final class Publisher {
    /** Records one message carries at most; longer stretches leave as several messages. */
    static final int MAX_RECORDS_PER_MESSAGE = 512;

    private final Context context;
    private final Feed feed;
    private final TailFeeder feeder;
    private final byte[] secret;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private MessageConsumer<JsonObject> consumer;
    private boolean sentSinceHeartbeat;

    /** @param secret the cluster secret publications carry and must present ({@code null}: none) */
    public Publisher(Context context, Feed feed, TailFeeder feeder, String secret) {
        this.context = context;
        this.feed = feed;
        this.feeder = feeder;
        this.secret = secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
    }

    /** Call on this publisher's context. */
    public io.vertx.core.Future<Void> start() {
        consumer = context.owner().eventBus().consumer(Bus.FEED_RUNS, m -> {
            String presented = m.headers().get(Bus.SECRET_HEADER);
            if (secret != null && (presented == null || !MessageDigest.isEqual(secret, presented.getBytes(StandardCharsets.UTF_8)))) {
                return;
            }
            try {
                feeder.accept(Published.fromJson(m.body()));
            } catch (IllegalArgumentException notARun) {
                org.slf4j.LoggerFactory.getLogger(Publisher.class).warn("dropped a change feed publication: {}", notARun.getMessage());
            }
        });
        feed.onRun(() -> {
            if (scheduled.compareAndSet(false, true)) context.runOnContext(v -> drain());
        });
        drain();
        return consumer.completion();
    }

    public io.vertx.core.Future<Void> stop() {
        feed.onRun(() -> {});
        return consumer == null ? io.vertx.core.Future.succeededFuture() : consumer.unregister();
    }

    /** Whether a run left since the last call (the leader's heartbeat is skipped when one did). */
    public boolean sentSinceLastAsked() {
        boolean sent = sentSinceHeartbeat;
        sentSinceHeartbeat = false;
        return sent;
    }

    private void drain() {
        scheduled.set(false);
        DeliveryOptions opts = new DeliveryOptions();
        if (secret != null) opts.addHeader(Bus.SECRET_HEADER, new String(secret, StandardCharsets.UTF_8));
        Published open = null;
        List<ChangeRecord> records = new ArrayList<>();
        Published run;
        while ((run = feed.nextRun()) != null) {
            boolean joins = open != null && open.epoch() == run.epoch() && open.to() == run.from() && open.complete() && run.complete()
                    && records.size() + run.records().size() <= MAX_RECORDS_PER_MESSAGE;
            if (joins) {
                records.addAll(run.records());
                // The run so far, its records kept aside in `records`.
                open = new Published(run.epoch(), open.from(), run.to(), run.last(), List.of());
                continue;
            }
            if (open != null) send(open, records, opts);
            open = run;
            records = run.complete() ? new ArrayList<>(run.records()) : null;
        }
        if (open != null) send(open, records, opts);
    }

    /** Bytes of records one message carries, about (at least one record). */
    static final long MAX_BYTES_PER_MESSAGE = 4L * 1024 * 1024;

    /**
     * Publishes {@code open} with {@code records} ({@code null}: a run only the store knows), in
     * messages of at most {@value #MAX_RECORDS_PER_MESSAGE} records and about
     * {@link #MAX_BYTES_PER_MESSAGE}: a run is cut after a record (every revision in it is
     * settled), each part ending at its last record, the last part at the run's end.
     */
    private void send(Published open, List<ChangeRecord> records, DeliveryOptions opts) {
        if (records == null) {
            publish(open, opts);
            return;
        }
        long from = open.from();
        List<ChangeRecord> part = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < records.size(); i++) {
            ChangeRecord r = records.get(i);
            part.add(r);
            bytes += Tail.weight(r);
            boolean lastRecord = i == records.size() - 1;
            if (!lastRecord && (part.size() >= MAX_RECORDS_PER_MESSAGE || bytes >= MAX_BYTES_PER_MESSAGE)) {
                publish(new Published(open.epoch(), from, r.revision(), r.revision(), part), opts);
                from = r.revision();
                part = new ArrayList<>();
                bytes = 0;
            }
        }
        publish(new Published(open.epoch(), from, open.to(), open.last(), part), opts);
    }

    private void publish(Published p, DeliveryOptions opts) {
        context.owner().eventBus().publish(Bus.FEED_RUNS, p.withFloor(feed.floor()).toJson(), opts);
        sentSinceHeartbeat = true;
    }
}
