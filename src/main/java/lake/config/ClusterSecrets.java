package lake.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/** Reads the cluster secret: a file of one line, at least 16 characters, that only its owner may read. */
final class ClusterSecrets {
    private ClusterSecrets() {}

    static String read(Path path) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
            if (perms.contains(PosixFilePermission.OTHERS_READ) || perms.contains(PosixFilePermission.OTHERS_WRITE)
                    || perms.contains(PosixFilePermission.GROUP_READ) || perms.contains(PosixFilePermission.GROUP_WRITE)) {
                throw new ConfigException("cluster-secret-file: " + path + " can be read or written by other users (chmod 600 it)");
            }
            String secret = Files.readString(path, StandardCharsets.UTF_8).strip();
            if (secret.length() < 16) throw new ConfigException("cluster-secret-file: " + path + " must hold at least 16 characters");
            return secret;
        } catch (IOException e) {
            throw new ConfigException("cluster-secret-file: cannot read " + path + ": " + e.getMessage());
        }
    }
}
