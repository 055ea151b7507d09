package lake.meta.rocks;

import lake.meta.MetaException;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

import static org.assertj.core.api.Assertions.assertThat;

/** RocksDB statuses map to typed errors: transient ones retryable, the rest permanent, never false. */
class RocksErrorsTest {
    @Test
    void transientStatusesAreRetryableAndTheRestPermanent() {
        for (Status.Code code : Status.Code.values()) {
            if (code == Status.Code.Ok) continue;
            MetaException e = RocksErrors.map("write", new RocksDBException("boom", new Status(code, Status.SubCode.None, "boom")));
            boolean retryable = code == Status.Code.Busy || code == Status.Code.TryAgain || code == Status.Code.TimedOut;
            assertThat(e).as(code.toString())
                    .isInstanceOf(retryable ? MetaException.RetryableBackend.class : MetaException.PermanentBackend.class)
                    .hasMessageContaining("write").hasCauseInstanceOf(RocksDBException.class);
        }
    }
}
