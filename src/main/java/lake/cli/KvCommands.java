package lake.cli;

import lake.client.MetasrvClient;
import lake.client.Pages;
import lake.client.model.Json;
import lake.client.model.MetasrvException;
import lake.client.model.Txn;
import lake.wire.Entry;
import lake.wire.EntryPage;
import lake.wire.WriteResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The key-value commands: get, put, create, cas, del, ls, txn. */
final class KvCommands {
    private KvCommands() {}

    /** Prints a write's result; 0 if applied, 1 (and one line on stderr) if its condition did not hold. */
    static int written(Base cmd, WriteResult r, String what) {
        if (cmd.root().json()) cmd.println(Json.write(r.toMap()));
        else if (r.applied()) {
            cmd.println("applied (epoch " + Long.toUnsignedString(r.epoch())
                    + (r.revision() == 0 ? "" : ", revision " + Long.toUnsignedString(r.revision())) + ")");
        }
        if (r.applied()) return ExitCodes.OK;
        cmd.fail("not applied: " + what + (r.failed().isEmpty() ? "" : "; failed operations " + r.failed()));
        return ExitCodes.NOT_APPLIED;
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Print the value of KEY (exit 1 if absent).")
    static final class Get extends Base {
        @Parameters(paramLabel = "KEY", description = "The key (UTF-8 text, up to 1,024 bytes).") String key;
        @Mixin Values values;

        @Override
        int run(MetasrvClient client) {
            Optional<Entry> e = await(client.get(key));
            if (e.isEmpty()) {
                fail("not_found: key '" + key + "' not found");
                return ExitCodes.NOT_APPLIED;
            }
            if (root().json()) println(Json.write(e.get().toMap()));
            else values.print(e.get().value(), root().out);
            return ExitCodes.OK;
        }
    }

    /** A command that writes VALUE (or --file) to KEY: put and create differ only in the call. */
    abstract static class ValueWrite extends Base implements Base.Writes {
        @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8 text, up to 1,024 bytes).") String key;
        @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE",
                description = "The value as text (base64 with --base64); leave it out to give --file instead.") String value;
        @Mixin Values values;

        abstract io.vertx.core.Future<WriteResult> write(MetasrvClient client, byte[] v);

        abstract String refusal();

