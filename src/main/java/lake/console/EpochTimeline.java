package lake.console;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import lake.metasrv.Leadership;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;

/**
 * The leadership changes one node has seen, newest last, at most {@code capacity} of them (the
 * oldest are dropped and counted). Pure logic over the election verticle's {@link Leadership}
 * publications: it is fed one publication at a time, in publication order, by its single owner
 * ({@link TimelineVerticle}), and is not thread-safe.
 *
 * <p>What counts as a change: this node winning the lease or giving it up, and — from any
 * publication — the lease moving to another (holder, epoch) or disappearing. Renewals and expiry
 * updates of the same lease are not changes. Kinds:
 * <ul>
 *   <li>{@code takeover}: a holder took the lease under a new epoch (this node or, as seen by a
 *       follower's campaign round, another);</li>
 *   <li>{@code observed}: the first lease this node saw after starting (it did not see it being taken);</li>
 *   <li>{@code resign}: this node gave its lease up on purpose;</li>
 *   <li>{@code fenced}: this node stepped down because a write of its was fenced (the lease had moved away);</li>
 *   <li>{@code step-down}: this node stepped down for any other reason (renewal failed, local
 *       deadline passed, another holder seen);</li>
 *   <li>{@code no-leader}: the lease this node knew of expired without a successor it could see.</li>
 * </ul>
 */
public final class EpochTimeline {
    public static final int DEFAULT_CAPACITY = 200;

    /** One change. {@code epoch}: for a takeover the epoch taken, for a step-down the epoch given up. */
    public record Change(long atMs, String kind, String node, long epoch, String reason) {
        public JsonObject toJson() {
            return new JsonObject().put("at_ms", atMs).put("kind", kind).put("node", node)
                    .put("epoch", u64(epoch)).put("reason", reason);
        }
    }

    private final String nodeId;
    private final int capacity;
    private final Deque<Change> changes = new ArrayDeque<>();
    private long dropped;
    /** The last publication seen; {@code null} before the first. */
    private Leadership last;

    public EpochTimeline(String nodeId, int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        this.nodeId = Objects.requireNonNull(nodeId);
        this.capacity = capacity;
    }

    /** Records what {@code next} (this node's newest publication, seen at wall time {@code atMs}) changed. */
    public void observe(Leadership next, long atMs) {
        Leadership previous = last;
        last = next;
        boolean wasLeader = previous != null && previous.isLeader();
        if (wasLeader && !next.isLeader()) {
            String reason = next.reason();
            String kind = Leadership.RESIGNED.equals(reason) ? "resign"
                    : reason != null && reason.startsWith(Leadership.FENCED_PREFIX) ? "fenced" : "step-down";
            add(new Change(atMs, kind, nodeId, previous.epoch(), reason));
        }
        Optional<String> before = previous == null ? Optional.empty() : previous.leader();
        long beforeEpoch = previous == null ? 0 : previous.leaderEpoch();
        Optional<String> now = next.leader();
        if (now.isPresent() && (!now.equals(before) || next.leaderEpoch() != beforeEpoch)) {
            // This node winning is always a takeover; another holder is one unless it is simply the
            // first lease this node saw since it started (then it did not see the lease being taken).
            boolean thisNodeWon = next.isLeader() && !wasLeader;
            String kind = thisNodeWon || seenAnyLease ? "takeover" : "observed";
            add(new Change(atMs, kind, now.get(), next.leaderEpoch(), next.reason()));
        } else if (now.isEmpty() && before.isPresent() && !wasLeader) {
            add(new Change(atMs, "no-leader", before.get(), beforeEpoch, next.reason()));
        }
        if (now.isPresent()) seenAnyLease = true;
    }

    /** Whether this node has seen any lease since it started: the first one it sees is "observed", not taken. */
    private boolean seenAnyLease;

    private void add(Change c) {
        if (changes.size() == capacity) {
            changes.removeFirst();
            dropped++;
        }
        changes.addLast(c);
    }

    /**
     * {@code {"node_id","capacity","dropped","changes":[newest first],"now":{…}}}; {@code now} is this
     * node's own view from its latest publication ({@code role}, {@code leader}, {@code epoch},
     * {@code expires_at_ms}, {@code authority_ms}: how long this node may still publish by its
     * monotonic clock, 0 when it does not lead), {@code null} before the first publication.
     */
    public JsonObject toJson(long monoNanos) {
        JsonArray out = new JsonArray();
        for (Iterator<Change> it = changes.descendingIterator(); it.hasNext(); ) out.add(it.next().toJson());
        JsonObject now = null;
        if (last != null) {
            now = new JsonObject().put("role", last.isLeader() ? "leader" : "follower")
                    .put("leader", last.leader().orElse(null))
                    .put("epoch", last.leader().isPresent() ? u64(last.leaderEpoch()) : null)
                    .put("expires_at_ms", last.expiresAtMs() == 0 ? null : last.expiresAtMs())
                    .put("authority_ms", last.hasAuthorityAt(monoNanos) ? Math.max(0, (last.deadlineNanos() - monoNanos) / 1_000_000L) : 0)
                    .put("reason", last.reason());
        }
        return new JsonObject().put("node_id", nodeId).put("capacity", capacity).put("dropped", dropped)
                .put("changes", out).put("now", now);
    }

    static Object u64(long v) {
        return v >= 0 ? (Object) v : new BigInteger(Long.toUnsignedString(v));
    }
}
