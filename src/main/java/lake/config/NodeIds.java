package lake.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.HexFormat;

/** A node keeps its id in its data directory, so a restarted node is the same node. */
public final class NodeIds {
    private static final String FILE = "node-id";

    private NodeIds() {}

    /** The configured id, else the stored one, else a new one that is stored first. */
    public static String resolve(Settings s) {
        Path dir = s.dataDir();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw ConfigException.file("data-dir", dir, e);
        }
        if (!Files.isDirectory(dir)) throw new ConfigException("data-dir: is a file, not a directory: " + dir);
        if (!Files.isWritable(dir) || !Files.isReadable(dir)) {
            throw new ConfigException("data-dir: permission denied (the node reads and writes it): " + dir);
        }
        Path file = dir.resolve(FILE);
        try {
            String stored = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).trim() : null;
            if (s.nodeId() != null) {
                if (stored == null) write(file, s.nodeId());
                return s.nodeId();
            }
            if (stored != null && !stored.isEmpty()) return stored;
            byte[] random = new byte[4];
            new SecureRandom().nextBytes(random);
            String id = "node-" + HexFormat.of().formatHex(random);
            write(file, id);
            return id;
        } catch (IOException e) {
            throw ConfigException.file("data-dir", file, e);
        }
    }

    private static void write(Path file, String id) throws IOException {
        Path tmp = file.resolveSibling(FILE + ".tmp");
        Files.writeString(tmp, id + "\n", StandardCharsets.UTF_8);
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
