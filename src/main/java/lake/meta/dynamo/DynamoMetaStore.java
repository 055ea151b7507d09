package lake.meta.dynamo;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.GuardedMutation;
import lake.meta.Keys;
import lake.meta.MetaException;
import lake.meta.MetaStore;
import lake.meta.ScanPage;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import static lake.meta.dynamo.DynamoLayout.NAMES;
import static lake.meta.dynamo.DynamoLayout.b;
import static lake.meta.dynamo.DynamoLayout.s;

/**
 * {@link MetaStore} over one DynamoDB table through the async SDK (layout: {@link DynamoLayout}).
 *
 * <p>Invariants: input is validated by {@link Keys} before any request; every read is strongly
 * consistent; every write is conditional and carries a fresh token per logical operation, reused
 * unchanged by every SDK retry of it, so a retried write that had already applied is never
 * reported as {@code false} (see {@link #cas}, {@link #delete}); SDK futures complete on the
 * caller's Vert.x context.
 */
public final class DynamoMetaStore implements MetaStore {

    private final Vertx vertx;
    private final DynamoDbAsyncClient client;
    private final String table;
    private final DynamoTransactions transactions;
    private final DynamoScanner scanner;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DynamoMetaStore(Vertx vertx, DynamoDbAsyncClient client, String table) {
        this.vertx = vertx;
        this.client = client;
        this.table = table;
        this.transactions = new DynamoTransactions(table);
        this.scanner = new DynamoScanner(client, table);
    }

    /**
     * Opens the store with a client built from {@code config}; see {@link #open(Vertx, DynamoConfig, DynamoDbAsyncClient)}.
     * Building the client loads the SDK and resolves credentials, which can take seconds, so it
     * runs on a worker thread, never on the caller's event loop.
     */
    public static Future<DynamoMetaStore> open(Vertx vertx, DynamoConfig config) {
        Context context = vertx.getOrCreateContext();
        return context.executeBlocking(() -> DynamoClients.create(config))
                .compose(client -> open(vertx, config, client));
    }

    /**
     * Opens the store over {@code client}, which it owns from now on (closed with the store, also
     * when opening fails). Creates the table when configured to and waits, bounded, until it is ACTIVE.
     */
    public static Future<DynamoMetaStore> open(Vertx vertx, DynamoConfig config, DynamoDbAsyncClient client) {
        Context context = vertx.getOrCreateContext();
        return new DynamoTableSetup(client, config, context).ensureReady()
                .map(v -> new DynamoMetaStore(vertx, client, config.tableName()))
                .onFailure(t -> client.close());
    }

    @Override
    public Future<Optional<byte[]>> get(String key) {
        Future<Optional<byte[]>> invalid = invalid(() -> Keys.validateKey(key));
        if (invalid != null) return invalid;
        return call(() -> {
            GetItemRequest request = GetItemRequest.builder().tableName(table).key(DynamoLayout.keyOf(key))
                    .consistentRead(true).build();
            return client.getItem(request).thenApply(r -> r.hasItem() && !r.item().isEmpty()
                    ? Optional.of(valueOf(key, r.item())) : Optional.<byte[]>empty());
        }, "get '" + key + "'", false);
    }

    /**
     * A conditional PutItem that stores this operation's fresh write token {@code w} with the value,
     * under the condition {@code (expected holds) OR w = :thisToken}. An SDK retry of a put that did
     * apply finds its own token and succeeds again, rewriting identical content; a retry that finds
     * neither (the item changed since) has an unknown outcome and fails retryable, never {@code false}.
     * Limit: if another writer changes the item between the applied attempt and the retry so that
     * {@code expected} holds again (e.g. deletes a key this call created), the retry applies the
     * put a second time. Guarded mutations, the path every client write takes, are transactions
     * with a ClientRequestToken and have no such window.
     */
    @Override
    public Future<Boolean> cas(String key, byte[] expected, byte[] value) {
        Future<Boolean> invalid = invalid(() -> {
            Keys.validateKey(key);
            Keys.validateExpected("expected value", expected);
            Keys.validateValue("value", value);
        });
        if (invalid != null) return invalid;
        return call(() -> {
            String token = UUID.randomUUID().toString();
            Map<String, AttributeValue> values = new HashMap<>();
            values.put(":w", s(token));
            String condition;
            if (expected == null) {
                condition = "attribute_not_exists(#k) OR #w = :w";
            } else {
                condition = "#v = :expected OR #w = :w";
                values.put(":expected", b(expected));
            }
            PutItemRequest request = PutItemRequest.builder().tableName(table)
                    .item(DynamoLayout.item(key, value, token))
                    .conditionExpression(condition)
                    .expressionAttributeNames(namesIn(condition))
                    .expressionAttributeValues(values)
                    .build();
            return client.putItem(request).thenApply(r -> true);
        }, "cas '" + key + "'", true);
    }

