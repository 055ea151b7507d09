package lake.meta.dynamo;

import io.vertx.core.Context;
import io.vertx.core.Future;
import lake.meta.MetaException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

import java.util.concurrent.CompletionException;

/**
 * Makes the configured table usable: creates it when configured to (on-demand billing), then
 * waits for ACTIVE with at most {@code readinessChecks} DescribeTable calls. Never waits without
 * bound: when the table is not ACTIVE in time it fails with {@link DynamoTableNotReady}.
 */
final class DynamoTableSetup {
    private static final String NOT_FOUND = "NOT_FOUND";

    private final DynamoDbAsyncClient client;
    private final DynamoConfig config;
    private final Context context;

    DynamoTableSetup(DynamoDbAsyncClient client, DynamoConfig config, Context context) {
        this.client = client;
        this.config = config;
        this.context = context;
    }

    Future<Void> ensureReady() {
        Future<Void> created = config.createTable() ? create() : Future.succeededFuture();
        return created.compose(v -> check(1));
    }

    private Future<Void> create() {
        CreateTableRequest request = CreateTableRequest.builder()
                .tableName(config.tableName())
                .keySchema(DynamoLayout.keySchema())
                .attributeDefinitions(DynamoLayout.attributeDefinitions())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .build();
        return Future.fromCompletionStage(client.createTable(request), context)
                .<Void>mapEmpty()
                .recover(t -> unwrap(t) instanceof ResourceInUseException
                        ? Future.succeededFuture() // already exists (or is being created): readiness decides
                        : Future.failedFuture(DynamoErrors.classify("creating table '" + config.tableName() + "'", t)));
    }

    private Future<Void> check(int attempt) {
        return describe().compose(status -> {
            if (status.equals(TableStatus.ACTIVE.toString())) return Future.succeededFuture();
            // A missing table never appears unless we created it: fail at once rather than wait.
            boolean hopeless = status.equals(NOT_FOUND) && !config.createTable();
            if (hopeless || attempt >= config.readinessChecks()) {
                return Future.failedFuture(new DynamoTableNotReady(config.tableName(), status, attempt));
            }
            long delayMs = Math.max(1, config.readinessInterval().toMillis());
            return context.owner().timer(delayMs).compose(t -> check(attempt + 1));
        });
    }

    /** The table's status, {@code NOT_FOUND} when absent; a table with another key schema is refused. */
    private Future<String> describe() {
        return Future.fromCompletionStage(client.describeTable(b -> b.tableName(config.tableName())), context)
                .compose(this::statusOf, t -> unwrap(t) instanceof ResourceNotFoundException
                        ? Future.succeededFuture(NOT_FOUND)
                        : Future.failedFuture(DynamoErrors.classify("describing table '" + config.tableName() + "'", t)));
    }

    private Future<String> statusOf(DescribeTableResponse response) {
        if (!DynamoLayout.matches(response.table())) {
            return Future.failedFuture(new MetaException.PermanentBackend("DynamoDB table '" + config.tableName()
                    + "' has key schema " + response.table().keySchema() + "; expected " + DynamoLayout.keySchema(), null));
        }
        return Future.succeededFuture(response.table().tableStatusAsString());
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
