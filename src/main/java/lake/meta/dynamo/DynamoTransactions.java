package lake.meta.dynamo;

import lake.meta.Transaction;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.Delete;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static lake.meta.dynamo.DynamoLayout.b;
import static lake.meta.dynamo.DynamoMetaStore.namesIn;

/**
 * Builds the one TransactWriteItems request of a {@link Transaction}. Item order is fixed so a
 * cancellation reason's position names what failed: the guard's ConditionCheck first (when
 * guarded), then one item per operation, in operation order. Each request carries a fresh
 * ClientRequestToken, built once per logical operation, so every SDK retry sends the same token
 * and DynamoDB applies it at most once (a retry of an applied transaction answers success); the
 * same token is every put's write token {@code w}.
 */
final class DynamoTransactions {
    private static final String EQUALS_EXPECTED = "#v = :expected";
    private static final String ABSENT = "attribute_not_exists(#k)";
    private static final String EXISTS = "attribute_exists(#k)";
    private static final String EQUALS_GUARD = "#v = :guard";

    private final String table;

    DynamoTransactions(String table) {
        this.table = table;
    }

    /**
     * The guard's ConditionCheck (on failure DynamoDB returns the guard's current item with the
     * cancellation; the contract reports only that the guard failed, so the fenced writer reads
     * the lease once instead), then a ConditionCheck for each check-only operation and a
     * conditional Put or Delete for each write. Keys are distinct (Transaction guarantees it), as
     * one request may touch an item only once.
     */
    TransactWriteItemsRequest of(Transaction t) {
        String token = UUID.randomUUID().toString();
        List<TransactWriteItem> items = new ArrayList<>(t.ops().size() + 1);
        byte[] guardExpected = t.guardExpected();
        if (guardExpected != null) {
            items.add(TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName(table)
                    .key(DynamoLayout.keyOf(t.guardKey().orElseThrow()))
                    .conditionExpression(EQUALS_GUARD)
                    .expressionAttributeNames(namesIn(EQUALS_GUARD))
                    .expressionAttributeValues(Map.of(":guard", b(guardExpected)))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .build()).build());
        }
        for (Transaction.Op op : t.ops()) items.add(itemOf(op, token));
        return TransactWriteItemsRequest.builder().transactItems(items).clientRequestToken(token).build();
    }

    private TransactWriteItem itemOf(Transaction.Op op, String token) {
        String condition = switch (op.condition()) {
            case NONE -> null;
            case ABSENT -> ABSENT;
            case EXISTS -> EXISTS;
            case VALUE -> EQUALS_EXPECTED;
        };
        Map<String, String> names = condition == null ? null : namesIn(condition);
        Map<String, AttributeValue> values = op.condition() == Transaction.Condition.VALUE
                ? Map.of(":expected", b(op.expected())) : null;
        return switch (op.action()) {
            case CHECK -> TransactWriteItem.builder().conditionCheck(ConditionCheck.builder().tableName(table)
                    .key(DynamoLayout.keyOf(op.key()))
                    .conditionExpression(condition)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .build()).build();
            case PUT -> TransactWriteItem.builder().put(Put.builder().tableName(table)
                    .item(DynamoLayout.item(op.key(), op.value(), token))
                    .conditionExpression(condition)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .build()).build();
            case DELETE -> TransactWriteItem.builder().delete(Delete.builder().tableName(table)
                    .key(DynamoLayout.keyOf(op.key()))
                    .conditionExpression(condition)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .build()).build();
        };
    }
}
