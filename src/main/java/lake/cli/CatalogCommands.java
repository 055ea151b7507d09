package lake.cli;

import lake.client.MetasrvClient;
import lake.client.model.IcebergTable;
import lake.client.model.Json;
import lake.client.model.MetasrvException;
import lake.wire.catalog.CatalogSnapshot;
import lake.wire.catalog.NamePage;
import lake.wire.catalog.Namespace;
import lake.wire.catalog.Purge;
import lake.wire.catalog.Registration;
import lake.wire.catalog.Table;
import lake.wire.catalog.Tombstone;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The catalog commands: ns, table, catalog. */
final class CatalogCommands {
    private CatalogCommands() {}

    static void printTable(Base cmd, Table t) {
        if (cmd.root().json()) {
            cmd.println(Json.write(t.toMap()));
            return;
        }
        Registration r = t.registration();
        new Columns("FIELD", "VALUE").row("table", t.namespace() + "/" + t.name()).row("version", Long.toUnsignedString(r.currentVersion()))
                .row("location", r.location()).row("engine", r.engine()).row("incarnation", r.incarnationId())
                .row("columns", r.columns().stream().map(Registration.Column::toString).collect(Collectors.joining(", ")))
                .print(cmd.root().out);
    }

    static void printNamespace(Base cmd, Namespace n) {
        if (cmd.root().json()) {
            cmd.println(Json.write(n.toMap()));
            return;
        }
        cmd.println(n.name() + (n.dropping() ? " (dropping)" : ""));
        if (!n.properties().isEmpty()) {
            Columns c = new Columns("PROPERTY", "VALUE");
            new java.util.TreeMap<>(n.properties()).forEach(c::row);
            c.print(cmd.root().out);
        }
    }

    static void printNames(Base cmd, List<String> names, NamePage.Listing listing) {
        if (cmd.root().json()) cmd.println(Json.write(new NamePage(listing, names, null).toMap()));
        else names.forEach(cmd::println);
    }

    @Command(name = "ns", mixinStandardHelpOptions = true, description = "Namespaces of the table catalog.",
            subcommands = {NsCreate.class, NsLs.class, NsGet.class, NsDrop.class})
    static final class Ns {}

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create namespace NAME (exit 1 if it exists).")
    static final class NsCreate extends Base implements Base.Writes {
        @Parameters(paramLabel = "NAME", description = "The namespace's name (1-255 bytes of UTF-8, no '/').") String name;
        @Option(names = {"-p", "--property"}, paramLabel = "KEY=VALUE", description = "A property; repeat for more.")
        Map<String, String> properties = new LinkedHashMap<>();

