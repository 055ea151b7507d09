package lake.orphans;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;

/**
 * Every file an Iceberg table's current metadata reaches, each in {@linkplain #spelling one
 * spelling}: the current metadata file and every one in its log, every snapshot's manifest list,
 * manifests, data and delete files, and the statistics and partition-statistics files. Blocking
 * (it reads every manifest once): a worker thread's work. A manifest or manifest list that cannot
 * be read fails it, so a sweep never reports a file only because it could not see who names it.
 */
final class References {
    private References() {}

    static Set<String> of(TableMetadata current, FileIO io) {
        Set<String> out = new HashSet<>();
        add(out, current.metadataFileLocation());
        for (TableMetadata.MetadataLogEntry e : current.previousFiles()) add(out, e.file());
        for (StatisticsFile s : current.statisticsFiles()) add(out, s.path());
        for (PartitionStatisticsFile s : current.partitionStatisticsFiles()) add(out, s.path());
        Set<String> manifestsRead = new HashSet<>();
        for (Snapshot snapshot : current.snapshots()) {
            add(out, snapshot.manifestListLocation());
            for (ManifestFile m : snapshot.allManifests(io)) {
                if (!manifestsRead.add(spelling(m.path()))) continue;
                add(out, m.path());
                try {
                    if (m.content() == org.apache.iceberg.ManifestContent.DATA) {
                        try (CloseableIterable<String> paths = ManifestFiles.readPaths(m, io, current.specsById())) {
                            for (String p : paths) add(out, p);
                        }
                    } else {
                        try (CloseableIterable<DeleteFile> deletes = ManifestFiles.readDeleteManifest(m, io, current.specsById())) {
                            for (DeleteFile d : deletes) add(out, d.location());
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read manifest " + m.path(), e);
                }
            }
        }
        return out;
    }

    private static void add(Set<String> out, String location) {
        if (location != null) out.add(spelling(location));
    }

    /**
     * A location in one spelling, so a reference and a listed file compare equal: the local file
     * system's {@code file:/a}, {@code file:///a} and {@code /a} are all {@code /a} (normalized);
     * object-store locations as they are.
     */
    static String spelling(String location) {
        String p = location;
        if (p.startsWith("file://")) p = p.substring("file://".length());
        else if (p.startsWith("file:")) p = p.substring("file:".length());
        else if (!p.startsWith("/")) return location;
        return p.startsWith("/") ? java.nio.file.Path.of(p).normalize().toString() : location;
    }
}
