package lake.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away PKI made with the real {@code openssl} command (installed by scripts/test): a CA,
 * and certificates it signs for servers (SAN 127.0.0.1 and localhost), clients and cluster
 * members, with P-256 keys written as PKCS#8. Public for the server, cluster and process tests.
 */
public final class TestPki {
    public final Path dir;
    public final Path caCert;
    private final Path caKey;
    private int serial = 1;

    /** A CA named {@code name} under {@code dir}. */
    public TestPki(Path dir, String name) throws IOException, InterruptedException {
        this.dir = Files.createDirectories(dir);
        this.caCert = dir.resolve(name + "-ca.crt");
        this.caKey = dir.resolve(name + "-ca.key");
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", caKey.toString(),
                "-out", caCert.toString(), "-days", "2", "-subj", "/CN=" + name + "-ca");
    }

    /** A certificate and key pair the CA signed. */
    public record Pair(Path cert, Path key) {}

    /** A certificate for {@code cn}, valid from now for {@code days} (negative: already expired), usable as server and client. */
    public Pair issue(String cn, int days) throws IOException, InterruptedException {
        String base = cn + "-" + (serial++);
        Path key = dir.resolve(base + ".key");
        Path csr = dir.resolve(base + ".csr");
        Path cert = dir.resolve(base + ".crt");
        Path ext = dir.resolve(base + ".ext");
        Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.toString(),
                "-out", csr.toString(), "-subj", "/CN=" + cn);
        openssl("x509", "-req", "-in", csr.toString(), "-CA", caCert.toString(), "-CAkey", caKey.toString(),
                "-set_serial", String.valueOf(serial + 1000), "-out", cert.toString(), "-days", String.valueOf(days),
                "-extfile", ext.toString());
        return new Pair(cert, key);
    }

    public Pair issue(String cn) throws IOException, InterruptedException {
        return issue(cn, 1);
    }

    /** The private key file's text: what no log line may contain. */
    public static String keyBody(Pair p) throws IOException {
        List<String> lines = Files.readAllLines(p.key(), StandardCharsets.US_ASCII);
        return lines.get(1); // the first base64 line of the key
    }

    static void openssl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
    }
}
