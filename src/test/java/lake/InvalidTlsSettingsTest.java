package lake;

import lake.security.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invalid TLS configuration stops start-up with exit status 2 and one line naming the setting,
 * before anything binds or is written. {@link Main#run} is what {@code main} passes to
 * {@code System.exit}; the certificates are real ones made by openssl.
 */
class InvalidTlsSettingsTest {
    @TempDir Path dir;

    record Case(String what, List<String> args, String names) {}

    @Test
    void invalidTlsSettingExitsTwo() throws Exception {
        TestPki pki = new TestPki(dir.resolve("pki"), "main");
        TestPki.Pair good = pki.issue("localhost");
        TestPki.Pair other = pki.issue("localhost");
        TestPki.Pair expired = pki.issue("localhost", -1);
        Path missing = dir.resolve("absent.crt");
        Path unreadable = Files.createDirectory(dir.resolve("a-directory.crt"));
        Path notPem = Files.writeString(dir.resolve("ca.txt"), "not a certificate\n");
        String c = good.cert().toString();
        String k = good.key().toString();
        List<Case> cases = List.of(
                new Case("missing certificate", List.of("--tls-cert-file", missing.toString(), "--tls-key-file", k), "tls-cert-file: no such file: " + missing),
                new Case("unreadable certificate", List.of("--tls-cert-file", unreadable.toString(), "--tls-key-file", k),
                        "tls-cert-file: is a directory, not a file: " + unreadable),
                new Case("missing key", List.of("--tls-cert-file", c, "--tls-key-file", missing.toString()), "tls-key-file: no such file: " + missing),
                new Case("key of another certificate", List.of("--tls-cert-file", c, "--tls-key-file", other.key().toString()),
                        "tls-key-file: the key in " + other.key() + " does not match the certificate"),
                new Case("expired certificate", List.of("--tls-cert-file", expired.cert().toString(), "--tls-key-file", expired.key().toString()),
                        "tls-cert-file: the certificate in " + expired.cert() + " expired"),
                new Case("certificate without key", List.of("--tls-cert-file", c), "tls-key-file: required with tls-cert-file"),
                new Case("client CA not PEM", List.of("--tls-cert-file", c, "--tls-key-file", k, "--tls-client-ca-file", notPem.toString()),
                        "tls-client-ca-file: " + notPem + " holds no PEM certificate"),
                new Case("client CA without server TLS", List.of("--tls-client-ca-file", pki.caCert.toString()), "tls-client-ca-file: needs tls-cert-file"),
                new Case("cluster TLS without CA", List.of("--cluster-tls-cert-file", c, "--cluster-tls-key-file", k), "cluster-tls-ca-file: "),
                new Case("cluster key mismatch", List.of("--cluster-tls-cert-file", c, "--cluster-tls-key-file", other.key().toString(),
                        "--cluster-tls-ca-file", pki.caCert.toString()), "cluster-tls-key-file: the key"),
                new Case("cluster certificate expired", List.of("--cluster-tls-cert-file", expired.cert().toString(), "--cluster-tls-key-file",
                        expired.key().toString(), "--cluster-tls-ca-file", pki.caCert.toString()), "cluster-tls-cert-file: the certificate"));
        String keyText = Files.readString(good.key());
        for (Case tc : cases) {
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            Path data = dir.resolve("data-" + tc.what().replace(' ', '-'));
            List<String> args = new ArrayList<>(List.of("--http-port", String.valueOf(port), "--data-dir", data.toString()));
            args.addAll(tc.args());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Main.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            String stderr = err.toString(StandardCharsets.UTF_8);
            assertThat(code).as(tc.what() + ": " + stderr).isEqualTo(2);
            assertThat(stderr).as(tc.what()).startsWith("lake-metasrv: invalid configuration: ").contains(tc.names())
                    .doesNotContain(keyText.lines().skip(1).findFirst().orElseThrow());
            assertThat(stderr.lines().count()).as(tc.what() + ": one line").isEqualTo(1);
            assertThat(out.toString(StandardCharsets.UTF_8)).as(tc.what()).isEmpty();
            assertThat(data).as(tc.what() + ": nothing written").doesNotExist();
            try (ServerSocket bind = new ServerSocket(port)) {
                assertThat(bind.isBound()).as(tc.what() + ": the HTTP port was never taken").isTrue();
            }
        }
    }
}
