package lake.iceberg;

import lake.catalog.model.Registration;
import lake.catalog.model.Table;
import lake.iceberg.files.TableFiles;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.PropertyUtil;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which live tables use files under a location, so that neither a purge nor an orphan sweep
 * deletes them. A live table uses its location and its current metadata file ({@code register}
 * can point a table at another's files), and an Iceberg table whose metadata disables garbage
 * collection ({@code gc.enabled=false}: Iceberg's mark of a table whose metadata reaches files it
 * does not own, as after Spark's {@code snapshot} or {@code add_files}) also uses every file its
 * metadata reaches outside its own location. A table that references another's files without that
 * mark is not found (as with Iceberg's own {@code dropTableData}: the mark is the contract).
 *
 * <p>What a metadata file reaches never changes once it is written, so it is read once per
 * metadata file (kept for the {@value #KEPT} most recent); a table that commits is read again.
 * Blocking (it reads metadata files and, for marked tables, their manifests): a worker's work. A
 * metadata file that cannot be read fails the index: what it names cannot be proved elsewhere.
 */
public final class Sharers {
    /** Tables a refusal names at most. */
    public static final int NAMED = 10;
    static final int KEPT = 100_000;

    private final FileIO io;
    /** Per metadata file: the files outside its table's location it uses (none unless garbage collection is off). */
    private final Map<String, List<String>> foreign = Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<String>> eldest) {
            return size() > KEPT;
        }
    });

    public Sharers(FileIO io) {
        this.io = io;
    }

    /** Whether Iceberg may delete the files {@code metadata} reaches: {@code gc.enabled}, true unless set otherwise. */
    public static boolean gcEnabled(TableMetadata metadata) {
        return PropertyUtil.propertyAsBoolean(metadata.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT);
    }

    /** A new, empty index of what live tables use; {@link Index#add} its pages, then ask it. */
    public Index index() {
        return new Index();
    }

    /** What the live tables added to it use, in one spelling ({@link TableFiles#spelling}), asked by location. Not thread-safe. */
    public final class Index {
        /** A use of {@code path} by the live table {@code name} of namespace {@code ns}. */
        private record Use(String path, String ns, String name) {}

        private final List<Use> uses = new ArrayList<>();
        private boolean sorted = true;

        private Index() {}

        /** Adds {@code page}'s tables (blocking: reads the current metadata of each Iceberg table not read before). */
        public Index add(List<Table> page) {
            for (Table t : page) {
                Registration r = t.registration();
                uses.add(new Use(directory(r.location()), t.namespace(), t.name()));
                r.metadataLocation().ifPresent(m -> uses.add(new Use(TableFiles.spelling(m), t.namespace(), t.name())));
                if (IcebergCatalog.TABLE_ENGINE.equals(r.engine()) && r.metadataLocation().isPresent()) {
                    for (String f : foreign.computeIfAbsent(r.metadataLocation().get(), Sharers.this::outside)) {
                        uses.add(new Use(f, t.namespace(), t.name()));
                    }
                }
            }
            sorted = false;
            return this;
        }

        /**
         * The live tables, as {@code ns.name}, other than table {@code selfName} of namespace
         * {@code selfNs} (both {@code null}: none), using a file under {@code location}: at most
         * {@value #NAMED}, sorted. Self is told by namespace and name apart: namespace {@code a.b}'s
         * table {@code c} is not namespace {@code a}'s table {@code b.c}.
         */
        public List<String> under(String location, String selfNs, String selfName) {
            if (!sorted) {
                uses.sort(Comparator.comparing(Use::path));
                sorted = true;
            }
            String prefix = directory(location);
            int i = Collections.binarySearch(uses, new Use(prefix, "", ""), Comparator.comparing(Use::path));
            TreeSet<String> found = new TreeSet<>();
            for (int at = i >= 0 ? i : -i - 1; at < uses.size() && uses.get(at).path().startsWith(prefix); at++) {
                Use use = uses.get(at);
                if (!(use.ns().equals(selfNs) && use.name().equals(selfName))) found.add(use.ns() + "." + use.name());
            }
            return found.stream().limit(NAMED).toList();
        }
    }

    /** {@code location} as a directory prefix: one spelling, one trailing slash. */
    private static String directory(String location) {
        String l = TableFiles.spelling(location);
        while (l.endsWith("/")) l = l.substring(0, l.length() - 1);
        return l + "/";
    }

    /** The files outside its own location the table of {@code metadataLocation} uses: none unless its garbage collection is off. */
    private List<String> outside(String metadataLocation) {
        TableMetadata m = TableMetadataParser.read(io, metadataLocation);
        if (gcEnabled(m)) return List.of();
        String own = directory(m.location());
        java.util.Set<String> out = new java.util.HashSet<>();
        TableFiles.reached(m, io, f -> {
            String s = f == null ? null : TableFiles.spelling(f);
            if (s != null && !s.startsWith(own)) out.add(s);
        });
        return List.copyOf(out);
    }
}
