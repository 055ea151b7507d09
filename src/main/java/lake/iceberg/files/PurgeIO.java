package lake.iceberg.files;

import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The catalog's {@link FileIO} wherever it deletes for a table (a purge; a commit's deletion of
 * metadata files that fell out of the log): it deletes, with the node's own rights, only
 * files under the location the catalog assigned the table (claimed by it alone; no
 * claimed location holds another). A table's metadata can name any object (a manifest a writer
 * crafted, a registered metadata file, a location moved by {@code set-location}), and a writer
 * whose storage access the catalog delegated holds rights to its own table only; without this a
 * purge would delete whatever its metadata names, another table's files included. A path
 * outside, or one whose remainder a file system or a second decoding could resolve elsewhere
 * ({@link lake.storage.ObjectKeys}), is not deleted but {@linkplain #refused() recorded}. The orphan
 * sweep deletes through it too ({@code IcebergCatalog.deletesFor}, {@code deletesForUnclaimed}).
 * On S3 its bulk deletes are quiet ({@link QuietS3Deletes}): the store names only the keys that failed.
 */
public final class PurgeIO implements FileIO, SupportsBulkOperations {
    private final FileIO io;
    private final String prefix;
    private final List<String> refused = Collections.synchronizedList(new ArrayList<>());

    /**
     * @param assignedLocation the location the catalog assigned the table when it was created;
     *                         {@code null} when it assigned none: then nothing is deleted
     */
    public PurgeIO(FileIO io, String assignedLocation) {
        this.io = QuietS3Deletes.of(io);
        if (assignedLocation == null) {
            this.prefix = null;
            return;
        }
        String l = oneSpelling(assignedLocation);
        while (l.endsWith("/")) l = l.substring(0, l.length() - 1);
        this.prefix = l + "/";
    }

    /** A local path in one spelling ({@code file:/a}, {@code file:///a} and {@code /a} are one file); others as they are. */
    private static String oneSpelling(String location) {
        if (!NioFileIO.isLocal(location)) return location;
        try {
            return "file://" + NioFileIO.path(location);
        } catch (IllegalArgumentException notAbsolute) {
            return location;
        }
    }

    /** Whether {@code path} is a file under the table's assigned location, named so nothing can resolve it elsewhere. */
    public boolean inside(String path) {
        if (path == null || prefix == null) return false;
        String p = oneSpelling(path);
        if (!p.startsWith(prefix) || p.length() == prefix.length()) return false;
        String rest = p.substring(prefix.length());
        return !rest.endsWith("/") && lake.storage.ObjectKeys.problem(rest).isEmpty();
    }

    /** The paths the purge named that it did not delete (outside the location, or named to resolve elsewhere). */
    public List<String> refused() {
        synchronized (refused) {
            return List.copyOf(refused);
        }
    }

    /** How many paths {@link #refused()} holds: what a caller takes differences of, without a copy. */
    public int refusedCount() {
        return refused.size();
    }

    @Override
    public void deleteFile(String path) {
        if (inside(path)) io.deleteFile(path);
        else refused.add(path);
    }

    @Override
    public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
        List<String> mine = new ArrayList<>();
        for (String p : paths) {
            if (inside(p)) mine.add(p);
            else refused.add(p);
        }
        if (io instanceof SupportsBulkOperations bulk) bulk.deleteFiles(mine);
        else mine.forEach(io::deleteFile);
    }

    /**
     * Deletes {@code paths} (one S3 {@code DeleteObjects} call for up to a thousand), those
     * outside refused as by {@link #deleteFiles}; the number it deleted: those it sent less those
     * the store reported failed.
     */
    public long delete(List<String> paths) {
        int before = refusedCount();
        try {
            deleteFiles(paths);
            return paths.size() - (refusedCount() - before);
        } catch (BulkDeletionFailureException e) {
            return paths.size() - (refusedCount() - before) - e.numberFailedObjects();
        }
    }

    @Override
    public InputFile newInputFile(String path) {
        return io.newInputFile(path);
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        return io.newInputFile(path, length);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return io.newOutputFile(path);
    }

    @Override
    public Map<String, String> properties() {
        return io.properties();
    }
}
