package lake.meta.dynamo;

import io.vertx.core.Future;
import lake.meta.MetaException;
import lake.meta.TransactionOutcome;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.RetryableException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Turns what the SDK reports into the contract's outcomes. The invariant: only a condition that
 * provably did not hold becomes {@code false}; every other failure stays a typed
 * {@link MetaException}, retryable when the same call may succeed later, permanent otherwise.
 */
public final class DynamoErrors {

    /** Cancellation reasons that mean "try again", never "the condition did not hold". */
    static final Set<String> RETRYABLE_REASONS = Set.of(
            "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded");

    private DynamoErrors() {}

    /**
     * The result of a failed conditional write: {@code false} when its condition did not hold,
     * else a fault. A retryable fault is {@link MetaException.OutcomeUnknown} unless the write was
     * certainly refused: a single attempt answered by a throttling or conflict rejection. A
     * timeout, a broken connection, a server error, or any failure after more than one attempt
     * may hide an applied write.
     */
    public static Future<Boolean> conditionalOutcome(String what, Throwable failure) {
        if (isConditionNotMet(failure)) return Future.succeededFuture(false);
        return Future.failedFuture(writeFault(what, failure));
    }

    /**
     * The result of a failed TransactWriteItems built by {@link DynamoTransactions}: "not applied"
     * when it was cancelled only by conditions (reasons {@code None}/{@code ConditionalCheckFailed}),
     * naming each item whose reason is {@code ConditionalCheckFailed} — item 0 is the guard when
     * {@code guarded}, the others are operations in order. Anything else is the same typed fault as
     * for {@link #conditionalOutcome}.
     */
    public static Future<TransactionOutcome> transactionOutcome(String what, Throwable failure, boolean guarded) {
        if (unwrap(failure) instanceof TransactionCanceledException tce && isConditionNotMet(tce)) {
            return Future.succeededFuture(notApplied(tce, guarded));
        }
        return Future.failedFuture(writeFault(what, failure));
    }

    static TransactionOutcome notApplied(TransactionCanceledException cancelled, boolean guarded) {
        List<String> codes = codes(cancelled);
        boolean guardFailed = false;
        List<Integer> failed = new ArrayList<>();
        for (int item = 0; item < codes.size(); item++) {
            if (!codes.get(item).equals("ConditionalCheckFailed")) continue;
            if (guarded && item == 0) guardFailed = true;
            else failed.add(guarded ? item - 1 : item);
        }
        return TransactionOutcome.notApplied(failed, guardFailed);
    }

    /** A conditional write's fault: unknown outcome unless the write was certainly refused. */
    private static MetaException writeFault(String what, Throwable failure) {
        MetaException fault = classify(what, failure);
        if (fault instanceof MetaException.RetryableBackend && !(fault instanceof MetaException.OutcomeUnknown)
                && !certainlyRefused(unwrap(failure))) {
            return new MetaException.OutcomeUnknown(fault.getMessage()
                    + " (the write may have applied: read before retrying)", fault.getCause());
        }
        return fault;
    }

    /** A rejection DynamoDB answered on the only attempt, so nothing was written. */
    static boolean certainlyRefused(Throwable t) {
        if (t instanceof SdkException se && se.numAttempts() != null && se.numAttempts() > 1) return false;
        if (t instanceof TransactionCanceledException) return true;
        // TransactionInProgress is not here: a transaction with the same token is still running
        // and may yet apply.
        if (t instanceof TransactionConflictException || t instanceof ProvisionedThroughputExceededException
                || t instanceof RequestLimitExceededException || t instanceof LimitExceededException) {
            return true;
        }
        return t instanceof AwsServiceException ase && ase.isThrottlingException();
    }

    /**
     * True only when the write was refused because a condition did not hold, and nothing else
     * went wrong: a plain conditional-check failure on the first attempt, or a cancelled
     * transaction whose reasons are all {@code None} but at least one {@code ConditionalCheckFailed}.
     */
    public static boolean isConditionNotMet(Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof TransactionCanceledException tce) {
            List<String> codes = codes(tce);
            return codes.contains("ConditionalCheckFailed")
                    && codes.stream().allMatch(c -> c.equals("None") || c.equals("ConditionalCheckFailed"));
        }
        if (t instanceof ConditionalCheckFailedException ccf) return !retriedAfterAmbiguousAttempt(ccf);
        return false;
    }

    /** The typed fault for {@code failure}; {@code what} names the operation and key for the message. */
    public static MetaException classify(String what, Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof MetaException me) return me;
        String message = what + " failed: " + describe(t);
        if (t instanceof ConditionalCheckFailedException ccf && retriedAfterAmbiguousAttempt(ccf)) {
            // An earlier attempt may have applied and been overwritten since; the outcome is unknown.
            return new MetaException.OutcomeUnknown(what + " has an unknown outcome: the condition failed on attempt "
                    + ccf.numAttempts() + " after an earlier attempt whose reply was lost", t);
        }
        return isRetryable(t) ? new MetaException.RetryableBackend(message, t) : new MetaException.PermanentBackend(message, t);
    }

    static boolean isRetryable(Throwable t) {
        if (t instanceof TransactionCanceledException tce) {
            return codes(tce).stream().anyMatch(RETRYABLE_REASONS::contains);
        }
        if (t instanceof TransactionConflictException || t instanceof ProvisionedThroughputExceededException
                || t instanceof RequestLimitExceededException || t instanceof TransactionInProgressException
                || t instanceof InternalServerErrorException || t instanceof LimitExceededException) {
            return true;
        }
        if (t instanceof AwsServiceException ase) {
            return ase.isThrottlingException() || ase.statusCode() >= 500 || ase.isRetryableException();
        }
        if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException
                || t instanceof RetryableException) {
            return true;
        }
        if (t instanceof SdkClientException) return hasNetworkCause(t);
        return t instanceof IOException || t instanceof TimeoutException;
    }

    /**
     * A conditional check that failed after the SDK had already sent the request more than once:
     * an earlier attempt may have applied with its reply lost, so {@code false} could be a lie.
     */
    private static boolean retriedAfterAmbiguousAttempt(SdkException e) {
        return e.numAttempts() != null && e.numAttempts() > 1;
    }

    private static boolean hasNetworkCause(Throwable t) {
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c instanceof IOException || c instanceof TimeoutException) return true;
        }
        return false;
    }

    private static List<String> codes(TransactionCanceledException e) {
        return e.cancellationReasons().stream().map(CancellationReason::code).map(String::valueOf).toList();
    }

    private static String describe(Throwable t) {
        if (t instanceof TransactionCanceledException tce && tce.hasCancellationReasons()) {
            return "transaction cancelled, reasons " + tce.cancellationReasons().stream()
                    .map(r -> r.code() + (r.message() == null ? "" : " (" + r.message() + ")"))
                    .collect(Collectors.joining(", ", "[", "]"));
        }
        if (t instanceof AwsServiceException ase && ase.awsErrorDetails() != null) {
            return ase.awsErrorDetails().errorCode() + ": " + ase.awsErrorDetails().errorMessage();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
