package lake.iceberg;

import io.vertx.core.Future;
import lake.catalog.model.CatalogException;
import lake.meta.MetaException;
import lake.metasrv.MetasrvException;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for the catalog's futures on the calling worker thread, and turns lake's typed failures
 * into Iceberg's exceptions (whose REST error codes {@code lake.iceberg.rest.IcebergErrors} knows).
 *
 * <p>Only for lake.iceberg's bounded worker threads: never call it on a Vert.x context thread
 * (an event loop would block, and a worker context would wait for a reply queued behind itself).
 */
final class Blocking {
    private Blocking() {}

    /** The future's value; a fault mapped by {@link #translate}; {@code write} says an unknown outcome is commit-state-unknown. */
    static <T> T await(Future<T> future, long timeoutMs, boolean write) {
        if (io.vertx.core.Context.isOnVertxThread()) {
            throw new IllegalStateException("lake.iceberg must not block a Vert.x thread");
        }
        try {
            return future.toCompletionStage().toCompletableFuture().get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw write ? new CommitStateUnknownException(e) : new ServiceUnavailableException("interrupted");
        } catch (TimeoutException e) {
            if (write) throw new CommitStateUnknownException(new RuntimeException("no answer from the store within " + timeoutMs + " ms"));
            throw new ServiceUnavailableException("no answer from the store within %d ms", timeoutMs);
        } catch (ExecutionException e) {
            throw translate(e.getCause(), write);
        }
    }

    /** Lake's failure as Iceberg's; NotFound stays generic ({@link NotFoundException}) for callers to narrow. */
    static RuntimeException translate(Throwable t, boolean write) {
        if (t instanceof CatalogException.InvalidArgument e) return new IllegalArgumentException(e.getMessage(), e);
        // Refused before the store, e.g. a commit whose change record needs more items than are left.
        if (t instanceof MetaException.InvalidArgument e) return new IllegalArgumentException(e.getMessage(), e);
        if (t instanceof CatalogException.AlreadyExists e) return new AlreadyExistsException(e, "%s", e.getMessage());
        if (t instanceof CatalogException.LocationTaken e) return new AlreadyExistsException(e, "%s", e.getMessage());
        if (t instanceof CatalogException.NamespaceNotEmpty e) return new NamespaceNotEmptyException(e, "%s", e.getMessage());
        if (t instanceof CatalogException.PointerMoved e) return new CommitFailedException(e, "%s", e.getMessage());
        if (t instanceof CatalogException.NotFound e) return new NotFoundException(e, "%s", e.getMessage());
        if (t instanceof CatalogException.Contended e) return new ServiceUnavailableException(e, "%s", e.getMessage());
        // A fault after the write may have been sent: the spec's commit-state-unknown, never a failure.
        if (t instanceof MetaException.OutcomeUnknown e) {
            return write ? new CommitStateUnknownException(e) : new ServiceUnavailableException(e, "%s", e.getMessage());
        }
        if (t instanceof MetasrvException.NotLeader e) return new ServiceUnavailableException(e, "%s", e.getMessage());
        // Refused by the fence (this node's lease is over): certainly not applied.
        if (t instanceof MetasrvException.Fenced e) return new ServiceUnavailableException(e, "%s", e.getMessage());
        if (t instanceof MetasrvException.EpochMismatch e) return new CommitFailedException(e, "%s", e.getMessage());
        if (t instanceof MetaException.RetryableBackend e) {
            return write ? new CommitStateUnknownException(e) : new ServiceUnavailableException(e, "%s", e.getMessage());
        }
        if (t instanceof RuntimeException r) return r;
        return new RuntimeException(t);
    }
}
