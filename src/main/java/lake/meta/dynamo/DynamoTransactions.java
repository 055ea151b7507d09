package lake.meta.dynamo;

import lake.meta.GuardedMutation;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

import java.util.Map;
import java.util.UUID;

import static lake.meta.dynamo.DynamoLayout.b;
import static lake.meta.dynamo.DynamoMetaStore.namesIn;

/**
 * Builds the TransactWriteItems requests. Each request carries a fresh ClientRequestToken: one per
 * logical operation, built once, so every SDK retry of that operation sends the same token and
 * DynamoDB applies it at most once (a retry of an applied transaction answers success).
 */
final class DynamoTransactions {
    private static final String EQUALS_EXPECTED = "#v = :expected";
    private static final String ABSENT = "attribute_not_exists(#k)";

    private final String table;

    DynamoTransactions(String table) {
        this.table = table;
    }

    /** A single conditional Delete: {@code delete} as a transaction, for its idempotency token. */
    TransactWriteItemsRequest delete(String key, byte[] expected) {
        return request(deleteOf(key, expected));
    }

    /**
     * The guard's ConditionCheck (value equals the expected bytes; on failure DynamoDB returns the
     * guard's current item in the cancellation reason — the MetaStore contract answers only
     * {@code false}, so the fenced writer reads the lease once instead) plus the
     * target's conditional Put or Delete. Guard and target are different keys (GuardedMutation
     * guarantees it), as one transaction may touch an item only once.
     */
    TransactWriteItemsRequest guarded(GuardedMutation m) {
        ConditionCheck guard = ConditionCheck.builder().tableName(table)
                .key(DynamoLayout.keyOf(m.guardKey()))
                .conditionExpression("#v = :guard")
                .expressionAttributeNames(namesIn("#v = :guard"))
                .expressionAttributeValues(Map.of(":guard", b(m.guardExpected())))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
        String token = UUID.randomUUID().toString();
        TransactWriteItem target = switch (m.kind()) {
            case CREATE -> TransactWriteItem.builder().put(Put.builder().tableName(table)
                    .item(DynamoLayout.item(m.targetKey(), m.value(), token))
                    .conditionExpression(ABSENT)
                    .expressionAttributeNames(namesIn(ABSENT))
                    .build()).build();
            case UPDATE -> TransactWriteItem.builder().put(Put.builder().tableName(table)
                    .item(DynamoLayout.item(m.targetKey(), m.value(), token))
                    .conditionExpression(EQUALS_EXPECTED)
                    .expressionAttributeNames(namesIn(EQUALS_EXPECTED))
                    .expressionAttributeValues(Map.of(":expected", b(m.targetExpected())))
                    .build()).build();
            case DELETE -> deleteOf(m.targetKey(), m.targetExpected());
        };
        return TransactWriteItemsRequest.builder()
                .transactItems(TransactWriteItem.builder().conditionCheck(guard).build(), target)
                .clientRequestToken(token)
                .build();
    }

    private TransactWriteItem deleteOf(String key, byte[] expected) {
        return TransactWriteItem.builder().delete(Delete.builder().tableName(table)
                .key(DynamoLayout.keyOf(key))
                .conditionExpression(EQUALS_EXPECTED)
                .expressionAttributeNames(namesIn(EQUALS_EXPECTED))
                .expressionAttributeValues(Map.of(":expected", b(expected)))
                .build()).build();
    }

    private TransactWriteItemsRequest request(TransactWriteItem... items) {
        return TransactWriteItemsRequest.builder()
                .transactItems(items)
                .clientRequestToken(UUID.randomUUID().toString())
                .build();
    }
}
