package lake.orphans;

import lake.iceberg.files.TableFiles;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;

import java.util.HashSet;
import java.util.Set;

/**
 * Every file an Iceberg table's current metadata reaches, each in {@linkplain #spelling one
 * spelling}: the current metadata file and every one in its log, every snapshot's manifest list,
 * manifests, data and delete files ({@link TableFiles}, the walk the purge names them by), and
 * the statistics and partition-statistics files. Blocking (it reads every manifest once): a
 * worker thread's work. A manifest or manifest list that cannot
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
        for (Snapshot snapshot : current.snapshots()) add(out, snapshot.manifestListLocation());
        for (ManifestFile m : TableFiles.manifests(current, io)) {
            add(out, m.path());
            TableFiles.contents(m, io, current.specsById(), p -> add(out, p));
        }
        return out;
    }

    private static void add(Set<String> out, String location) {
        if (location != null) out.add(spelling(location));
    }

    /**
     * A location in one spelling, so a reference and a listed file compare equal: the local file
     * system's {@code file:/a}, {@code file:///a} and {@code /a} are all {@code /a} (normalized);
     * {@code s3a://} and {@code s3n://} are {@code s3://}; other object-store locations as they are.
     */
    static String spelling(String location) {
        // Hadoop's s3a: and s3n: name the same objects as s3: (Iceberg's DeleteOrphanFiles equates them too).
        if (location.startsWith("s3a://") || location.startsWith("s3n://")) return "s3://" + location.substring("s3a://".length());
        String p = location;
        if (p.startsWith("file://")) p = p.substring("file://".length());
        else if (p.startsWith("file:")) p = p.substring("file:".length());
        else if (!p.startsWith("/")) return location;
        return p.startsWith("/") ? java.nio.file.Path.of(p).normalize().toString() : location;
    }
}
