package lake.meta.dynamo;

import lake.meta.KeyValue;
import lake.meta.ScanPage;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static lake.meta.dynamo.DynamoLayout.s;
import static lake.meta.dynamo.DynamoMetaStore.namesIn;

/**
 * Prefix scans as strongly consistent Queries on the single partition, {@code begins_with} on the
 * sort key, resumed with ExclusiveStartKey. Asks for one entry beyond the page, so the page's
 * continuation is {@code null} exactly when no entry under the prefix remains; keeps querying
 * when DynamoDB stops short of that (its 1 MB response cap) with a LastEvaluatedKey.
 */
final class DynamoScanner {
    /** The most entries one Query asks for; a larger page takes several Queries. */
    static final int MAX_QUERY_LIMIT = 1000;

    private final DynamoDbAsyncClient client;
    private final String table;

    DynamoScanner(DynamoDbAsyncClient client, String table) {
        this.client = client;
        this.table = table;
    }

    /** The page of at most {@code limit} entries under {@code prefix} strictly after {@code after} (null: from the start). */
    CompletableFuture<ScanPage> page(String prefix, String after, int limit) {
        Map<String, AttributeValue> start = after == null ? null : DynamoLayout.keyOf(after);
        return collect(prefix, start, limit, new ArrayList<>());
    }

    /** The greatest key under {@code prefix}: one strongly consistent Query, descending, limit 1. */
    CompletableFuture<java.util.Optional<String>> last(String prefix) {
        QueryRequest descending = query(prefix, null, 1).toBuilder().scanIndexForward(false).build();
        return client.query(descending).thenApply(r -> r.items().isEmpty() ? java.util.Optional.<String>empty()
                : java.util.Optional.of(r.items().get(0).get(DynamoLayout.KEY).s()));
    }

    private CompletableFuture<ScanPage> collect(String prefix, Map<String, AttributeValue> start, int limit,
                                                List<KeyValue> acc) {
        long wanted = (long) limit + 1 - acc.size();
        return client.query(query(prefix, start, (int) Math.min(wanted, MAX_QUERY_LIMIT))).thenCompose(r -> {
            for (Map<String, AttributeValue> item : r.items()) {
                acc.add(new KeyValue(item.get(DynamoLayout.KEY).s(), item.get(DynamoLayout.VALUE).b().asByteArray()));
            }
            if (acc.size() > limit) {
                List<KeyValue> entries = acc.subList(0, limit);
                return CompletableFuture.completedFuture(
                        new ScanPage(entries, ScanPage.continuationAfter(prefix, entries.get(limit - 1).key())));
            }
            if (!hasMore(r)) return CompletableFuture.completedFuture(new ScanPage(acc, null));
            return collect(prefix, r.lastEvaluatedKey(), limit, acc);
        });
    }

    private QueryRequest query(String prefix, Map<String, AttributeValue> start, int limit) {
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":p", s(DynamoLayout.PARTITION_VALUE));
        String condition = "#p = :p";
        // DynamoDB rejects an empty string in a key condition; an empty prefix is the whole partition.
        if (!prefix.isEmpty()) {
            condition += " AND begins_with(#k, :prefix)";
            values.put(":prefix", s(prefix));
        }
        return QueryRequest.builder().tableName(table)
                .keyConditionExpression(condition)
                .expressionAttributeNames(namesIn(condition, "#k, #v"))
                .expressionAttributeValues(values)
                .projectionExpression("#k, #v")
                .exclusiveStartKey(start)
                .consistentRead(true)
                .limit(limit)
                .build();
    }

    private static boolean hasMore(QueryResponse r) {
        return r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty();
    }
}
