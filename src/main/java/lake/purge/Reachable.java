package lake.purge;

import lake.catalog.model.PurgeJob.Phase;
import lake.iceberg.files.TableFiles;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The files of one {@linkplain Phase purge phase} of a dropped Iceberg table, named by its last
 * metadata file, sorted (the job's resume point is the last file of the phase's batches done).
 * A phase is named only by files later phases delete, so a next leader resuming a phase can
 * always name it again: data and delete files by the manifests, manifests by the manifest lists,
 * manifest lists, statistics and earlier metadata files by the metadata file, which the listing
 * phase deletes. It saves listing the location file by file (an object store lists a thousand
 * keys a request, slowly; S3 deletes a thousand a request). Blocking: a worker thread's work.
 */
final class Reachable {
    private Reachable() {}

    /** The files of {@code phase} (not a {@linkplain Phase#lists listing}), read from {@code metadataLocation}; failing when a file naming them cannot be read. */
    static List<String> files(FileIO io, String metadataLocation, Phase phase) {
        TableMetadata metadata = TableMetadataParser.read(io, metadataLocation);
        // A list sorted once, duplicates dropped after: a large table's every path is held once, not as tree nodes too.
        List<String> out = new ArrayList<>();
        switch (phase) {
            case DATA -> {
                // A table that disables garbage collection keeps its data and delete files (Iceberg's dropTableData does too).
                if (!lake.iceberg.Sharers.gcEnabled(metadata)) return out;
                Map<Integer, org.apache.iceberg.PartitionSpec> specs = metadata.specsById();
                for (ManifestFile m : TableFiles.manifests(metadata, io)) TableFiles.contents(m, io, specs, out::add);
            }
            case MANIFESTS -> TableFiles.manifests(metadata, io).forEach(m -> out.add(m.path()));
            case MANIFEST_LISTS -> {
                for (Snapshot s : metadata.snapshots()) {
                    if (s.manifestListLocation() != null) out.add(s.manifestListLocation());
                }
            }
            case METADATA -> {
                for (StatisticsFile s : metadata.statisticsFiles()) out.add(s.path());
                for (PartitionStatisticsFile s : metadata.partitionStatisticsFiles()) out.add(s.path());
                for (TableMetadata.MetadataLogEntry e : metadata.previousFiles()) out.add(e.file());
                out.removeIf(metadataLocation::equals);
            }
            case LISTING, METADATA_LISTING -> throw new IllegalArgumentException("the listing phases list the location");
        }
        out.sort(null);
        int kept = 0;
        for (String f : out) {
            if (kept == 0 || !f.equals(out.get(kept - 1))) out.set(kept++, f);
        }
        out.subList(kept, out.size()).clear();
        return out;
    }
}
