package lake.iceberg;

import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The catalog's {@link FileIO} as a purge uses it: it deletes, with the node's own rights, only
 * files under the purged table's location. A table's metadata can name any object (a manifest
 * a writer crafted, a registered metadata file), and a writer whose storage access the catalog
 * delegated holds rights to its own table only; without this a purge would delete whatever
 * its metadata names, another table's files included. A path outside, or one whose remainder
 * has empty, {@code .} or {@code ..} segments, a backslash or a {@code %} (a file system could
 * resolve it elsewhere), is not deleted but {@linkplain #refused() recorded}; so is one that lies in
 * a directory the catalog assigned another table (a table whose creator named a location that
 * holds other tables' directories purges none of their files).
 */
final class PurgeIO implements FileIO, SupportsBulkOperations {
    private final FileIO io;
    private final String prefix;
    private final Predicate<String> othersAssigned;
    private final List<String> refused = Collections.synchronizedList(new ArrayList<>());

    /**
     * @param location       the purged table's location (its metadata's {@code location})
     * @param othersAssigned whether a path lies in a directory the catalog assigned another table
     */
    PurgeIO(FileIO io, String location, Predicate<String> othersAssigned) {
        this.io = io;
        this.othersAssigned = othersAssigned;
        String l = location;
        while (l.endsWith("/")) l = l.substring(0, l.length() - 1);
        this.prefix = l + "/";
    }

    /** Whether {@code path} is a file under the table's location, named so nothing can resolve it elsewhere, and in no other table's directory. */
    boolean inside(String path) {
        if (path == null || !path.startsWith(prefix) || path.length() == prefix.length()) return false;
        String rest = path.substring(prefix.length());
        if (rest.indexOf('\\') >= 0 || rest.indexOf('%') >= 0) return false;
        for (String segment : rest.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) return false;
        }
        return !othersAssigned.test(path);
    }

    /** The paths the purge named outside the table's location, which were not deleted. */
    List<String> refused() {
        synchronized (refused) {
            return List.copyOf(refused);
        }
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
        throw new UnsupportedOperationException("a purge writes nothing");
    }

    @Override
    public Map<String, String> properties() {
        return io.properties();
    }
}
