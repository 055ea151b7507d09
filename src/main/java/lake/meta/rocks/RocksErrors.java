package lake.meta.rocks;

import lake.meta.MetaException;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * Maps RocksDB faults to the contract's typed errors. A fault is never turned into {@code false}:
 * conditions that do not hold are decided by the writer, not by an exception.
 */
final class RocksErrors {
    private RocksErrors() {}

    static MetaException map(String operation, RocksDBException e) {
        Status.Code code = e.getStatus() == null ? null : e.getStatus().getCode();
        String message = "RocksDB " + operation + " failed" + (code == null ? "" : " (" + code + ")")
                + ": " + e.getMessage();
        if (isRetryable(code)) return new MetaException.RetryableBackend(message, e);
        return new MetaException.PermanentBackend(message, e);
    }

    /** Busy, TryAgain and TimedOut clear by themselves; corruption, IO errors and the rest do not. */
    static boolean isRetryable(Status.Code code) {
        return code == Status.Code.Busy || code == Status.Code.TryAgain || code == Status.Code.TimedOut;
    }

    /** RocksDB reports a held LOCK file as an IOError whose message names the LOCK file. */
    static boolean isLockHeld(RocksDBException e) {
        String message = e.getMessage();
        return message != null && message.contains("LOCK")
                && (e.getStatus() == null || e.getStatus().getCode() == Status.Code.IOError);
    }
}
