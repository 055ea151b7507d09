package lake.console;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import lake.metasrv.Leadership;
import lake.metasrv.NodeClock;

/**
 * Owns one node's {@link EpochTimeline}. The election verticle owns leadership; this verticle
 * only learns it, from the election verticle's publications on the node's leadership address,
 * and answers requests for the timeline on the node's local timeline address (any body; the
 * reply is the timeline's JSON). Both handlers run on this verticle's one context, so the
 * timeline has exactly one writer and needs no lock.
 *
 * <p>Deployed before the election verticle, so it sees the node's first publication.
 */
public final class TimelineVerticle extends VerticleBase {
    private final String leadershipAddress;
    private final String timelineAddress;
    private final NodeClock clock;
    private final EpochTimeline timeline;

    public TimelineVerticle(String nodeId, String leadershipAddress, String timelineAddress, NodeClock clock, int capacity) {
        this.leadershipAddress = leadershipAddress;
        this.timelineAddress = timelineAddress;
        this.clock = clock;
        this.timeline = new EpochTimeline(nodeId, capacity);
    }

    @Override
    public Future<?> start() {
        MessageConsumer<Leadership> feed = vertx.eventBus().localConsumer(leadershipAddress,
                m -> timeline.observe(m.body(), clock.wallMillis()));
        MessageConsumer<Object> requests = vertx.eventBus().localConsumer(timelineAddress, m -> m.reply(timeline.toJson(clock.monoNanos())));
        return Future.all(feed.completion(), requests.completion());
    }
}
