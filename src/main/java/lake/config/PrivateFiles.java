package lake.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/** Files holding secrets must be private to their owner, as ssh insists for keys. */
final class PrivateFiles {
    private PrivateFiles() {}

    /**
     * Refuses {@code path} if users other than its owner may read or write it ({@code groupMayRead}:
     * its group may read). Skipped where the file system has no POSIX permissions.
     *
     * @param setting the setting named in the error
     * @param holds   what the file holds, for the error ("tokens", "the cluster secret")
     */
    static void check(Path path, String setting, String holds, boolean groupMayRead) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
            if (perms.contains(PosixFilePermission.OTHERS_READ) || perms.contains(PosixFilePermission.OTHERS_WRITE)
                    || perms.contains(PosixFilePermission.GROUP_WRITE)
                    || (!groupMayRead && perms.contains(PosixFilePermission.GROUP_READ))) {
                throw new ConfigException(setting + ": " + path + " holds " + holds + " but other users can read or write it"
                        + " (chmod " + (groupMayRead ? "600 or 640" : "600") + ")");
            }
        } catch (UnsupportedOperationException noPosix) {
            // Nothing to check on this file system.
        } catch (IOException e) {
            throw ConfigException.file(setting, path, e);
        }
    }
}
