package lake.cli;

import lake.client.MetasrvClient;
import lake.client.model.ClientOptions;
import lake.client.model.MetasrvException;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * {@code lakectl}: Metasrv from the shell (docs/cli.md). Every command is one or a few
 * {@link MetasrvClient} calls over the blocking HTTP transport (no event loop to start), and ends
 * with an exit code from {@link ExitCodes}; an error is one line on stderr.
 *
 * <p>Invariant: the token is read from {@code --token-file} or {@code LAKECTL_TOKEN} (a plain
 * {@code --token} works but warns: every local user can read process arguments) and is never
 * printed — not in output, errors or help.
 */
@Command(name = "lakectl", mixinStandardHelpOptions = true, versionProvider = Lakectl.Version.class,
        description = "Metasrv from the command line: keys and values, transactions, the lease, the cluster and the table catalog.",
        subcommands = {KvCommands.Get.class, KvCommands.Put.class, KvCommands.Create.class, KvCommands.Cas.class,
                KvCommands.Del.class, KvCommands.Ls.class, KvCommands.TxnCommand.class, WatchCommand.class,
                ServiceCommands.Leader.class, ServiceCommands.Cluster.class, ServiceCommands.Resign.class,
                ServiceCommands.Health.class, CatalogCommands.Ns.class, CatalogCommands.TableCommand.class,
                CatalogCommands.CatalogCommand.class, GrantCommands.GrantCommand.class, AutoComplete.GenerateCompletion.class, ManPage.Man.class},
        footer = {"", "Exit codes: 0 done; 1 condition did not hold or not found; 2 usage or invalid argument;",
                "3 unavailable after retries; 4 outcome unknown; 5 unauthorized or forbidden; 6 fenced or epoch mismatch."})
public final class Lakectl {
    static final String DEFAULT_ENDPOINT = "http://127.0.0.1:8080";

    @Option(names = "--endpoints", scope = ScopeType.INHERIT, paramLabel = "URLS",
            description = "Comma-separated Metasrv HTTP endpoints, tried in turn (env LAKECTL_ENDPOINTS; default " + DEFAULT_ENDPOINT + ").")
    String endpoints;

    @Option(names = "--token-file", scope = ScopeType.INHERIT, paramLabel = "PATH",
            description = "File holding the API token (env LAKECTL_TOKEN holds the token itself).")
    Path tokenFile;

    @Option(names = "--token", scope = ScopeType.INHERIT, paramLabel = "TOKEN", hidden = true,
            description = "The token as an argument: visible to every local user; prefer --token-file.")
    String plainToken;

