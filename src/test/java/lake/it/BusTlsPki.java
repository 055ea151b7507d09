package lake.it;

import lake.security.TestPki;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A cluster CA with a bus certificate for each of n1..n3 and one for a user's client member; their node options. */
final class BusTlsPki {
    final TestPki pki;
    final List<TestPki.Pair> nodes = new ArrayList<>();
    final TestPki.Pair client;

    BusTlsPki(Path dir) throws Exception {
        pki = new TestPki(dir, "cluster");
        for (int i = 1; i <= 3; i++) nodes.add(pki.issue("n" + i));
        client = pki.issue("client-app");
    }

    /** Node {@code i}'s (0-based) cluster_tls_* options. */
    List<String> args(int i) {
        return List.of("--cluster-tls-cert-file", nodes.get(i).cert().toString(), "--cluster-tls-key-file", nodes.get(i).key().toString(),
                "--cluster-tls-ca-file", pki.caCert.toString());
    }
}
