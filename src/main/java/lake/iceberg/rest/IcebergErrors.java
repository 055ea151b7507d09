package lake.iceberg.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchIcebergTableException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.exceptions.UnprocessableEntityException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.rest.responses.ErrorResponse;

/** The REST spec's error model: which status and type each failure answers with. */
final class IcebergErrors {
    private IcebergErrors() {}

    static int status(Throwable t) {
        if (t instanceof JsonProcessingException) return 400;
        if (t instanceof BadRequestException || t instanceof IllegalArgumentException || t instanceof ValidationException) return 400;
        if (t instanceof NotAuthorizedException) return 401;
        if (t instanceof ForbiddenException) return 403;
        if (t instanceof NoSuchNamespaceException || t instanceof NoSuchTableException || t instanceof NoSuchViewException
                || t instanceof NoSuchIcebergTableException || t instanceof NotFoundException) return 404;
        if (t instanceof UnsupportedOperationException) return 406;
        if (t instanceof AlreadyExistsException || t instanceof CommitFailedException || t instanceof NamespaceNotEmptyException) return 409;
        if (t instanceof UnprocessableEntityException) return 422;
        if (t instanceof ServiceUnavailableException) return 503;
        // Commit-state-unknown is the spec's 500 (the client keeps its files and does not retry blindly).
        return 500;
    }

    static ErrorResponse of(Throwable t) {
        Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
        int status = status(cause);
        String type = cause instanceof JsonProcessingException ? BadRequestException.class.getSimpleName() : cause.getClass().getSimpleName();
        String message = cause instanceof JsonProcessingException j ? "Malformed request: " + j.getOriginalMessage() : cause.getMessage();
        if (cause instanceof CommitStateUnknownException) type = CommitStateUnknownException.class.getSimpleName();
        return ErrorResponse.builder().responseCode(status).withType(type)
                .withMessage(message == null ? cause.getClass().getSimpleName() : message).build();
    }
}
