package lake.meta.dynamo;

import lake.meta.MetaException;
import lake.meta.TransactionOutcome;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

import java.io.IOException;
import java.net.ConnectException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

/** Classification of real SDK exception objects: only a provable condition failure is false. */
class DynamoErrorsTest {

    private static TransactionCanceledException cancelled(String... codes) {
        return TransactionCanceledException.builder()
                .message("Transaction cancelled, please refer cancellation reasons for specific reasons")
                .cancellationReasons(Arrays.stream(codes)
                        .map(c -> CancellationReason.builder().code(c).message(c.equals("None") ? null : c + " here").build())
                        .toList())
                .build();
    }

    private static DynamoDbException withCode(String code, String message, int status) {
        return (DynamoDbException) DynamoDbException.builder()
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).serviceName("DynamoDb").build())
                .statusCode(status)
                .message(message)
                .build();
    }

    private static MetaException classify(Throwable t) {
        assertThat(DynamoErrors.isConditionNotMet(t)).as("%s is not a plain condition failure", t).isFalse();
        return DynamoErrors.classify("cas 'k'", t);
    }

    @Test
    void onlyNoneAndConditionalCheckFailedIsFalse() {
        assertThat(DynamoErrors.isConditionNotMet(cancelled("ConditionalCheckFailed", "None"))).isTrue();
        assertThat(DynamoErrors.isConditionNotMet(cancelled("None", "ConditionalCheckFailed"))).isTrue();
        assertThat(DynamoErrors.isConditionNotMet(cancelled("ConditionalCheckFailed", "ConditionalCheckFailed"))).isTrue();
        assertThat(DynamoErrors.isConditionNotMet(new CompletionException(cancelled("ConditionalCheckFailed")))).isTrue();
        assertThat(DynamoErrors.isConditionNotMet(ConditionalCheckFailedException.builder().message("no").build())).isTrue();
        // No ConditionalCheckFailed at all, or no reasons: not a condition failure.
        assertThat(DynamoErrors.isConditionNotMet(cancelled("None", "None"))).isFalse();
        assertThat(DynamoErrors.isConditionNotMet(cancelled())).isFalse();
        assertThat(DynamoErrors.conditionalOutcome("x", cancelled("ConditionalCheckFailed", "None")).result()).isFalse();
    }

    @Test
    void cancellationReasonsNameTheFailedOperations() {
        // Guarded: item 0 is the guard, item i + 1 is operation i.
        assertThat(DynamoErrors.transactionOutcome("txn", cancelled("None", "ConditionalCheckFailed", "None",
                "ConditionalCheckFailed"), true).result())
                .isEqualTo(TransactionOutcome.notApplied(List.of(0, 2), false));
        assertThat(DynamoErrors.transactionOutcome("txn", new CompletionException(cancelled("ConditionalCheckFailed",
                "None", "ConditionalCheckFailed")), true).result())
                .isEqualTo(TransactionOutcome.notApplied(List.of(1), true));
        assertThat(DynamoErrors.transactionOutcome("txn", cancelled("ConditionalCheckFailed", "None"), true).result())
                .isEqualTo(TransactionOutcome.notApplied(List.of(), true));
        // Unguarded: item i is operation i.
        assertThat(DynamoErrors.transactionOutcome("txn", cancelled("ConditionalCheckFailed", "None",
                "ConditionalCheckFailed"), false).result())
                .isEqualTo(TransactionOutcome.notApplied(List.of(0, 2), false));
    }

    @Test
    void transactionFaultsStayTypedNeverNotApplied() {
        Throwable conflict = DynamoErrors.transactionOutcome("txn", cancelled("ConditionalCheckFailed", "TransactionConflict"), true).cause();
        assertThat(conflict).isInstanceOf(MetaException.RetryableBackend.class)
                .isNotInstanceOf(MetaException.OutcomeUnknown.class).hasMessageContaining("TransactionConflict");
        assertThat(DynamoErrors.transactionOutcome("txn", cancelled("None", "ThrottlingError"), false).cause())
                .isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(DynamoErrors.transactionOutcome("txn", cancelled("ValidationError", "ConditionalCheckFailed"), true).cause())
                .isInstanceOf(MetaException.PermanentBackend.class).hasMessageContaining("ValidationError");
        assertThat(DynamoErrors.transactionOutcome("txn", cancelled("None", "None"), true).cause())
                .isInstanceOf(MetaException.PermanentBackend.class);
        assertThat(DynamoErrors.transactionOutcome("txn", ApiCallTimeoutException.create(10_000), true).cause())
                .isInstanceOf(MetaException.OutcomeUnknown.class);
        // A cancellation after a retried attempt may hide an applied first attempt: unknown, not refused.
        TransactionCanceledException retried = (TransactionCanceledException) cancelled("None", "TransactionConflict")
                .toBuilder().numAttempts(3).build();
        assertThat(DynamoErrors.transactionOutcome("txn", retried, true).cause()).isInstanceOf(MetaException.OutcomeUnknown.class);
        // TransactWriteItems never answers a plain ConditionalCheckFailedException; if it did, it names no item.
        assertThat(DynamoErrors.transactionOutcome("txn", ConditionalCheckFailedException.builder().message("no").build(), true)
                .failed()).isTrue();
    }

    @Test
    void dynamoConflictIsNotFlattenedIntoFalse() {
        TransactionCanceledException mixed = cancelled("ConditionalCheckFailed", "TransactionConflict");
        assertThat(DynamoErrors.isConditionNotMet(mixed)).isFalse();
        MetaException e = DynamoErrors.classify("guarded CREATE of 't'", mixed);
        assertThat(e).isInstanceOf(MetaException.RetryableBackend.class)
                .hasMessageContaining("TransactionConflict").hasMessageContaining("guarded CREATE of 't'").hasCause(mixed);
        assertThat(DynamoErrors.conditionalOutcome("x", mixed).cause()).isInstanceOf(MetaException.RetryableBackend.class);
    }

    @Test
    void everyRetryableCancellationReasonIsRetryableEvenMixed() {
        for (String reason : new String[] {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"}) {
            assertThat(classify(cancelled(reason, "None"))).as(reason).isInstanceOf(MetaException.RetryableBackend.class);
            assertThat(classify(cancelled("None", "ConditionalCheckFailed", reason))).as(reason + " mixed")
                    .isInstanceOf(MetaException.RetryableBackend.class);
        }
    }

    @Test
    void throttlingAndCapacityErrorsAreRetryable() {
        assertThat(classify(ProvisionedThroughputExceededException.builder().message("over").build()))
                .isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(RequestLimitExceededException.builder().message("limit").build()))
                .isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(TransactionConflictException.builder().message("conflict").build()))
                .isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(withCode("ThrottlingException", "Rate of requests exceeds the allowed throughput.", 400)))
                .isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(withCode("InternalServerError", "boom", 500))).isInstanceOf(MetaException.RetryableBackend.class);
    }

    @Test
    void networkAndTimeoutFailuresAreRetryable() {
        assertThat(classify(SdkClientException.builder().message("Unable to execute HTTP request")
                .cause(new IOException("Connection reset by peer")).build())).isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(SdkClientException.builder().message("Unable to execute HTTP request")
                .cause(new CompletionException(new ConnectException("Connection refused"))).build()))
                .isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(ApiCallTimeoutException.create(10_000))).isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(ApiCallAttemptTimeoutException.create(2_000))).isInstanceOf(MetaException.RetryableBackend.class);
        assertThat(classify(new CompletionException(ApiCallTimeoutException.create(10_000))))
                .isInstanceOf(MetaException.RetryableBackend.class);
    }

    @Test
    void aWriteWithoutAnAnswerHasAnUnknownOutcome() {
        Throwable timeout = DynamoErrors.conditionalOutcome("cas 'k'", ApiCallTimeoutException.create(10_000)).cause();
        assertThat(timeout).isInstanceOf(MetaException.OutcomeUnknown.class).hasMessageContaining("read before retrying");
        Throwable network = DynamoErrors.conditionalOutcome("cas 'k'", SdkClientException.builder()
                .message("Unable to execute HTTP request").cause(new java.io.IOException("Connection reset")).build()).cause();
        assertThat(network).isInstanceOf(MetaException.OutcomeUnknown.class);
        // A rejection answered on the only attempt wrote nothing: retryable, not unknown.
        Throwable throttled = DynamoErrors.conditionalOutcome("cas 'k'",
                ProvisionedThroughputExceededException.builder().message("over").build()).cause();
        assertThat(throttled).isInstanceOf(MetaException.RetryableBackend.class)
                .isNotInstanceOf(MetaException.OutcomeUnknown.class);
    }

    @Test
    void validationAndOtherErrorsArePermanentWithTheSdkMessage() {
        String sdkMessage = "One or more parameter values were invalid: Missing the key k in the item";
        MetaException validation = classify(withCode("ValidationException", sdkMessage, 400));
        assertThat(validation).isInstanceOf(MetaException.PermanentBackend.class).hasMessageContaining(sdkMessage)
                .hasMessageContaining("cas 'k'");
        assertThat(classify(ResourceNotFoundException.builder().message("Requested resource not found").build()))
                .isInstanceOf(MetaException.PermanentBackend.class).hasMessageContaining("Requested resource not found");
        assertThat(classify(cancelled("ValidationError", "None"))).isInstanceOf(MetaException.PermanentBackend.class)
                .hasMessageContaining("ValidationError");
        assertThat(classify(SdkClientException.builder().message("Unable to load credentials").build()))
                .isInstanceOf(MetaException.PermanentBackend.class).hasMessageContaining("Unable to load credentials");
    }

    @Test
    void conditionFailureAfterARetriedAttemptIsAnUnknownOutcomeNotFalse() {
        ConditionalCheckFailedException retried = (ConditionalCheckFailedException) ConditionalCheckFailedException.builder()
                .message("The conditional request failed").numAttempts(2).build();
        assertThat(DynamoErrors.isConditionNotMet(retried)).isFalse();
        assertThat(DynamoErrors.classify("cas 'k'", retried)).isInstanceOf(MetaException.RetryableBackend.class)
                .hasMessageContaining("unknown outcome");
    }

    @Test
    void metaExceptionsKeepTheirIdentity() {
        MetaException.InvalidArgument invalid = new MetaException.InvalidArgument("bad");
        assertThat(DynamoErrors.classify("x", new CompletionException(invalid))).isSameAs(invalid);
    }
}