        @Override
        int run(MetasrvClient client) {
            return written(this, await(write(client, values.value(value, root().in))), refusal());
        }
    }

    @Command(name = "put", mixinStandardHelpOptions = true,
            description = "Set KEY to VALUE whatever it holds (a one-operation transaction).")
    static final class Put extends ValueWrite {
        @Override io.vertx.core.Future<WriteResult> write(MetasrvClient client, byte[] v) { return client.put(key, v); }
        @Override String refusal() { return "put of '" + key + "'"; }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Set KEY to VALUE only if KEY is absent (exit 1 if it exists).")
    static final class Create extends ValueWrite {
        @Override io.vertx.core.Future<WriteResult> write(MetasrvClient client, byte[] v) { return client.create(key, v); }
        @Override String refusal() { return "key '" + key + "' exists"; }
    }

    @Command(name = "cas", mixinStandardHelpOptions = true,
            description = "Set KEY to VALUE only if it holds exactly EXPECTED (exit 1 if not).")
    static final class Cas extends Base implements Base.Writes {
        @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8 text, up to 1,024 bytes).") String key;
        @Parameters(index = "1", paramLabel = "EXPECTED", description = "The exact value KEY must hold now (base64 with --base64).")
        String expected;
        @Parameters(index = "2", arity = "0..1", paramLabel = "VALUE",
                description = "The new value as text (base64 with --base64); leave it out to give --file instead.") String value;
        @Mixin Values values;

        @Override
        int run(MetasrvClient client) {
            byte[] e = values.arg(expected, "EXPECTED");
            byte[] v = values.value(value, root().in);
            return written(this, await(client.cas(key, e, v)), "key '" + key + "' does not hold the expected value");
        }
    }

    @Command(name = "del", mixinStandardHelpOptions = true,
            description = "Delete KEY; with --expected only if it holds exactly that value (exit 1 if not).")
    static final class Del extends Base implements Base.Writes {
        @Parameters(paramLabel = "KEY", description = "The key to delete.") String key;
        @Option(names = "--expected", paramLabel = "V", description = "Delete only if KEY holds exactly V.") String expected;
        @Option(names = "--base64", description = "--expected is base64.") boolean base64;

        @Override
        int run(MetasrvClient client) {
            if (expected == null) return written(this, await(client.txn(Txn.builder().delete(key).build())), "delete of '" + key + "'");
            Values v = new Values();
            v.base64 = base64;
            return written(this, await(client.delete(key, v.arg(expected, "--expected"))),
                    "key '" + key + "' is absent or does not hold the expected value");
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = {"List the keys under PREFIX (all pages) with their values.",
            "Metasrv's own keys (the catalog's tbl/, drop/, __lake_internal/ and the lease key) are left out unless",
            "--all is given or PREFIX lies under one of them."})
    static final class Ls extends Base {
        /** Text rows held for alignment before a block is printed. */
        static final int ROWS_HELD = 10_000;

        @Parameters(arity = "0..1", paramLabel = "PREFIX", defaultValue = "",
                description = "List the keys that start with PREFIX (default: every key).") String prefix;
        @Option(names = "--keys-only", description = "Print keys only.") boolean keysOnly;
        @Option(names = "--page-size", paramLabel = "N", defaultValue = "1000", description = "Entries per request, 1-1000 (default 1000).")
        int pageSize;
        @Option(names = "--base64", description = "Show values as base64.") boolean base64;
        @Option(names = {"-a", "--all"}, description = "Include Metasrv's own keys (the catalog's and the lease).") boolean all;

        @Override
        int run(MetasrvClient client) {
            if (pageSize < 1 || pageSize > 1000) throw new MetasrvException.InvalidArgument("--page-size must be 1 to 1000, got " + pageSize);
            Values v = new Values();
            v.base64 = base64;
            // Memory holds at most ROWS_HELD entries however many keys there are: text rows are held
            // until then so ordinary listings align exactly; a longer one prints in blocks whose
            // columns never get narrower than the blocks before.
            // Hidden keys are left out by the server, which knows the lease key; a page may come back
            // short or empty, and the walk follows continuations to the end whatever a page holds.
            Pages<EntryPage> pages = client.scanPages(prefix, pageSize, !all);
            boolean first = true;
            int[] widths = new int[0];
            Columns held = new Columns("KEY", "VALUE");
            int heldRows = 0;
            if (root().json()) root().out.print("{\"entries\":[");
            while (pages.hasNext()) {
                for (Entry e : await(pages.next()).entries()) {
                    if (root().json()) {
                        root().out.print((first ? "" : ",") + Json.write(e.toMap()));
                        first = false;
                    } else if (keysOnly) {
                        println(e.key());
                    } else {
                        held.row(e.key(), v.display(e.value()));
                        if (++heldRows == ROWS_HELD) {
                            widths = held.print(root().out, first, widths);
                            first = false;
                            held = new Columns("KEY", "VALUE");
                            heldRows = 0;
                        }
                    }
                }
            }
            if (heldRows > 0) held.print(root().out, first, widths);
            if (root().json()) println("],\"continuation\":null}");
            return ExitCodes.OK;
        }
    }

    @Command(name = "txn", mixinStandardHelpOptions = true,
            description = {"Apply a transaction: FILE (or - for stdin) holds the JSON of POST /v1/txn,",
                    "{\"ops\":[{\"key\",\"expected\"?|\"exists\"?,\"value\"?|\"delete\"?}]}, values base64.",
                    "Exit 1 if a condition did not hold (nothing was written)."})
    static final class TxnCommand extends Base implements Base.Writes {
        @Parameters(paramLabel = "FILE|-", description = "The file holding the transaction's JSON; - reads it from stdin.") String file;

        @Override
        int run(MetasrvClient client) throws IOException {
            String text = file.equals("-") ? new String(root().in.readAllBytes(), StandardCharsets.UTF_8)
                    : readFile(file);
            Txn t = Txn.fromJson(text);
            List<String> keys = new ArrayList<>();
            for (Txn.Op op : t.ops()) keys.add(op.key());
            return written(this, await(client.txn(t)), "a condition did not hold (keys " + keys + ")");
        }

        private static String readFile(String f) {
            try {
                return Files.readString(Path.of(f), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new MetasrvException.InvalidArgument("FILE: " + ExitCodes.fileProblem(Path.of(f), e));
            }
        }
    }
}