        @Override int run(MetasrvClient client) {
            printNamespace(this, await(client.createNamespace(name, properties)));
            return ExitCodes.OK;
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "List every namespace.")
    static final class NsLs extends Base {
        @Override int run(MetasrvClient client) {
            printNames(this, await(client.namespacePages(1000).collect(NamePage::names)), NamePage.Listing.NAMESPACES);
            return ExitCodes.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Show namespace NAME and its properties (exit 1 if absent).")
    static final class NsGet extends Base {
        @Parameters(paramLabel = "NAME", description = "The namespace's name.") String name;

        @Override int run(MetasrvClient client) {
            printNamespace(this, await(client.getNamespace(name)));
            return ExitCodes.OK;
        }
    }

    @Command(name = "drop", mixinStandardHelpOptions = true, description = "Drop namespace NAME; it must hold no tables (exit 1 if it does).")
    static final class NsDrop extends Base implements Base.Writes {
        @Parameters(paramLabel = "NAME", description = "The namespace's name.") String name;

        @Override int run(MetasrvClient client) {
            Namespace n = await(client.dropNamespace(name));
            if (root().json()) println(Json.write(n.toMap()));
            else println("dropped namespace " + n.name());
            return ExitCodes.OK;
        }
    }

    @Command(name = "table", mixinStandardHelpOptions = true, description = "Tables of the catalog.",
            subcommands = {TableCreate.class, TableLs.class, TableGet.class, TableCommit.class, TableDrop.class, TableDropped.class, TableUndrop.class,
                    TablePurge.class, TablePurges.class})
    static final class TableCommand {}

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create table NAME in namespace NS (the server picks its location).")
    static final class TableCreate extends Base implements Base.Writes {
        @Parameters(index = "0", paramLabel = "NS", description = "The table's namespace.") String ns;
        @Parameters(index = "1", paramLabel = "NAME", description = "The table's name within NS.") String name;
        @Option(names = {"-c", "--column"}, paramLabel = "NAME:TYPE", required = true,
                description = "A column, e.g. id:i64 (types i64, f64, utf8, bool, file); repeat for more.")
        List<String> columns;
        @Option(names = "--engine", paramLabel = "ENGINE", description = "The table's engine (default lance).") String engine;

        @Override int run(MetasrvClient client) {
            printTable(this, await(client.createTable(ns, name, columns, engine)));
            return ExitCodes.OK;
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "List the tables of namespace NS.")
    static final class TableLs extends Base {
        @Parameters(paramLabel = "NS", description = "The namespace whose tables to list.") String ns;

        @Override int run(MetasrvClient client) {
            printNames(this, await(client.tablePages(ns, 256).collect(NamePage::names)), NamePage.Listing.TABLES);
            return ExitCodes.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = {"Show table NS NAME: version, location, columns (exit 1 if absent).",
            "An Iceberg table also shows its metadata file, format version, current snapshot and schema,",
            "as the node's Iceberg REST catalog loads them."})
    static final class TableGet extends Base {
        @Parameters(index = "0", paramLabel = "NS", description = "The table's namespace.") String ns;
        @Parameters(index = "1", paramLabel = "NAME", description = "The table's name within NS.") String name;

        @Override int run(MetasrvClient client) {
            Table t = await(client.getTable(ns, name));
            if (!ICEBERG.equals(t.registration().engine())) {
                printTable(this, t);
                return ExitCodes.OK;
            }
            IcebergTable ice = await(client.icebergTable(ns, name));
            if (root().json()) {
                Map<String, Object> o = new LinkedHashMap<>(t.toMap());
                o.put("iceberg", ice.toMap());
                println(Json.write(o));
                return ExitCodes.OK;
            }
            Registration r = t.registration();
            new Columns("FIELD", "VALUE").row("table", t.namespace() + "/" + t.name()).row("version", Long.toUnsignedString(r.currentVersion()))
                    .row("location", r.location()).row("engine", r.engine()).row("incarnation", r.incarnationId())
                    .row("metadata location", ice.metadataLocation()).row("format version", ice.formatVersion())
                    .row("current snapshot", ice.currentSnapshotId() == null ? "(none)" : Long.toString(ice.currentSnapshotId()))
                    .row("schema id", ice.currentSchemaId())
                    .print(root().out);
            println("");
            Columns schema = new Columns("ID", "COLUMN", "TYPE", "REQUIRED");
            for (IcebergTable.Column c : ice.columns()) schema.row(c.id(), c.name(), c.type(), c.required() ? "yes" : "no");
            schema.print(root().out);
            return ExitCodes.OK;
        }
    }

    /** The engine of an Iceberg table's registration, and of an Iceberg view's (docs/iceberg.md). */
    static final String ICEBERG = "iceberg", VIEW = "iceberg-view";

    @Command(name = "commit", mixinStandardHelpOptions = true,
            description = "Move table NS NAME from --expected-version to --new-version (exit 1 if it is at another version).")
    static final class TableCommit extends Base implements Base.Writes {
        @Parameters(index = "0", paramLabel = "NS", description = "The table's namespace.") String ns;
        @Parameters(index = "1", paramLabel = "NAME", description = "The table's name within NS.") String name;
        @Option(names = "--expected-version", required = true, paramLabel = "N", description = "The version the table must be at now.")
        String expected;
        @Option(names = "--new-version", required = true, paramLabel = "M", description = "The version to move it to (greater than N).")
        String version;
        @Option(names = "--incarnation", paramLabel = "ID", description = "Refuse if the table was re-created since (its incarnation id).")
        String incarnation;

        @Override int run(MetasrvClient client) {
            printTable(this, await(client.commitVersion(ns, name, u64(expected, "--expected-version"), u64(version, "--new-version"), incarnation)));
            return ExitCodes.OK;
        }

        private static long u64(String v, String name) {
            try {
                return Long.parseUnsignedLong(v);
            } catch (NumberFormatException e) {
                throw new MetasrvException.InvalidArgument(name + ": '" + v + "' is not an unsigned 64-bit integer");
            }
        }
    }

    @Command(name = "drop", mixinStandardHelpOptions = true, description = "Drop table NS NAME (a tombstone keeps its last registration until its"
            + " retention ends; lakectl table undrop restores it). With --purge, its files are queued for purge in the same write.")
    static final class TableDrop extends Base implements Base.Writes {
        @Parameters(index = "0", paramLabel = "NS", description = "The table's namespace.") String ns;
        @Parameters(index = "1", paramLabel = "NAME", description = "The table's name within NS.") String name;
        @Option(names = "--purge", description = "Also queue its files for the leader's purge worker now, not when its retention ends"
                + " (an undrop still cancels it until the first batch).")
        boolean purge;

        @Override int run(MetasrvClient client) {
            Tombstone t = await(client.dropTable(ns, name, purge));
            Map<String, Object> json = new LinkedHashMap<>(t.toMap());
            if (purge) json.put("purge", "queued");
            println(root().json() ? Json.write(json) : "dropped table " + t.namespace() + "/" + t.name() + " (incarnation "
                    + t.incarnationId() + ")" + (purge ? "; purge queued" : ""));
            return ExitCodes.OK;
        }
    }

    /** A time of the API (unix ms) for people, ISO-8601 UTC; {@code null} (printed {@code -}) when there is none. */
    static java.time.Instant instant(Long ms) { return ms == null ? null : java.time.Instant.ofEpochMilli(ms); }

    @Command(name = "dropped", mixinStandardHelpOptions = true, description = {"List dropped tables (tombstones): namespace, name, engine (iceberg-view",
            "for an Iceberg view), incarnation, when dropped and when its retention ends and it is queued for purge (admins)."})
    static final class TableDropped extends Base {
        @Override int run(MetasrvClient client) {
            Columns c = new Columns("NAMESPACE", "TABLE", "ENGINE", "INCARNATION", "DROPPED", "EXPIRES");
            for (Tombstone t : await(client.tombstonePages(1_000).collect(lake.wire.catalog.TombstonePage::tombstones))) {
                if (root().json()) println(Json.write(t.toMap()));
                else c.row(t.namespace(), t.name(), t.registration().engine(), String.valueOf(t.incarnationId()), instant(t.droppedMs()), instant(t.expiresMs()));
            }
            if (!root().json()) c.print(root().out);
            return ExitCodes.OK;
        }
    }

    @Command(name = "undrop", mixinStandardHelpOptions = true, description = {
            "Restore dropped table (or Iceberg view) NS NAME: the same incarnation, location and metadata, as one fenced write",
            "(exit 1 if the name is taken: give --to-name; exit 2 if NAME was dropped more than once: give --incarnation)."})
    static final class TableUndrop extends Base implements Base.Writes {
        @Parameters(index = "0", paramLabel = "NS", description = "The dropped table's namespace.") String ns;
        @Parameters(index = "1", paramLabel = "NAME", description = "The dropped table's name.") String name;
        @Option(names = "--incarnation", paramLabel = "ID", description = "Which dropped incarnation (lakectl table dropped lists them); default: the name's only one.")
        String incarnation;
        @Option(names = "--to-ns", paramLabel = "NS", description = "The namespace it goes back to (default: NS).") String toNs;
        @Option(names = "--to-name", paramLabel = "NAME", description = "The name it goes back to (default: NAME).") String toName;

        @Override int run(MetasrvClient client) {
            Table t = await(client.undropTable(ns, name, incarnation, toNs, toName));
            if (root().json()) println(Json.write(t.toMap()));
            else println("undropped " + (VIEW.equals(t.registration().engine()) ? "view " : "table ") + t.namespace() + "/" + t.name()
                    + " (incarnation " + t.registration().incarnationId() + ")");
            return ExitCodes.OK;
        }
    }

    @Command(name = "purge", mixinStandardHelpOptions = true, description = {"Queue the purge of dropped table NS NAME, incarnation INCARNATION_ID,",
            "now, its retention notwithstanding (admins): the leader's purge worker deletes its files in fenced batches, then its tombstone.",
            "Prints the job (exit 1 if no such dropped table; exit 5 if not an admin)."})
    static final class TablePurge extends Base implements Base.Writes {
        @Parameters(index = "0", paramLabel = "NS", description = "The dropped table's namespace.") String ns;
        @Parameters(index = "1", paramLabel = "NAME", description = "The dropped table's name.") String name;
        @Parameters(index = "2", paramLabel = "INCARNATION_ID", description = "Which dropped incarnation (lakectl table dropped lists them).")
        String incarnation;

        @Override int run(MetasrvClient client) {
            Purge p = await(client.purgeTable(ns, name, incarnation));
            println(root().json() ? Json.write(p.toMap()) : "purge of " + p.namespace() + "/" + p.name() + " (incarnation " + p.incarnationId() + ") " + p.state());
            return ExitCodes.OK;
        }
    }

    @Command(name = "purges", mixinStandardHelpOptions = true, description = {"List the purge queue: namespace, name, incarnation, state",
            "(queued, purging, refused), phase while purging (data, manifests, manifest_lists, metadata, listing), reason (requested, retention), files deleted so far and why a purge was refused. -o json prints one job a line."})
    static final class TablePurges extends Base {
        @Override int run(MetasrvClient client) {
            Columns c = new Columns("NAMESPACE", "TABLE", "INCARNATION", "STATE", "PHASE", "REASON", "DELETED", "MESSAGE");
            for (Purge p : await(client.purgePages(1_000).collect(Purge.Page::purges))) {
                if (root().json()) println(Json.write(p.toMap()));
                else c.row(p.namespace(), p.name(), p.incarnationId(), p.state(), p.phase(), p.reason(), p.deleted(),
                        p.message() == null ? null : ExitCodes.oneLine(p.message()));
            }
            if (!root().json()) c.print(root().out);
            return ExitCodes.OK;
        }
    }

    @Command(name = "catalog", mixinStandardHelpOptions = true,
            description = {"Print a consistent snapshot of every table; with --watch, print each new generation as it happens",
                    "(a long poll; runs until interrupted). -o json prints one JSON snapshot a line."},
            subcommands = {CatalogEventsCommand.class})
    static final class CatalogCommand extends Base {
        @Option(names = "--watch", description = "Keep printing each new generation.") boolean watch;
        @Option(names = "--wait", paramLabel = "MS", defaultValue = "30000", description = "Long-poll wait per request, ms (1-60000, default 30000).")
        long waitMs;

        @Override int run(MetasrvClient client) {
            if (waitMs < 1 || waitMs > 60_000) throw new MetasrvException.InvalidArgument("--wait must be 1 to 60000 ms, got " + waitMs);
            CatalogSnapshot s = await(client.snapshot());
            print(s);
            while (watch) {
                CatalogSnapshot next = await(client.awaitSnapshot(s.generation(), waitMs));
                if (next.modified()) {
                    s = next;
                    print(s);
                }
            }
            return ExitCodes.OK;
        }

        private void print(CatalogSnapshot s) {
            if (root().json()) {
                println(Json.write(s.toMap()));
            } else {
                println("generation " + s.generation() + ": " + s.tables().size() + " table" + (s.tables().size() == 1 ? "" : "s"));
                if (!s.tables().isEmpty()) {
                    Columns c = new Columns("NAMESPACE", "TABLE", "VERSION", "LOCATION");
                    for (Table t : s.tables()) c.row(t.namespace(), t.name(), Long.toUnsignedString(t.registration().currentVersion()), t.registration().location());
                    c.print(root().out);
                }
            }
            root().out.flush();
        }
    }
}
