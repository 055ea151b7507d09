package lake.cli;

import lake.client.MetasrvClient;
import lake.client.model.Json;
import lake.client.model.NodeHealth;
import lake.wire.ClusterInfo;
import lake.wire.LeaderInfo;
import lake.wire.Resigned;
import picocli.CommandLine.Command;

import java.time.Instant;
import java.util.List;

/** The service commands: leader, cluster, resign, health. */
final class ServiceCommands {
    private ServiceCommands() {}

    @Command(name = "leader", mixinStandardHelpOptions = true, description = "Show the lease: who leads, its epoch and expiry.")
    static final class Leader extends Base {
        @Override
        int run(MetasrvClient client) {
            LeaderInfo l = await(client.leader());
            if (root().json()) {
                println(Json.write(l.toMap()));
                return ExitCodes.OK;
            }
            new Columns("LEADER", "EPOCH", "EXPIRES", "ANSWERED BY")
                    .row(l.leader() == null ? "(none)" : l.leader(), l.epoch() == null ? null : Long.toUnsignedString(l.epoch()),
                            l.expiresAtMs() == null ? null : Instant.ofEpochMilli(l.expiresAtMs()).toString(),
                            l.nodeId() + " (" + l.role() + ")")
                    .print(root().out);
            return ExitCodes.OK;
        }
    }

    @Command(name = "cluster", mixinStandardHelpOptions = true, description = "List the cluster's members and their roles.")
    static final class Cluster extends Base {
        @Override
        int run(MetasrvClient client) {
            ClusterInfo c = await(client.cluster());
            if (root().json()) {
                println(Json.write(c.toMap()));
                return ExitCodes.OK;
            }
            Columns t = new Columns("NODE", "ROLE", "EPOCH", "HTTP PORT");
            for (ClusterInfo.Member m : c.members()) {
                t.row(m.nodeId() + (m.nodeId().equals(c.nodeId()) ? " *" : ""), m.role(),
                        m.epoch() == null ? null : Long.toUnsignedString(m.epoch()), m.httpPort());
            }
            t.print(root().out);
            return ExitCodes.OK;
        }
    }

    @Command(name = "resign", mixinStandardHelpOptions = true,
            description = "Ask the answering node to hand its lease to a standby now (exit 1 if it was not leading).")
    static final class Resign extends Base {
        @Override
        int run(MetasrvClient client) {
            boolean resigned = await(client.resign());
            if (root().json()) println(Json.write(new Resigned(resigned).toMap()));
            else if (resigned) println("resigned");
            if (resigned) return ExitCodes.OK;
            fail("not applied: the answering node was not leading");
            return ExitCodes.NOT_APPLIED;
        }
    }

    @Command(name = "health", mixinStandardHelpOptions = true,
            description = "Check every endpoint: up, node id, ready to take writes (exit 3 if any is down).")
    static final class Health extends Base {
        /** Each endpoint's check has its own bound (the client's), not the call deadline. */
        @Override
        boolean takes(String option) {
            return !option.equals("--timeout") && super.takes(option);
        }

        @Override
        int run(MetasrvClient client) {
            List<NodeHealth> all = await(client.health());
            if (root().json()) {
                all.forEach(h -> println(Json.write(h.toMap())));
            } else {
                Columns t = new Columns("ENDPOINT", "STATUS", "NODE", "READY");
                for (NodeHealth h : all) t.row(h.endpoint(), h.up() ? "up" : "down", h.nodeId(), h.up() ? (h.ready() ? "yes" : "no") : null);
                t.print(root().out);
            }
            List<NodeHealth> down = all.stream().filter(h -> !h.up()).toList();
            if (down.isEmpty()) return ExitCodes.OK;
            List<String> why = down.stream().map(h -> h.endpoint() + ": " + ExitCodes.oneLine(h.error())).toList();
            fail("unreachable: " + String.join("; ", why));
            return ExitCodes.UNAVAILABLE;
        }
    }
}
