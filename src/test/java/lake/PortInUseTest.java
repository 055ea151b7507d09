package lake;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A port the node would listen on that another program holds stops start-up with exit 1 and one
 * line naming the address and the setting, before the data directory is created or the cluster
 * joined. (The real-process form, in a running cluster: {@code ClusterFastFailureIT}.)
 */
class PortInUseTest {
    @TempDir Path dir;

    @Test
    void eachTakenPortIsOneLineNamingTheAddressAndNothingIsWritten() throws Exception {
        for (String setting : List.of("http-port", "cluster-port", "cluster-bus-port")) {
            try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                int taken = held.getLocalPort();
                int other = lake.it.ClusterHarness.freePort();
                Path data = dir.resolve("data-" + setting);
                List<String> args = new ArrayList<>(List.of("--data-dir", data.toString(), "--http-host", "127.0.0.1",
                        "--http-port", String.valueOf(setting.equals("http-port") ? taken : other),
                        "--cluster", "--cluster-host", "127.0.0.1", "--cluster-members", "127.0.0.1:" + taken,
                        "--cluster-port", String.valueOf(setting.equals("cluster-port") ? taken : lake.it.ClusterHarness.freePort()),
                        "--cluster-bus-port", String.valueOf(setting.equals("cluster-bus-port") ? taken : 0)));
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int code = Main.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
                String stderr = err.toString(StandardCharsets.UTF_8);
                assertThat(code).as("%s: %s", setting, stderr).isEqualTo(1);
                assertThat(stderr.lines().toList()).as(setting).containsExactly("lake-metasrv: cannot listen on 127.0.0.1:" + taken
                        + " (" + setting + "): the address is already in use (another node, or another program, listens there)");
                assertThat(out.size()).as(setting).isZero();
                assertThat(Files.exists(data)).as("no data directory for %s", setting).isFalse();
            }
        }
    }
}
