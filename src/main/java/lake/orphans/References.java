package lake.orphans;

import lake.iceberg.files.TableFiles;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;

import java.util.HashSet;
import java.util.Set;

/**
 * Every file an Iceberg table's current metadata reaches, each in {@linkplain TableFiles#spelling one
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
        TableFiles.reached(current, io, f -> add(out, f));
        return out;
    }

    private static void add(Set<String> out, String location) {
        if (location != null) out.add(TableFiles.spelling(location));
    }
}
