package lake.meta.dynamo;

import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

import java.util.List;
import java.util.Map;

/**
 * The table layout. Every entry lives in ONE partition so that a prefix scan is a single
 * {@code Query} with {@code begins_with} on the sort key, in the sort key's order (UTF-8 bytes,
 * the contract's order), and never a full-table {@code Scan}:
 *
 * <pre>
 *   p (S, partition key) = "meta"       fixed for every item
 *   k (S, sort key)      = the key      at most 1,024 UTF-8 bytes, DynamoDB's sort-key limit
 *   v (B)                = the value    may be empty; absent item = absent key
 *   w (S)                = write token  the id of the logical operation that wrote the item last
 * </pre>
 *
 * The trade-off: one partition caps throughput at one partition's limits (about 1,000 writes and
 * 3,000 strongly consistent reads per second) and 10 GB, ample for metadata but not for data.
 */
final class DynamoLayout {
    static final String PARTITION = "p";
    static final String KEY = "k";
    static final String VALUE = "v";
    static final String WRITE_TOKEN = "w";
    static final String PARTITION_VALUE = "meta";

    /** Names every expression uses, so no attribute name can collide with a reserved word. */
    static final Map<String, String> NAMES = Map.of("#p", PARTITION, "#k", KEY, "#v", VALUE, "#w", WRITE_TOKEN);

    private DynamoLayout() {}

    static Map<String, AttributeValue> keyOf(String key) {
        return Map.of(PARTITION, s(PARTITION_VALUE), KEY, s(key));
    }

    static Map<String, AttributeValue> item(String key, byte[] value, String writeToken) {
        return Map.of(PARTITION, s(PARTITION_VALUE), KEY, s(key), VALUE, b(value), WRITE_TOKEN, s(writeToken));
    }

    static AttributeValue s(String s) {
        return AttributeValue.builder().s(s).build();
    }

    static AttributeValue b(byte[] bytes) {
        return AttributeValue.builder().b(SdkBytes.fromByteArray(bytes)).build();
    }

    static List<KeySchemaElement> keySchema() {
        return List.of(
                KeySchemaElement.builder().attributeName(PARTITION).keyType(KeyType.HASH).build(),
                KeySchemaElement.builder().attributeName(KEY).keyType(KeyType.RANGE).build());
    }

    static List<AttributeDefinition> attributeDefinitions() {
        return List.of(
                AttributeDefinition.builder().attributeName(PARTITION).attributeType(ScalarAttributeType.S).build(),
                AttributeDefinition.builder().attributeName(KEY).attributeType(ScalarAttributeType.S).build());
    }

    /** True when an existing table has this layout's key schema; any other table is refused. */
    static boolean matches(TableDescription table) {
        return table.keySchema().size() == 2 && table.keySchema().containsAll(keySchema());
    }
}
