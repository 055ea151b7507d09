package lake.meta.rocks;

import lake.meta.MetaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static lake.meta.rocks.RocksAwait.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One data directory, one open store: the RocksDB LOCK file is the arbiter, across processes and within one. */
class RocksLockTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void directoryLockedByAnotherProcessFailsWithStoreLockedNamingThePath() throws Exception {
        Path data = dir.resolve("db").toAbsolutePath();
        Path stderr = dir.resolve("child.err");
        Process child = ChildJvm.start(LockHolderChild.class, stderr, data.toString());
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
             OutputStream in = child.getOutputStream()) {
            assertThat(out.readLine()).as("child opened the store; stderr: %s", ChildJvm.describe(stderr)).isEqualTo("OPEN");

            assertThatThrownBy(() -> RocksMetaStore.open(RocksConfig.defaults(data)))
                    .isInstanceOfSatisfying(MetaException.StoreLocked.class,
                            e -> assertThat(e.path()).isEqualTo(data.toString()))
                    .hasMessageContaining(data.toString());

            in.write("close\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertThat(out.readLine()).isEqualTo("CLOSED");
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).isZero();
        } finally {
            child.destroyForcibly();
        }

        // Released by the other process: this one may now open it.
        RocksMetaStore store = RocksMetaStore.open(RocksConfig.defaults(data));
        assertThat(await(store.cas("k", null, "v".getBytes(StandardCharsets.UTF_8)))).isTrue();
        await(store.close());
    }

    @Test
    void closeReleasesTheLockForAnInProcessReopen() throws Exception {
        Path data = dir.resolve("db").toAbsolutePath();
        RocksMetaStore first = RocksMetaStore.open(RocksConfig.defaults(data));
        assertThatThrownBy(() -> RocksMetaStore.open(RocksConfig.defaults(data)))
                .isInstanceOf(MetaException.StoreLocked.class).hasMessageContaining(data.toString());
        assertThat(await(first.cas("k", null, "v".getBytes(StandardCharsets.UTF_8)))).isTrue();
        await(first.close());

        RocksMetaStore second = RocksMetaStore.open(RocksConfig.defaults(data));
        try {
            assertThat(await(second.get("k"))).hasValueSatisfying(v -> assertThat(v).containsExactly("v".getBytes(StandardCharsets.UTF_8)));
        } finally {
            await(second.close());
        }
    }
}
