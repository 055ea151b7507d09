package lake.cli;

import lake.client.MetasrvClient;
import lake.client.model.Json;
import lake.wire.grants.Grant;
import lake.wire.grants.GrantChange;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Grants as data: list, add and revoke privileges on catalog objects at runtime (docs/operations.md, "Grants at runtime"). */
final class GrantCommands {
    private GrantCommands() {}

    @Command(name = "grant", mixinStandardHelpOptions = true,
            description = "Privileges on catalog objects, stored at runtime: list, add, revoke (admins, or holders of manage-grants).",
            subcommands = {GrantLs.class, GrantAdd.class, GrantRevoke.class})
    static final class GrantCommand {}

    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = "List the stored grants: every principal's (admin), one principal's (its own needs no admin), or those within a namespace.")
    static final class GrantLs extends Base {
        @Option(names = "--principal", paramLabel = "NAME", description = "Only this principal's grants.") String principal;
        @Option(names = "--namespace", paramLabel = "NS",
                description = "Only grants on this namespace and beneath it (a holder of manage-grants there may list them).") String namespace;

        @Override int run(MetasrvClient client) {
            List<Grant> grants = await(client.grants(principal, namespace));
            if (root().json()) {
                println(Json.write(Grant.listToMap(grants)));
                return ExitCodes.OK;
            }
            Columns t = new Columns("PRINCIPAL", "NAMESPACE", "NAME", "PRIVILEGES", "BY", "AT");
            for (Grant g : grants) {
                t.row(g.principal(), g.namespace(), g.name() == null ? "*" : g.name(), String.join(",", g.privileges()), g.by(),
                        Instant.ofEpochMilli(g.atMs()).toString());
            }
            t.print(root().out);
            return ExitCodes.OK;
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Grant PRIVILEGE... (read, write, create, drop, manage-grants) on NAMESPACE (and everything beneath it), "
                    + "or with --name on one table or view, to PRINCIPAL.")
    static final class GrantAdd extends Base implements Base.Writes {
        @Mixin Target target;
        @Parameters(index = "2..*", arity = "1..*", paramLabel = "PRIVILEGE", description = "read, write, create, drop or manage-grants.")
        List<String> privileges = new ArrayList<>();

        @Override int run(MetasrvClient client) {
            print(this, await(client.grant(target.principal, target.namespace, target.name, privileges)));
            return ExitCodes.OK;
        }
    }

    /** The object a grant or revoke names, and whose. */
    static final class Target {
        @Parameters(index = "0", paramLabel = "PRINCIPAL", description = "The principal's name.") String principal;
        @Parameters(index = "1", paramLabel = "NAMESPACE", description = "The catalog namespace (Iceberg's [a, b] is a.b).") String namespace;
        @Option(names = "--name", paramLabel = "TABLE", description = "A table or view of the namespace, instead of the whole namespace.") String name;
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
            description = "Revoke PRIVILEGE... (every one when none is given) on NAMESPACE, or with --name on one table or view, from PRINCIPAL.")
    static final class GrantRevoke extends Base implements Base.Writes {
        @Mixin Target target;
        @Parameters(index = "2..*", arity = "0..*", paramLabel = "PRIVILEGE", description = "The privileges to revoke (default: all).")
        List<String> privileges = new ArrayList<>();

        @Override int run(MetasrvClient client) {
            print(this, await(client.revoke(target.principal, target.namespace, target.name, privileges.isEmpty() ? null : privileges)));
            return ExitCodes.OK;
        }
    }

    static void print(Base cmd, GrantChange c) {
        if (cmd.root().json()) {
            cmd.println(Json.write(c.toMap()));
            return;
        }
        String object = c.name() == null ? "namespace " + c.namespace() : c.namespace() + "." + c.name();
        cmd.println(c.principal() + " on " + object + ": " + (c.privileges().isEmpty() ? "(nothing)" : String.join(",", c.privileges()))
                + (c.changed() ? " (revision " + Long.toUnsignedString(c.revision()) + ")" : " (unchanged)"));
    }
}
