package lake.iceberg.events;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import lake.feed.ChangeRecord;
import lake.watch.Watches;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Answers {@code POST /iceberg/v1/events} from the node's change feed, on the API's event loop
 * (a page of the tail, or of the store, read without blocking): one page of records after the
 * continuation token, their Iceberg events filtered by the query, and the token after that page.
 * An expired token (its revision compacted) is {@code 410}; without a token, the oldest event
 * held is the start.
 */
public final class EventsQuery {
    public static final String CLOUDEVENTS_BATCH = "application/cloudevents-batch+json";

    private final Watches watches;
    private final String source;

    /** @param source the CloudEvents {@code source} of the batch form (names the feed) */
    public EventsQuery(Watches watches, String source) {
        this.watches = watches;
        this.source = source;
    }

    /** An answer in the REST catalog's terms: a status, headers and a JSON body. */
    public record Answer(int status, Map<String, String> headers, String body) {}

    /**
     * The answer to a query of {@code body} whose {@code Accept} header is {@code accept} (or
     * {@code null}), shown only what {@code filter} (the caller's grants) lets through.
     */
    public Future<Answer> serve(byte[] body, String accept, Watches.Filter filter) {
        IcebergEvents.Query q;
        try {
            q = IcebergEvents.parse(body);
        } catch (IllegalArgumentException bad) {
            return Future.succeededFuture(error(400, "BadRequestException", "Malformed QueryEventsRequest: " + bad.getMessage()));
        }
        if (watches.currentRevision() == null) {
            // A token issued now would name revision 0, which compaction may already have passed.
            return Future.succeededFuture(error(503, "ServiceUnavailableException",
                    "this node has not yet heard the change feed's position from a leader; retry"));
        }
        boolean cloudEvents = accept != null && accept.contains(CLOUDEVENTS_BATCH);
        long after = q.after() == null ? 0 : q.after();
        Future<Watches.Page> page = watches.read(filter, after, q.pageSize());
        if (q.after() == null) {
            // No token: from the oldest event still held.
            page = page.recover(t -> t instanceof Watches.Gone g ? watches.read(filter, g.floor(), q.pageSize()) : Future.failedFuture(t));
        }
        return page.map(p -> answer(q, p, cloudEvents)).recover(t -> {
            if (t instanceof Watches.Gone g) {
                return Future.succeededFuture(error(410, "ContinuationTokenExpiredException", "the continuation-token resumes after revision "
                        + Long.toUnsignedString(after) + ", whose events were compacted (records up to revision "
                        + Long.toUnsignedString(g.floor()) + " are gone); query again without a continuation-token, from the oldest"
                        + " event held, or with after-timestamp-ms"));
            }
            return Future.failedFuture(t);
        });
    }

    private Answer answer(IcebergEvents.Query q, Watches.Page p, boolean cloudEvents) {
        long highest = q.after() != null ? q.tokenTimestampMs() : q.afterTimestampMs() != null ? q.afterTimestampMs() : 0;
        List<JsonObject> events = new ArrayList<>();
        for (ChangeRecord record : p.records()) {
            highest = Math.max(highest, record.atMs());
            for (JsonObject e : IcebergEvents.events(record)) if (IcebergEvents.matches(q, e)) events.add(e);
        }
        String token = IcebergEvents.token(p.cursor(), highest);
        if (!cloudEvents) return new Answer(200, Map.of(), IcebergEvents.response(token, highest, events).encode());
        Map<String, String> headers = new java.util.HashMap<>(IcebergEvents.cloudEventsHeaders(token, highest));
        headers.put("Content-Type", CLOUDEVENTS_BATCH);
        return new Answer(200, headers, IcebergEvents.cloudEvents(events, source).encode());
    }

    private static Answer error(int code, String type, String message) {
        ErrorResponse e = ErrorResponse.builder().responseCode(code).withType(type).withMessage(message).build();
        return new Answer(code, Map.of(), ErrorResponseParser.toJson(e));
    }
}
