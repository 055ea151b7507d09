package lake.meta.rocks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static lake.meta.rocks.RocksAwait.await;
import static org.assertj.core.api.Assertions.assertThat;

/** An acknowledged mutation is fsynced: it survives SIGKILL of the process that made it. */
class RocksDurabilityTest {
    private static final int ACKS_BEFORE_KILL = 500;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void acknowledgedWritesSurviveKill() throws Exception {
        Path data = dir.resolve("db");
        Path stderr = dir.resolve("child.err");
        Process child = ChildJvm.start(AckingWriterChild.class, stderr, data.toString());
        List<Long> acked = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).as("child start; stderr: %s", ChildJvm.describe(stderr)).isEqualTo("READY");
            String line;
            while (acked.size() < ACKS_BEFORE_KILL && (line = out.readLine()) != null) {
                acked.add(Long.parseLong(line.substring("ACK ".length())));
            }
            assertThat(acked).as("acks before the kill; stderr: %s", ChildJvm.describe(stderr)).hasSize(ACKS_BEFORE_KILL);
            assertThat(child.isAlive()).as("killed mid-stream, not after the child finished").isTrue();

            // SIGKILL on Linux (checked below by the exit status): no shutdown hook, no RocksDB close.
            // Through the ProcessHandle, because Process.destroyForcibly() also closes our end of
            // the child's stdout and would lose the acks still in the pipe.
            assertThat(child.toHandle().destroyForcibly()).isTrue();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).as("exit status 128 + SIGKILL(9)").isEqualTo(137);

            // Acks the child printed before it died are acknowledgements too.
            while ((line = out.readLine()) != null) {
                if (line.startsWith("ACK ")) acked.add(Long.parseLong(line.substring("ACK ".length())));
            }
        } finally {
            child.destroyForcibly();
        }

        RocksMetaStore reopened = RocksMetaStore.open(RocksConfig.defaults(data));
        try {
            assertThat(await(reopened.get(AckingWriterChild.GUARD)))
                    .hasValueSatisfying(v -> assertThat(v).containsExactly(AckingWriterChild.LEASE));
            List<Long> missing = new ArrayList<>();
            for (long n : acked) {
                var stored = await(reopened.get(AckingWriterChild.key(n)));
                if (stored.isEmpty()) missing.add(n);
                else assertThat(stored.get()).containsExactly(AckingWriterChild.value(n));
            }
            assertThat(missing).as("acknowledged mutations lost by SIGKILL (of %d acked)", acked.size()).isEmpty();
        } finally {
            await(reopened.close());
        }
    }
}
