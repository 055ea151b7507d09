package lake.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/** Configuration that cannot start a node. The message names the setting; the process exits 2. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message, null, false, false);
    }

    /** {@code setting}'s file or directory {@code path} could not be used: {@code "setting: <reason>: <path>"}. */
    public static ConfigException file(String setting, Path path, IOException e) {
        return new ConfigException(setting + ": " + reason(path, e));
    }

    /**
     * Why {@code path} could not be used, then the path, once: {@code no such file: …},
     * {@code is a file, not a directory: …} (naming the file that stands where a directory must
     * be), {@code is a directory, not a file: …}, {@code permission denied: …}. The JDK's own
     * messages name the path and nothing else, which said it twice and never why.
     */
    public static String reason(Path path, IOException e) {
        String where = e instanceof FileSystemException f && f.getFile() != null ? f.getFile() : String.valueOf(path);
        if (e instanceof NoSuchFileException) return "no such file: " + where;
        if (e instanceof AccessDeniedException) return "permission denied: " + where;
        if (e instanceof FileAlreadyExistsException || e instanceof NotDirectoryException) return "is a file, not a directory: " + where;
        if (e instanceof FileSystemException f && "Not a directory".equals(f.getReason())) {
            for (Path p = Path.of(where).getParent(); p != null; p = p.getParent()) {
                if (Files.isRegularFile(p)) return "is a file, not a directory: " + p;
            }
        }
        if (path != null && Files.isDirectory(path)) return "is a directory, not a file: " + path;
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason() + ": " + where;
        return e.getMessage() + ": " + path;
    }
}
