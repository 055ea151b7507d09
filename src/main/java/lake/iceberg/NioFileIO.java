package lake.iceberg;

import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

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
 */
public final class NioFileIO implements FileIO, org.apache.iceberg.io.SupportsPrefixOperations {
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

    /** Every regular file under {@code prefix} (a directory), named as {@code prefix} names it, in path order. */
    @Override
    public Iterable<org.apache.iceberg.io.FileInfo> listPrefix(String prefix) {
        Path dir = path(prefix);
        if (!Files.isDirectory(dir)) return java.util.List.of();
        String base = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).sorted().map(p -> {
                try {
                    java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class);
                    StringBuilder rel = new StringBuilder();
                    for (Path part : dir.relativize(p)) rel.append('/').append(part);
                    return new org.apache.iceberg.io.FileInfo(base + rel, a.size(), a.lastModifiedTime().toMillis());
                } catch (NoSuchFileException gone) {
                    return null; // deleted while listed
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + p, e);
                }
            }).filter(java.util.Objects::nonNull).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + prefix, e);
        }
    }

    @Override
    public void deletePrefix(String prefix) {
        for (org.apache.iceberg.io.FileInfo f : listPrefix(prefix)) deleteFile(f.location());
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