    /**
     * A one-operation transaction (a Delete conditioned on the exact value) for its
     * ClientRequestToken: DynamoDB answers a retry of an applied transaction with the same token as
     * a success without applying it again, so a lost reply cannot turn an applied delete into {@code false}.
     */
    @Override
    public Future<Boolean> delete(String key, byte[] expected) {
        Future<Boolean> invalid = invalid(() -> {
            Keys.validateKey(key);
            Keys.validateValue("expected value", expected);
        });
        if (invalid != null) return invalid;
        return transact(Transaction.of(List.of(Transaction.Op.delete(key, expected))), "delete '" + key + "'").map(TransactionOutcome::applied);
    }

    /** The mutation's one-operation guarded transaction: one path with {@link #transact}. */
    @Override
    public Future<Boolean> guardedMutate(GuardedMutation mutation) {
        if (mutation == null) return Future.failedFuture(new MetaException.InvalidArgument("mutation must not be null"));
        String what = "guarded " + mutation.kind() + " of '" + mutation.targetKey() + "' under '" + mutation.guardKey() + "'";
        return transact(mutation.asTransaction(), what).map(TransactionOutcome::applied);
    }

    /** Exactly one TransactWriteItems (see {@link DynamoTransactions#of}). */
    @Override
    public Future<TransactionOutcome> transact(Transaction transaction) {
        if (transaction == null) return Future.failedFuture(new MetaException.InvalidArgument("transaction must not be null"));
        return transact(transaction, "transaction of " + transaction.ops().size() + " operations (first '"
                + transaction.ops().get(0).key() + "')" + transaction.guardKey().map(g -> " under '" + g + "'").orElse(""));
    }

    private Future<TransactionOutcome> transact(Transaction t, String what) {
        boolean guarded = t.guardKey().isPresent();
        return call(() -> client.transactWriteItems(transactions.of(t)).thenApply(r -> TransactionOutcome.APPLIED),
                what, failure -> DynamoErrors.transactionOutcome(what, failure, guarded));
    }

    @Override
    public Future<ScanPage> scanPrefix(String prefix, String continuation, int limit) {
        Future<ScanPage> invalid = invalid(() -> {
            Keys.validatePrefix(prefix);
            Keys.validateLimit(limit);
            ScanPage.resumeAfter(prefix, continuation);
        });
        if (invalid != null) return invalid;
        return call(() -> scanner.page(prefix, ScanPage.resumeAfter(prefix, continuation), limit), "scan of prefix '" + prefix + "'", false);
    }

    @Override
    public Future<Optional<String>> lastKey(String prefix) {
        Future<Optional<String>> invalid = invalid(() -> Keys.validatePrefix(prefix));
        if (invalid != null) return invalid;
        return call(() -> scanner.last(prefix), "last key under prefix '" + prefix + "'", false);
    }

    @Override
    public Future<Void> close() {
        if (!closed.compareAndSet(false, true)) return Future.succeededFuture();
        // Closing the SDK client shuts its Netty event loops down; keep that off the event loop.
        return vertx.executeBlocking(() -> {
            client.close();
            return null;
        }, false);
    }

    /** Bad input fails first, whatever the store's state, so a caller learns of its own mistake. */
    private static <T> Future<T> invalid(Runnable checks) {
        try {
            checks.run();
            return null;
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
    }

    /**
     * Runs one store operation (its input already validated by {@link #invalid}): refuses after
     * close, turns a failure to build the request into a failed future, and completes on the caller's Vert.x context. For
     * conditional writes a refused condition becomes {@code false}; every other failure is typed.
     */
    private <T> Future<T> call(Supplier<CompletableFuture<T>> operation, String what, boolean conditional) {
        @SuppressWarnings("unchecked")
        Function<Throwable, Future<T>> recovery = conditional
                ? t -> (Future<T>) DynamoErrors.conditionalOutcome(what, t)
                : t -> Future.failedFuture(DynamoErrors.classify(what, t));
        return call(operation, what, recovery);
    }

    /** {@link #call(Supplier, String, boolean)} with its own reading of a failure. */
    private <T> Future<T> call(Supplier<CompletableFuture<T>> operation, String what, Function<Throwable, Future<T>> recovery) {
        if (closed.get()) return Future.failedFuture(new MetaException.StoreClosed());
        Context context = vertx.getOrCreateContext();
        CompletableFuture<T> pending;
        try {
            pending = operation.get();
        } catch (MetaException e) {
            return Future.failedFuture(e);
        }
        return Future.fromCompletionStage(pending, context).recover(recovery::apply);
    }

    private static byte[] valueOf(String key, Map<String, AttributeValue> item) {
        AttributeValue v = item.get(DynamoLayout.VALUE);
        if (v == null || v.b() == null) {
            throw new MetaException.PermanentBackend("item '" + key + "' has no binary value attribute '"
                    + DynamoLayout.VALUE + "'; the table is not laid out for this store", null);
        }
        return v.b().asByteArray();
    }

    /** The subset of {@link DynamoLayout#NAMES} an expression uses: DynamoDB rejects unused names. */
    static Map<String, String> namesIn(String... expressions) {
        Map<String, String> used = new HashMap<>();
        NAMES.forEach((placeholder, name) -> {
            for (String e : expressions) if (e.contains(placeholder)) used.put(placeholder, name);
        });
        return used;
    }
}
