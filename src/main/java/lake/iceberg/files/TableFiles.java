package lake.iceberg.files;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What an Iceberg table's metadata names through its manifests: the one walk the purge (which
 * deletes what it names) and the orphan sweep (which keeps it) share, so the two never disagree
 * on what a table reaches. Blocking (it reads manifest lists and manifests): a worker thread's
 * work. A manifest or list that cannot be read fails it: neither caller may act on a partial view.
 */
public final class TableFiles {
    private TableFiles() {}

    /** Every snapshot's manifests, each once (snapshots share most of theirs), in the order first met. */
    public static List<ManifestFile> manifests(TableMetadata metadata, FileIO io) {
        Map<String, ManifestFile> byPath = new LinkedHashMap<>();
        for (Snapshot s : metadata.snapshots()) {
            for (ManifestFile m : s.allManifests(io)) byPath.putIfAbsent(m.path(), m);
        }
        return new ArrayList<>(byPath.values());
    }

    /**
     * Every file {@code current} reaches, each given to {@code out} (some more than once): the
     * metadata file and every one in its log, the statistics and partition-statistics files, every
     * snapshot's manifest list, manifests, data and delete files.
     */
    public static void reached(TableMetadata current, FileIO io, Consumer<String> out) {
        out.accept(current.metadataFileLocation());
        for (TableMetadata.MetadataLogEntry e : current.previousFiles()) out.accept(e.file());
        for (org.apache.iceberg.StatisticsFile s : current.statisticsFiles()) out.accept(s.path());
        for (org.apache.iceberg.PartitionStatisticsFile s : current.partitionStatisticsFiles()) out.accept(s.path());
        for (Snapshot snapshot : current.snapshots()) {
            if (snapshot.manifestListLocation() != null) out.accept(snapshot.manifestListLocation());
        }
        for (ManifestFile m : manifests(current, io)) {
            out.accept(m.path());
            contents(m, io, current.specsById(), out);
        }
    }

    /** The data files a data manifest names, or the delete files a delete manifest names, each given to {@code out}. */
    public static void contents(ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specs, Consumer<String> out) {
        try {
            if (manifest.content() == ManifestContent.DATA) {
                try (CloseableIterable<String> paths = ManifestFiles.readPaths(manifest, io, specs)) {
                    paths.forEach(out);
                }
            } else {
                try (CloseableIterable<DeleteFile> deletes = ManifestFiles.readDeleteManifest(manifest, io, specs)) {
                    for (DeleteFile d : deletes) out.accept(d.location());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read manifest " + manifest.path(), e);
        }
    }

    /**
     * A location in one spelling, so a reference, a listed file and a location compare equal: the
     * local file system's {@code file:/a}, {@code file:///a} and {@code /a} are all {@code /a}
     * (normalized); {@code s3a://} and {@code s3n://} are {@code s3://} (Hadoop's names for the same
     * objects; Iceberg's {@code DeleteOrphanFiles} equates them too); other locations as they are.
     */
    public static String spelling(String location) {
        if (location.startsWith("s3a://") || location.startsWith("s3n://")) return "s3://" + location.substring("s3a://".length());
        String p = location;
        if (p.startsWith("file://")) p = p.substring("file://".length());
        else if (p.startsWith("file:")) p = p.substring("file:".length());
        else if (!p.startsWith("/")) return location;
        return p.startsWith("/") ? java.nio.file.Path.of(p).normalize().toString() : location;
    }
}
