package lake.meta.dynamo;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.GuardedMutation;
import lake.meta.MetaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.core.SdkResponse;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static lake.meta.StoreCalls.failure;
import static org.assertj.core.api.Assertions.assertThat;

/** DynamoDB-specific behaviour, observed on the wire to a real moto server through SDK interceptors. */
class DynamoBackendTest {
    private static final String GUARD = "election/leader";

    private Vertx vertx;
    private DynamoMetaStore store;
    private final RecordingInterceptor recorder = new RecordingInterceptor();

    @BeforeEach
    void startVertx() {
        vertx = Vertx.vertx();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (store != null) await(store.close());
        } finally {
            await(vertx.close());
        }
    }

    /**
     * Closing the store stops the SDK client's Netty threads without the SDK's own 2 s quiet
     * period, which alone overran a SIGTERMed node's shutdown budget under load (issue 15).
     */
    @Test
    void closingTheStoreStopsItsNettyThreadsWithoutAQuietPeriod() throws Exception {
        // Other tests' clients may still run threads of the same name: only this client's count.
        java.util.Set<Thread> before = sdkLoopThreads();
        DynamoMetaStore opened = await(MotoServer.openFreshStore(vertx));
        assertThat(await(opened.cas("close/k", null, b("v")))).as("the client worked before closing").isTrue();
        // Else "none left" would hold vacuously (e.g. if the SDK renamed its threads).
        java.util.Set<Thread> ran = sdkLoopThreads();
        ran.removeAll(before);
        assertThat(ran).as("this client's event loop threads existed before closing").isNotEmpty();
        long began = System.nanoTime();
        await(opened.close());
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        assertThat(tookMs).as("closing waited for no quiet period").isLessThan(1_500);
        java.util.Set<Thread> left = sdkLoopThreads();
        left.removeAll(before);
        assertThat(left).as("no event loop thread of this client left").isEmpty();
    }

    private static java.util.Set<Thread> sdkLoopThreads() {
        java.util.Set<Thread> threads = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("aws-java-sdk-NettyEventLoop")) threads.add(t);
        }
        return threads;
    }

    @Test
    void dynamoGuardedMutationIsOneTransaction() throws Exception {
        store = await(MotoServer.openFreshStore(vertx, recorder));
        byte[] lease = b("lease-1");
        assertThat(await(store.cas(GUARD, null, lease))).isTrue();

        recorder.clear();
        assertThat(await(store.guardedMutate(GuardedMutation.create(GUARD, lease, "tbl/a", b("v1"))))).isTrue();
        TransactWriteItem create = assertOneGuardedTransaction(lease).get(1);
        assertThat(create.put()).isNotNull();
        assertThat(create.put().item().get("k").s()).isEqualTo("tbl/a");
        assertThat(create.put().conditionExpression()).isEqualTo("attribute_not_exists(#k)");

        recorder.clear();
        assertThat(await(store.guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/a", b("v1"), b("v2"))))).isTrue();
        TransactWriteItem update = assertOneGuardedTransaction(lease).get(1);
        assertThat(update.put().item().get("v").b().asByteArray()).containsExactly(b("v2"));
        assertThat(update.put().conditionExpression()).isEqualTo("#v = :expected");
        assertThat(update.put().expressionAttributeValues().get(":expected").b().asByteArray()).containsExactly(b("v1"));

        recorder.clear();
        assertThat(await(store.guardedMutate(GuardedMutation.delete(GUARD, lease, "tbl/a", b("v2"))))).isTrue();
        TransactWriteItem delete = assertOneGuardedTransaction(lease).get(1);
        assertThat(delete.delete().key().get("k").s()).isEqualTo("tbl/a");
        assertThat(delete.delete().conditionExpression()).isEqualTo("#v = :expected");
        assertThat(delete.delete().expressionAttributeValues().get(":expected").b().asByteArray()).containsExactly(b("v2"));

        // A stale guard: still one transaction, refused as a whole, reported false.
        recorder.clear();
        assertThat(await(store.guardedMutate(GuardedMutation.create(GUARD, b("lease-0"), "tbl/b", b("x"))))).isFalse();
        assertThat(recorder.calls()).hasSize(1).allMatch(TransactWriteItemsRequest.class::isInstance);
        assertThat(await(store.get("tbl/b"))).isEmpty();
    }

    /** Exactly one API call, a TransactWriteItems of [guard ConditionCheck, target write], with a token. */
    private List<TransactWriteItem> assertOneGuardedTransaction(byte[] lease) {
        assertThat(recorder.calls()).as("API calls of one guarded mutation").hasSize(1);
        TransactWriteItemsRequest tx = (TransactWriteItemsRequest) recorder.calls().get(0);
        assertThat(tx.clientRequestToken()).isNotBlank();
        assertThat(tx.transactItems()).hasSize(2);
        ConditionCheck guard = tx.transactItems().get(0).conditionCheck();
        assertThat(guard).as("the guard is checked, not written").isNotNull();
        assertThat(guard.key().get("k").s()).isEqualTo(GUARD);
        assertThat(guard.conditionExpression()).isEqualTo("#v = :guard");
        assertThat(guard.expressionAttributeValues().get(":guard").b().asByteArray()).containsExactly(lease);
        assertThat(guard.returnValuesOnConditionCheckFailureAsString()).isEqualTo("ALL_OLD");
        return tx.transactItems();
    }

    @Test
    void dynamoInvalidInputSendsNoRequest() throws Exception {
        store = await(MotoServer.openFreshStore(vertx, recorder));
        recorder.clear();
        String oversized = "k".repeat(1025);
        assertInvalid(store.get(""));
        assertInvalid(store.get("a\0b"));
        assertInvalid(store.cas(oversized, null, b("v")));
        assertInvalid(store.cas("k", null, new byte[256 * 1024 + 1]));
        assertInvalid(store.cas("k", null, null));
        assertInvalid(store.delete("bad\uD800", b("v")));
        assertInvalid(store.delete("k", null));
        assertInvalid(store.guardedMutate(null));
        assertInvalid(store.scanPrefix("", null, 0));
        assertInvalid(store.scanPrefix("a/", "%%not-a-continuation%%", 1));
        assertInvalid(store.scanPrefix("b/", lake.meta.ScanPage.continuationAfter("a/", "a/1"), 1));
        assertThat(recorder.attempts()).as("requests sent for invalid input").isEmpty();
    }

    @Test
    void dynamoReadsAreStronglyConsistentAndScansAreQueries() throws Exception {
        store = await(MotoServer.openFreshStore(vertx, recorder));
        for (int i = 0; i < 5; i++) assertThat(await(store.cas("s/" + i, null, b("v" + i)))).isTrue();
        await(store.get("s/1"));
        String continuation = null;
        int entries = 0;
        do {
            var page = await(store.scanPrefix("s/", continuation, 2));
            entries += page.entries().size();
            continuation = page.continuation();
        } while (continuation != null);
        assertThat(entries).isEqualTo(5);
        await(store.scanPrefix("", null, 10));

        assertThat(recorder.calls(ScanRequest.class)).as("full-table Scans").isEmpty();
        assertThat(recorder.calls(GetItemRequest.class)).isNotEmpty().allMatch(GetItemRequest::consistentRead);
        List<QueryRequest> queries = recorder.calls(QueryRequest.class);
        assertThat(queries).isNotEmpty().allMatch(QueryRequest::consistentRead);
        assertThat(queries.get(0).keyConditionExpression()).contains("begins_with(#k, :prefix)");
        assertThat(queries.get(1).exclusiveStartKey().get("k").s()).isEqualTo("s/1");
    }

    @Test
    void dynamoCasWhoseReplyWasLostIsStillTrueOnRetry() throws Exception {
        store = await(MotoServer.openFreshStore(vertx, recorder, new LostReplyInterceptor(PutItemRequest.class)));
        // The first attempt applies on the server, its reply is lost, the SDK retries the same request.
        assertThat(await(store.cas("k", null, b("v1")))).isTrue();
        List<PutItemRequest> attempts = recorder.attempts(PutItemRequest.class);
        assertThat(attempts).as("attempts, the retry included").hasSize(2);
        assertThat(attempts.get(1).item().get("w").s()).as("the retry carries the same write token")
                .isEqualTo(attempts.get(0).item().get("w").s());
        assertThat(await(store.get("k"))).hasValueSatisfying(v -> assertThat(v).containsExactly(b("v1")));
    }

    @Test
    void dynamoCasConditionFailureAfterALostReplyIsNotReportedFalse() throws Exception {
        LostReplyInterceptor lost = new LostReplyInterceptor(PutItemRequest.class);
        store = await(MotoServer.openFreshStore(vertx, recorder, lost));
        assertThat(await(store.cas("k", null, b("other")))).isTrue(); // its first reply is "lost"; the retry succeeds
        lost.rearm();
        // Fails its condition on both attempts: after a lost reply, the retry's refusal proves nothing.
        Throwable failure = failure(store.cas("k", b("stale"), b("v")));
        assertThat(failure).isInstanceOf(MetaException.RetryableBackend.class).hasMessageContaining("unknown outcome");
        // Without a lost reply, a refused condition is a plain false.
        assertThat(await(store.cas("k", b("stale"), b("v")))).isFalse();
    }

    @Test
    void dynamoTransactionTokenIsStableAcrossSdkRetries() throws Exception {
        store = await(MotoServer.openFreshStore(vertx, recorder, new LostReplyInterceptor(TransactWriteItemsRequest.class)));
        assertThat(await(store.cas(GUARD, null, b("lease")))).isTrue();
        // moto ignores ClientRequestToken, so only the token's stability is checked here; DynamoDB's
        // answer to a repeated token is covered by its documented idempotency.
        await(store.guardedMutate(GuardedMutation.create(GUARD, b("lease"), "t", b("v"))).otherwiseEmpty());
        List<TransactWriteItemsRequest> attempts = recorder.attempts(TransactWriteItemsRequest.class);
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).clientRequestToken()).isNotBlank()
                .isEqualTo(attempts.get(1).clientRequestToken());
        assertThat(await(store.get("t"))).as("applied once").hasValueSatisfying(v -> assertThat(v).containsExactly(b("v")));
    }

    @Test
    void dynamoConflictReachesTheCallerAsRetryable() throws Exception {
        // moto never reports TransactionConflict; add one to the cancellation it does report.
        ExecutionInterceptor conflict = new ExecutionInterceptor() {
            @Override
            public Throwable modifyException(Context.FailedExecution context, ExecutionAttributes attributes) {
                if (context.exception() instanceof TransactionCanceledException e) {
                    return e.toBuilder().cancellationReasons(
                            CancellationReason.builder().code("ConditionalCheckFailed").build(),
                            CancellationReason.builder().code("TransactionConflict").build()).build();
                }
                return context.exception();
            }
        };
        store = await(MotoServer.openFreshStore(vertx, conflict));
        assertThat(await(store.cas(GUARD, null, b("lease")))).isTrue();
        Throwable failure = failure(store.guardedMutate(GuardedMutation.create(GUARD, b("stale"), "t", b("v"))));
        assertThat(failure).isInstanceOf(MetaException.RetryableBackend.class).hasMessageContaining("TransactionConflict");
    }

    @Test
    void dynamoTableReadinessTimesOutWithClearError() throws Exception {
        // moto creates tables ACTIVE at once; this interceptor makes every DescribeTable say CREATING.
        ExecutionInterceptor creating = new ExecutionInterceptor() {
            @Override
            public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
                if (context.response() instanceof DescribeTableResponse r) {
                    return r.toBuilder().table(r.table().toBuilder().tableStatus(TableStatus.CREATING).build()).build();
                }
                return context.response();
            }
        };
        String table = MotoServer.freshTableName();
        DynamoConfig config = MotoServer.config(table).withReadiness(3, Duration.ofMillis(20));
        Throwable failure = failure(DynamoMetaStore.open(vertx, config, DynamoClients.create(config, List.of(creating, recorder))));
        assertThat(failure).isInstanceOf(DynamoTableNotReady.class).isInstanceOf(MetaException.PermanentBackend.class)
                .hasMessageContaining(table).hasMessageContaining("CREATING").hasMessageContaining("3 readiness check");
        assertThat(((DynamoTableNotReady) failure).lastStatus()).isEqualTo("CREATING");
        assertThat(recorder.calls(DescribeTableRequest.class)).as("bounded checks").hasSize(3);
    }

    @Test
    void dynamoMissingTableWithoutCreationFailsAtOnce() throws Exception {
        String table = MotoServer.freshTableName();
        DynamoConfig config = MotoServer.config(table).withCreateTable(false);
        Throwable failure = failure(DynamoMetaStore.open(vertx, config, DynamoClients.create(config, List.of(recorder))));
        assertThat(failure).isInstanceOf(DynamoTableNotReady.class).hasMessageContaining(table).hasMessageContaining("NOT_FOUND");
        assertThat(recorder.calls(SdkRequest.class)).hasSize(1);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertInvalid(Future<?> future) throws Exception {
        assertThat(failure(future)).isInstanceOf(MetaException.InvalidArgument.class);
    }

    private static <T> T await(Future<T> future) throws Exception {
        try {
            return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