    @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, paramLabel = "FORMAT", defaultValue = "text",
            description = "text (for people, the default) or json (the API's JSON reply, for scripts).")
    Format output;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.class,
            description = "Deadline of each call, retries included, e.g. 500ms, 10s, 1m (default 10s).")
    Duration timeout;

    @Option(names = "--epoch", scope = ScopeType.INHERIT, paramLabel = "N",
            description = "Writes must be decided under this fencing epoch, else they fail (exit 6) and write nothing.")
    String epoch;

    /** Output formats. */
    enum Format { text, json }

    final PrintStream out;
    final PrintStream err;
    final InputStream in;
    final Map<String, String> env;

    Lakectl(InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        this.in = in;
        this.out = out;
        this.err = err;
        this.env = env;
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true, StandardCharsets.UTF_8);
        int code = run(args, System.in, out, err, System.getenv());
        out.flush();
        System.exit(code);
    }

    /** Runs one command line; returns its exit code. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        Lakectl root = new Lakectl(in, out, err, env);
        CommandLine cmd = commandLine(root);
        cmd.setOut(new java.io.PrintWriter(out, true));
        cmd.setErr(new java.io.PrintWriter(err, true));
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        cmd.setParameterExceptionHandler((ex, a) -> {
            err.println("lakectl: " + ex.getMessage() + " (see '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help')");
            return ExitCodes.USAGE;
        });
        cmd.setExecutionExceptionHandler((ex, c, parsed) -> {
            err.println("lakectl: " + ExitCodes.describe(ex));
            return ExitCodes.of(ex);
        });
        return cmd.execute(args);
    }

    /**
     * lakectl's command tree. The root's options (connection, output, deadline, epoch) may be
     * given before or after the command; each command then keeps only those that apply to it
     * ({@link Base#takes}), and {@code --version} stays the root's, so a command's help and the
     * man page list exactly what it uses.
     */
    static CommandLine commandLine(Lakectl root) {
        CommandLine cmd = new CommandLine(root);
        // A bad number says what it must be, as the server's settings do ("must be an int, got 'ten'").
        cmd.registerConverter(Integer.class, v -> number(v, "an int", Integer::valueOf));
        cmd.registerConverter(Integer.TYPE, v -> number(v, "an int", Integer::valueOf));
        cmd.registerConverter(Long.class, v -> number(v, "an integer", Long::valueOf));
        cmd.registerConverter(Long.TYPE, v -> number(v, "an integer", Long::valueOf));
        prune(cmd);
        return cmd;
    }

    private static <T> T number(String v, String what, java.util.function.Function<String, T> parse) {
        try {
            return parse.apply(v);
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("must be " + what + ", got '" + v + "'");
        }
    }

    private static void prune(CommandLine parent) {
        for (CommandLine sub : parent.getSubcommands().values()) {
            CommandSpec spec = sub.getCommandSpec();
            for (OptionSpec o : new java.util.ArrayList<>(spec.options())) {
                boolean applies = o.inherited() ? spec.userObject() instanceof Base b && b.takes(o.longestName())
                        : !o.versionHelp();
                if (!applies) spec.remove(o);
            }
            prune(sub);
        }
    }

    /** A client for this invocation's endpoints, token and deadline; the caller closes it. */
    MetasrvClient client() {
        String list = endpoints != null ? endpoints : env.getOrDefault("LAKECTL_ENDPOINTS", DEFAULT_ENDPOINT);
        ClientOptions options = ClientOptions.defaults().withEndpoints(list).withCallTimeout(timeout).withToken(token());
        MetasrvClient c = MetasrvClient.httpBlocking(options);
        if (epoch == null) return c;
        try {
            return c.withEpoch(Long.parseUnsignedLong(epoch));
        } catch (NumberFormatException e) {
            throw new MetasrvException.InvalidArgument("--epoch: '" + epoch + "' is not an unsigned 64-bit integer");
        }
    }

    private String token() {
        if (plainToken != null) {
            err.println("lakectl: warning: --token puts the token in the process list for every local user; use --token-file or LAKECTL_TOKEN");
            return plainToken;
        }
        if (tokenFile != null) {
            try {
                String t = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
                if (t.isEmpty()) throw new MetasrvException.InvalidArgument("--token-file: the file is empty: " + tokenFile);
                return t;
            } catch (IOException e) {
                throw new MetasrvException.InvalidArgument("--token-file: " + ExitCodes.fileProblem(tokenFile, e));
            }
        }
        String t = env.get("LAKECTL_TOKEN");
        return t == null || t.isBlank() ? null : t.strip();
    }

    boolean json() { return output == Format.json; }

    /** Reads "500ms", "10s", "2m" or a plain number of seconds. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String v) {
            try {
                Duration d;
                if (v.endsWith("ms")) d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                else if (v.endsWith("s")) d = Duration.ofMillis((long) (Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
                else if (v.endsWith("m")) d = Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)) * 60);
                else d = Duration.ofMillis((long) (Double.parseDouble(v) * 1000));
                if (d.isNegative() || d.isZero()) throw new CommandLine.TypeConversionException("'" + v + "' is not a positive duration");
                return d;
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException("'" + v + "' is not a duration like 500ms, 10s or 1m");
            }
        }
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Lakectl.class.getPackage().getImplementationVersion();
            return new String[] {"lakectl " + (v == null ? "(development build)" : v)};
        }
    }
}
