package lake.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the cluster secret: a file of one line, at least 16 characters, that only its owner may read. */
final class ClusterSecrets {
    private ClusterSecrets() {}

    static String read(Path path) {
        PrivateFiles.check(path, "cluster-secret-file", "the cluster secret", false);
        try {
            String secret = Files.readString(path, StandardCharsets.UTF_8).strip();
            if (secret.length() < 16) throw new ConfigException("cluster-secret-file: " + path + " must hold at least 16 characters");
            return secret;
        } catch (IOException e) {
            throw ConfigException.file("cluster-secret-file", path, e);
        }
    }
}
