package lake.iceberg.files;

import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Iceberg's {@link FileIO} for {@code file:} locations (and bare absolute paths) over
 * {@code java.nio}, so the server needs no Hadoop. A file is written to a temporary sibling,
 * fsynced, renamed into place atomically and its directory fsynced: a metadata file the catalog
 * points at is complete and durable before the pointer swap that names it is even attempted.
 * Lists the files under a directory (the orphan sweep), never deletes by prefix.
 */
public final class NioFileIO implements FileIO, SupportsPrefixOperations {
    /** Whether {@code location} names the local file system ({@code file:} or an absolute path), which this IO serves. */
    public static boolean isLocal(String location) {
        return location.startsWith("file:") || location.startsWith("/");
    }

    /** The local path of {@code location}: {@code file:///a}, {@code file:/a} and {@code /a} are all {@code /a}. */
    static Path path(String location) {
        String p = location;
        if (p.startsWith("file://")) p = p.substring("file://".length());
        else if (p.startsWith("file:")) p = p.substring("file:".length());
        if (!p.startsWith("/")) throw new IllegalArgumentException("not a local absolute location: " + location);
        return Path.of(p);
    }

    @Override
    public InputFile newInputFile(String location) {
        return new Input(location);
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new Output(location);
    }

    @Override
    public void deleteFile(String location) {
        try {
            Files.deleteIfExists(path(location));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + location, e);
        }
    }

    /**
     * Every regular file under directory {@code prefix} (at any depth; directories and links
     * skipped, as is a file gone while listed), sorted, each named {@code prefix} + its relative
     * path, with its size and last-modified time; nothing when the directory does not exist.
     */
    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        String base = prefix.endsWith("/") ? prefix : prefix + "/";
        Path dir = path(base);
        if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return java.util.List.of();
        java.util.List<FileInfo> out = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted().toList()) {
                try {
                    var a = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
                    if (a.isRegularFile()) out.add(new FileInfo(base + dir.relativize(p), a.size(), a.lastModifiedTime().toMillis()));
                } catch (NoSuchFileException gone) {
                    // deleted since the walk saw it
                }
            }
        } catch (IOException | UncheckedIOException e) {
            throw new UncheckedIOException("cannot list " + prefix, e instanceof IOException io ? io : ((UncheckedIOException) e).getCause());
        }
        return out;
    }

    /** Refused: the catalog deletes only files it named one by one, each checked ({@link PurgeIO}). */
    @Override
    public void deletePrefix(String prefix) {
        throw new UnsupportedOperationException("the catalog never deletes by prefix: " + prefix);
    }

    private record Input(String location) implements InputFile {
        @Override public long getLength() {
            try {
                return Files.size(path(location));
            } catch (NoSuchFileException e) {
                throw new NotFoundException(e, "File does not exist: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override public org.apache.iceberg.io.SeekableInputStream newStream() {
            if (!exists()) throw new NotFoundException("File does not exist: %s", location);
            return org.apache.iceberg.Files.localInput(path(location).toFile()).newStream();
        }

        @Override public boolean exists() {
            return Files.isRegularFile(path(location));
        }
    }

    private record Output(String location) implements OutputFile {
        @Override public PositionOutputStream create() {
            if (Files.exists(path(location))) throw new AlreadyExistsException("File already exists: %s", location);
            return open();
        }

        @Override public PositionOutputStream createOrOverwrite() {
            return open();
        }

        @Override public InputFile toInputFile() {
            return new Input(location);
        }

        private PositionOutputStream open() {
            Path target = path(location);
            try {
                Files.createDirectories(target.getParent());
                Path tmp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
                return new Staged(target, tmp, FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + location, e);
            }
        }
    }

    /** Writes to {@code tmp}; on close: fsync, atomic rename to {@code target}, fsync of the directory. */
    private static final class Staged extends PositionOutputStream {
        private final Path target;
        private final Path tmp;
        private final FileChannel channel;
        private long pos;
        private boolean closed;

        Staged(Path target, Path tmp, FileChannel channel) {
            this.target = target;
            this.tmp = tmp;
            this.channel = channel;
        }

        @Override public long getPos() { return pos; }

        @Override public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(b, off, len);
            while (buf.hasRemaining()) channel.write(buf);
            pos += len;
        }

        @Override public void close() throws IOException {
            if (closed) return;
            closed = true;
            try {
                channel.force(true);
                channel.close();
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
                    dir.force(true);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }
}
