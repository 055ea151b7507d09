package lake.chaos;

import lake.chaos.HistoryChecks.Violation;
import lake.chaos.LinearizabilityChecker.KeyResult;
import lake.chaos.LinearizabilityChecker.Verdict;
import lake.it.ClusterHarness;
import lake.it.ClusterHarness.Node;
import lake.it.TcpProxy;
import lake.meta.dynamo.MotoServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static lake.it.ClusterHarness.RENEW_MS;
import static lake.it.ClusterHarness.STORE_TIMEOUT_MS;
import static lake.it.ClusterHarness.TTL_MS;
import static org.awaitility.Awaitility.await;

/**
 * The fault campaign (issue 15): three real fat-jar processes per topology, a recorded workload
 * through every node, one seeded fault per round, and every check over the whole history. The
 * fault schedule is drawn from the seed alone, so a run is reproduced by its seed (timings, and
 * therefore the exact operations, are the machine's).
 *
 * <p>Run by {@code scripts/chaos} ({@link #main}) and by {@code ChaosCampaignIT}.
 */
public final class ChaosCampaign {
    public enum Topology { DYNAMO, ROCKS }

    public enum Fault { PAUSE_LEADER, KILL_LEADER, KILL_FOLLOWER, TERM_LEADER, STORE_OUTAGE, STORE_LATENCY, CLOCK_SKEW }

    /**
     * The faults drawn from, the same on both topologies: every fault, since the RocksDB remotes
     * reach the store host's bus through the proxy too ({@code --cluster-bus-public-port}).
     */
    static List<Fault> faults() {
        return List.of(Fault.values());
    }

    /**
     * How long a leader stays SIGSTOPped: long enough that a standby takes over during the pause
     * whenever the product works. The paused leader's lease expires at most one TTL after the
     * pause began (it may have renewed just before); a standby's round starts within one renewal
     * of that, or one more when a round in flight at expiry still saw the lease valid; that round
     * is a read and a CAS, each bounded by the store timeout. So a pause without a takeover is an
     * availability violation, not bad luck (1.5 x TTL was not enough under load: issue 15's long run).
     */
    static final long PAUSE_MS = TTL_MS + 2 * RENEW_MS + 2 * STORE_TIMEOUT_MS;

    /**
     * How long a write queued on the paused leader waits for its answer: the whole pause, then the
     * node's own request timeout, and a margin for a loaded machine. A shorter wait gives up before
     * SIGCONT, records UNKNOWN and makes the paused-leader checks vacuous.
     */
    static final Duration QUEUED_WRITE_TIMEOUT = Duration.ofMillis(PAUSE_MS).plus(Workload.NODE_REQUEST_TIMEOUT).plusSeconds(10);

    /** {@code only}: restricts the faults drawn (empty: every fault the topology can suffer). */
    public record Settings(long seed, int rounds, long loadSeconds, List<Topology> topologies, int clients, List<Fault> only) {
        String commandLine() {
            return "--seed " + seed + " --rounds " + rounds + " --seconds " + loadSeconds + " --clients " + clients + " --topology "
                    + String.join(",", topologies.stream().map(t -> t.name().toLowerCase()).toList())
                    + (only.isEmpty() ? "" : " --faults " + String.join(",", only.stream().map(Enum::name).toList()));
        }
    }

    /** What one round did and how long writes were unavailable. */
    public record FaultRecord(Topology topology, int round, Fault fault, String node, long injectedMs, long healedMs,
                              Long gapMs, Long boundMs, String note) {
        boolean withinBound() {
            return boundMs == null || (gapMs != null && gapMs <= boundMs);
        }
    }

    /** The whole run: what the report prints. */
    public static final class Report {
        public final long seed;
        public final Settings settings;
        public final List<FaultRecord> faults = new ArrayList<>();
        public final Map<Topology, Map<Op.Outcome, Integer>> counts = new EnumMap<>(Topology.class);
        public final Map<Topology, Map<Op.Kind, Integer>> kinds = new EnumMap<>(Topology.class);
        public final List<String> violations = new ArrayList<>();
        public final List<String> inconclusive = new ArrayList<>();
        /** Availability bounds exceeded (kept apart from safety: on an overloaded machine they measure the machine too). */
        public final List<String> availability = new ArrayList<>();
        /** Restarts that had to be tried again (the node exited at start, e.g. its first store call timed out). */
        public final List<String> restartRetries = new ArrayList<>();
        public int keysChecked;
        /** Changes the rounds' watchers were shown, all checked against the writes (issue 36). */
        public long watchedChanges;
        public long maxSteps;
        /** Why the campaign stopped before its end (an exception), or null: the report is then partial. */
        public String aborted;
        final long base;

        Report(Settings settings, long base) {
            this.seed = settings.seed();
            this.settings = settings;
            this.base = base;
        }

        public boolean ok() {
            return aborted == null && safe() && availability.isEmpty();
        }

        /** No linearizability, fencing or durability violation, and no inconclusive check. */
        public boolean safe() {
            return violations.isEmpty() && inconclusive.isEmpty();
        }

        String ms(long nanos) {
            return nanos == Op.NEVER ? "inf" : String.format("%.1f", (nanos - base) / 1e6);
        }

        String op(Op o) {
            String what = switch (o.kind()) {
                case GET -> "get -> " + (o.outcome() == Op.Outcome.OK ? String.valueOf(o.read()) : o.outcome() + " " + o.detail());
                case CAS -> "cas " + o.expected() + " => " + o.value() + " -> " + o.outcome();
                case DELETE -> "delete " + o.expected() + " -> " + o.outcome();
                case TXN -> "txn " + o.txn() + " -> " + o.outcome() + (o.failed() == null || o.failed().isEmpty() ? "" : " failed " + o.failed());
            };
            return String.format("#%d client %d via %s [%s ms, %s ms] %s %s%s", o.id(), o.client(), o.node(), ms(o.call()), ms(o.ret()),
                    o.key(), what, o.epoch() == null ? "" : " (epoch " + o.epoch() + ")");
        }

        public String text() {
            StringBuilder b = new StringBuilder();
            b.append(String.format("chaos campaign: seed %d, %d rounds per topology, %d s of load after each fault, %d clients, topologies %s%n",
                    seed, settings.rounds(), settings.loadSeconds(), settings.clients(), settings.topologies()));
            b.append("reproduce: scripts/chaos ").append(settings.commandLine()).append('\n');
            b.append(String.format("lease ttl %d ms, renewal every %d ms%n", TTL_MS, RENEW_MS));
            b.append("faults (times in ms since the campaign started; gap = injection, or healing for store faults, to the first answered write that proves writes are back):\n");
            for (FaultRecord f : faults) {
                b.append(String.format("  %-6s round %2d %-13s %-4s injected %9d healed %9d gap %6s bound %6s %s%s%n", f.topology(), f.round(),
                        f.fault(), f.node(), f.injectedMs(), f.healedMs(), f.gapMs() == null ? "none" : f.gapMs(),
                        f.boundMs() == null ? "-" : f.boundMs(), f.withinBound() ? "ok" : "EXCEEDED", f.note().isEmpty() ? "" : "  " + f.note()));
            }
            for (Map.Entry<Topology, Map<Op.Outcome, Integer>> c : counts.entrySet()) {
                b.append(String.format("operations %s: %s; by kind %s%n", c.getKey(), c.getValue(), kinds.get(c.getKey())));
            }
            b.append(String.format("linearizability: %d object histories (a key, or a pair joined by transactions) checked, largest search %d steps%n", keysChecked, maxSteps));
            b.append(String.format("change feed: %d changes watched, each checked against the writes that applied%n", watchedChanges));
            for (String r : restartRetries) b.append("restart retried: ").append(r).append('\n');
            b.append(String.format("violations: %d safety, %d availability; inconclusive: %d%n", violations.size(), availability.size(),
                    inconclusive.size()));
            for (String v : availability) b.append("VIOLATION availability ").append(v).append('\n');
            for (String v : violations) b.append("VIOLATION ").append(v).append('\n');
            for (String v : inconclusive) b.append("INCONCLUSIVE ").append(v).append('\n');
            if (aborted != null) b.append("ABORTED (the report above is partial): ").append(aborted).append('\n');
            b.append(ok() ? "RESULT: no violation\n" : "RESULT: FAILED\n");
            return b.toString();
        }
    }

    private final Settings settings;
    private final Report report;
    private final LinearizabilityChecker checker = new LinearizabilityChecker();

    private ChaosCampaign(Settings settings) {
        this.settings = settings;
        this.report = new Report(settings, System.nanoTime());
    }

    public static Report run(Settings settings) throws Exception {
        ChaosCampaign c = new ChaosCampaign(settings);
        c.runAll();
        return c.report;
    }

    private void runAll() throws Exception {
        System.out.printf("chaos campaign seed %d (reproduce: scripts/chaos %s)%n", settings.seed(), settings.commandLine());
        for (Topology t : settings.topologies()) runTopology(t);
    }

    // ---- one topology ----

    private String storeHost;
    /** Every node's path to the store: to moto (DynamoDB), or to the store host's event bus (RocksDB). */
    private TcpProxy proxy;
    /** Heals faults after their deliberate duration (a scheduled action, not a sleeping thread). */
    private final ScheduledExecutorService faultTimer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chaos-fault-timer");
        t.setDaemon(true);
        return t;
    });
    private ClusterHarness cluster;
    private LeaseMonitor monitor;
    /** Per round: the paused leader's epoch and when it resumed, when the round paused one. */
    private long pausedEpoch = -1;
    private long resumedAt;
    /** A write queued on a paused leader after a takeover, whose key the round's final read found absent. */
    private record PausedWrite(int round, Op queued) {}
    /** This topology's paused writes, re-read once every round is over. */
    private final List<PausedWrite> pausedKeys = new ArrayList<>();

    private void runTopology(Topology topology) throws Exception {
        Random schedule = new Random(settings.seed() * 1_000_003L + topology.ordinal());
        Path dir = Files.createTempDirectory("lake-chaos-" + topology.name().toLowerCase());
        List<List<String>> storeArgs = new ArrayList<>();
        Map<String, String> env = Map.of();
        storeHost = null;
        proxy = null;
        pausedKeys.clear();
        if (topology == Topology.DYNAMO) {
            // The first use starts moto; on a loaded machine its first table can take longer than
            // one API call's timeout, so creation is retried (bounded).
            String[] created = new String[1];
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
                    .until(() -> (created[0] = MotoServer.createFreshTable()) != null);
            String table = created[0];
            proxy = new TcpProxy(MotoServer.endpoint().getPort(), TcpProxy.Mode.FORWARD, 200);
            List<String> dynamo = List.of("--store", "dynamo", "--dynamo-endpoint", "http://127.0.0.1:" + proxy.port(),
                    "--dynamo-region", MotoServer.REGION, "--dynamo-table", table);
            for (int i = 0; i < 3; i++) storeArgs.add(dynamo);
            env = Map.of("AWS_ACCESS_KEY_ID", MotoServer.CREDENTIALS.accessKeyId(),
                    "AWS_SECRET_ACCESS_KEY", MotoServer.CREDENTIALS.secretAccessKey());
        } else {
            storeHost = "n1";
            // The store host's event bus listens on busPort and advertises the proxy's port, so
            // the remotes reach its store (and everything else on its bus) only through the proxy.
            int busPort = ClusterHarness.freePort();
            proxy = new TcpProxy(busPort, TcpProxy.Mode.FORWARD, 200);
            storeArgs.add(List.of("--store", "rocks", "--store-role", "host", "--cluster-bus-port", String.valueOf(busPort),
                    "--cluster-bus-public-port", String.valueOf(proxy.port())));
            storeArgs.add(List.of("--store", "rocks", "--store-role", "remote"));
            storeArgs.add(List.of("--store", "rocks", "--store-role", "remote"));
        }
        List<List<String>> args = new ArrayList<>();
        for (List<String> a : storeArgs) {
            List<String> with = new ArrayList<>(a);
            with.addAll(ClusterHarness.FAULT_TIMEOUTS);
            args.add(with);
        }
        Map<Op.Outcome, Integer> counts = report.counts.computeIfAbsent(topology, k -> new EnumMap<>(Op.Outcome.class));
        cluster = ClusterHarness.start(dir, args, env);
        try (LeaseMonitor monitor = new LeaseMonitor(cluster, "election/leader")) {
            this.monitor = monitor;
            List<Fault> possible = faults().stream().filter(f -> settings.only().isEmpty() || settings.only().contains(f)).toList();
            if (possible.isEmpty()) throw new IllegalArgumentException("no fault of " + settings.only() + " applies to " + topology);
            for (int round = 0; round < settings.rounds(); round++) {
                Fault fault = possible.get(schedule.nextInt(possible.size()));
                long roundSeed = schedule.nextLong();
                boolean positiveSkew = schedule.nextBoolean();
                System.out.printf("[%s] %s round %d: %s%n", report.ms(System.nanoTime()), topology, round, fault);
                runRound(topology, round, fault, roundSeed, positiveSkew, counts);
            }
            // The paused leaders' writes, read again after every later round: still absent. A pause in
            // the last round was read a moment after its answers, and a store call still in flight
            // lands within a store timeout: so every such key must read absent throughout a window
            // longer than that, not in one read (a key that turns up ends the wait; the reads below report it).
            if (!pausedKeys.isEmpty()) {
                System.out.printf("[%s] %s: %d keys of paused leaders' queued writes must read absent for %d ms%n",
                        report.ms(System.nanoTime()), topology, pausedKeys.size(), STORE_TIMEOUT_MS + 1_000);
                try {
                    // Every poll reads the keys (the fail-fast check); the wait itself only holds the window open.
                    await().pollInterval(Duration.ofMillis(250)).during(Duration.ofMillis(STORE_TIMEOUT_MS + 1_000))
                            .atMost(Duration.ofMillis(STORE_TIMEOUT_MS + 1_000 + 30_000))
                            .failFast("a paused leader's queued write turned up", () -> !pausedWritesSeen().isEmpty())
                            .until(() -> true);
                } catch (org.awaitility.core.ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
                    // Reported, with the evidence, just below.
                }
            }
            for (PausedWrite p : pausedKeys) {
                for (Violation v : seenAtTheEnd(p)) {
                    record(topology, p.round(), new Violation(v.kind(), v.what() + " (seen at the end of the topology)", v.evidence()));
                }
            }
            monitor.close();
            // With no samples the epoch checks pass vacuously: that is not a pass.
            if (monitor.leases.isEmpty() || monitor.roles.isEmpty()) {
                report.inconclusive.add(String.format("%s: the lease monitor collected %d lease and %d role samples, so the lease "
                        + "epoch checks had nothing to check", topology, monitor.leases.size(), monitor.roles.size()));
            }
            for (Violation v : HistoryChecks.leaseEpochs(monitor.leases, monitor.roles)) record(topology, -1, v);
        } finally {
            cluster.close();
            if (proxy != null) proxy.close();
            deleteTree(dir);
        }
    }

    // ---- one round ----

    private void runRound(Topology topology, int round, Fault fault, long roundSeed, boolean positiveSkew,
                          Map<Op.Outcome, Integer> counts) throws Exception {
        cluster.awaitThreeMembers(Duration.ofSeconds(90));
        cluster.awaitLeader(Duration.ofSeconds(60), cluster.nodes, 1);
        String base = "chaos/" + topology.name().toLowerCase() + "/" + round + "/";
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < 6; k++) keys.add(base + "k" + k);
        List<Workload.Target> targets = cluster.nodes.stream().map(n -> new Workload.Target(n.id(), n.httpPort())).toList();
        // The round's watcher starts at the feed's current revision, before any of the round's writes,
        // and stops with the round, however it ends.
        try (FeedWatcher watcher = new FeedWatcher(base, currentRevision(), targets)) {
            runRound(topology, round, fault, roundSeed, positiveSkew, counts, base, keys, targets, watcher);
        }
    }

    private void runRound(Topology topology, int round, Fault fault, long roundSeed, boolean positiveSkew, Map<Op.Outcome, Integer> counts,
                          String base, List<String> keys, List<Workload.Target> targets, FeedWatcher watcher) throws Exception {
        Workload load = Workload.start(topology.name().charAt(0) + "r" + round, keys, targets, settings.clients(), 100_000, roundSeed);
        load.startProbes(topology.name().charAt(0) + "r" + round, base + "probe/", targets, 100);
        List<Op> extra = new ArrayList<>();
        FaultRecord rec;
        try {
            // A steady state first: writes are being answered.
            await().atMost(Duration.ofSeconds(60)).until(() -> count(load.history, Op::answeredWrite) >= 10);
            rec = inject(topology, round, fault, positiveSkew, load, extra, base);
            // Load after healing, so recovery is exercised and "writes resume" is observed.
            long healedAt = report.base + rec.healedMs() * 1_000_000L;
            await().atMost(Duration.ofSeconds(90)).until(() ->
                    count(load.history, o -> o.answeredWrite() && o.ret() > healedAt) >= 10
                            && System.nanoTime() - healedAt > settings.loadSeconds() * 1_000_000_000L);
        } finally {
            load.close();
        }
        report.faults.add(rec);
        if (!rec.withinBound()) {
            report.availability.add(String.format("%s round %d %s: gap %s ms over the bound %d ms", topology, round, fault,
                    rec.gapMs() == null ? "(no write at all)" : rec.gapMs(), rec.boundMs()));
        }

        // The final state of every key, read after every client stopped: part of the history.
        List<Op> history = new ArrayList<>(load.history);
        history.addAll(extra);
        Map<String, Op> finals = new LinkedHashMap<>();
        List<String> finalKeys = new ArrayList<>(keys);
        for (Workload.Target t : targets) finalKeys.add(base + "probe/" + t.node());
        extra.stream().map(Op::key).distinct().forEach(finalKeys::add);
        for (String key : finalKeys) {
            Op last = finalRead(key);
            finals.put(key, last);
            history.add(last);
        }
        for (Op o : history) {
            counts.merge(o.outcome(), 1, Integer::sum);
            report.kinds.computeIfAbsent(topology, k -> new EnumMap<>(Op.Kind.class)).merge(o.kind(), 1, Integer::sum);
        }

        for (KeyResult r : checker.check(history)) {
            report.keysChecked++;
            report.maxSteps = Math.max(report.maxSteps, r.steps());
            if (r.verdict() == Verdict.VIOLATION) {
                StringBuilder b = new StringBuilder(String.format("linearizability %s round %d (%s) key %s: %d operations not linearizable; "
                        + "minimal sub-history, from state %s after %d earlier operations:", topology, round, fault, r.key(), r.ops(),
                        r.witnessStart(), r.witnessSkipped()));
                for (Op o : r.witness()) b.append("\n    ").append(report.op(o));
                report.violations.add(b.toString());
            } else if (r.verdict() == Verdict.INCONCLUSIVE) {
                report.inconclusive.add(String.format("%s round %d key %s: %d operations, search stopped after %d steps",
                        topology, round, r.key(), r.ops(), r.steps()));
            }
        }
        for (Violation v : HistoryChecks.replyEpochsNeverGoBack(history)) record(topology, round, v);
        for (Violation v : HistoryChecks.nothingLost(history, finals)) record(topology, round, v);
        // The watcher has caught up when it shows every key's final value; then what it saw is checked whole.
        try {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> watcher.gone() != null
                    || finals.entrySet().stream().allMatch(f -> {
                        String lastSeen = null;
                        for (FeedWatcher.Change c : watcher.changes) if (c.key().equals(f.getKey())) lastSeen = c.value();
                        return java.util.Objects.equals(lastSeen, f.getValue().read());
                    }));
        } catch (org.awaitility.core.ConditionTimeoutException behind) {
            // Reported below (what it lacks), with its last failures.
            report.inconclusive.add(String.format("%s round %d: the watcher did not catch up within 60 s; its last failures: %s",
                    topology, round, watcher.lastFailures()));
        }
        watcher.close();
        report.watchedChanges += watcher.changes.size();
        if (watcher.gone() != null) {
            record(topology, round, new Violation("feed", "the watcher's position was compacted during the round", List.of(watcher.gone())));
        } else {
            for (Violation v : HistoryChecks.watchedFeed(history, watcher.changes, finals)) record(topology, round, v);
        }
        // A resumed paused leader gets zero writes applied once another node took over: none
        // acknowledged, none in the store. If the store shows no later epoch before it resumed,
        // nobody took over, the lease (same holder, same epoch) was still its own to renew, and
        // its writes are legitimate; the round reports that instead.
        // Evidence of a takeover before the resume: a lease sample with a later epoch, or a write
        // applied under a later epoch through another node (only a leader of that epoch applies).
        long paused = pausedEpoch;
        String pausedNode = rec.node();
        boolean takenOver = paused < 0 || monitor.leases.stream().anyMatch(l -> l.epoch() > paused && l.ret() < resumedAt)
                || history.stream().anyMatch(o -> o.outcome() == Op.Outcome.APPLIED && o.epoch() != null && o.epoch() > paused
                        && o.ret() < resumedAt && !o.node().equals(pausedNode));
        if (!extra.isEmpty() && !takenOver) {
            // PAUSE_MS leaves time for a takeover whenever the product works: this is a violation.
            rec = new FaultRecord(rec.topology(), rec.round(), rec.fault(), rec.node(), rec.injectedMs(), rec.healedMs(), rec.gapMs(),
                    rec.boundMs(), rec.note() + "; NO takeover while paused (no lease sample and no applied write showed an epoch after " + pausedEpoch + ")");
            report.faults.set(report.faults.size() - 1, rec);
            report.availability.add(String.format("%s round %d %s: no standby took over during a %d ms pause of %s (epoch %d); %s",
                    topology, round, fault, PAUSE_MS, rec.node(), pausedEpoch, rec.note()));
        }
        pausedEpoch = -1;
        // A queued write with no answer at all (the client's timeout, a broken connection) shows
        // nothing of what the resumed leader did with it, and any status but 504 outcome_unknown is
        // unexpected. One answered 504 with the error code outcome_unknown (e.g. the node did not
        // decide it within its request timeout after resuming) was answered, not acknowledged;
        // whether it applied is what the final-state checks decide (the round's, and the re-read at
        // the end of the topology).
        List<Op> unanswered = extra.stream().filter(q -> q.outcome() == Op.Outcome.UNKNOWN && !HistoryChecks.answeredOutcomeUnknown(q))
                .toList();
        if (!unanswered.isEmpty()) {
            report.inconclusive.add(String.format("%s round %d %s: %d of %d writes queued on the paused leader got no answer "
                    + "(or not a 504 outcome_unknown) within %d ms, "
                    + "so the resumed leader's refusal was not observed: %s", topology, round, fault, unanswered.size(), extra.size(),
                    QUEUED_WRITE_TIMEOUT.toMillis(), unanswered.stream().map(q -> report.op(q) + " (" + q.detail() + ")").toList()));
        }
        if (takenOver) {
            for (Violation v : HistoryChecks.pausedLeaderWrites(extra, finals)) record(topology, round, v);
            // Read again at the end of the topology: a 504'd queued write's store call still in
            // flight (or queued at moto) could land after the read above.
            for (Op q : extra) {
                Op read = finals.get(q.key());
                if (q.outcome() != Op.Outcome.APPLIED && read != null && read.read() == null) pausedKeys.add(new PausedWrite(round, q));
            }
        }
        System.out.printf("[%s] %s round %d done: %s, %d operations%n", report.ms(System.nanoTime()), topology, round,
                rec.gapMs() == null ? "no gap measured" : "gap " + rec.gapMs() + " ms", history.size());
    }

    /** The paused leaders' queued writes whose key now shows them: each a fencing violation. */
    private List<Violation> pausedWritesSeen() {
        List<Violation> seen = new ArrayList<>();
        for (PausedWrite p : pausedKeys) seen.addAll(seenAtTheEnd(p));
        return seen;
    }

    /** {@code p}'s key read again: a violation if it shows the paused leader's write. */
    private List<Violation> seenAtTheEnd(PausedWrite p) {
        return HistoryChecks.pausedLeaderWrites(List.of(p.queued()), Map.of(p.queued().key(), finalRead(p.queued().key())));
    }

    private static final java.net.http.HttpClient REVISION_CLIENT = java.net.http.HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2)).build();

    /** The feed's current revision, read through any node (bounded retries while none answers). */
    private long currentRevision() {
        long[] revision = new long[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            Node via = cluster.nodes.get(Math.floorMod(System.nanoTime(), cluster.nodes.size()));
            try {
                java.net.http.HttpResponse<String> r = REVISION_CLIENT.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + via.httpPort() + "/v1/revision")).timeout(Duration.ofSeconds(3)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) return false;
                revision[0] = new io.vertx.core.json.JsonObject(r.body()).getLong("revision");
                return true;
            } catch (Exception down) {
                return false;
            }
        });
        return revision[0];
    }

    /** The value at {@code key}, read through any node (bounded retries while none answers). */
    private Op finalRead(String key) {
        Op[] last = new Op[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            Node via = cluster.nodes.get((int) (System.nanoTime() % 3));
            last[0] = Workload.get(-1, new Workload.Target(via.id(), via.httpPort()), key);
            return last[0].outcome() == Op.Outcome.OK;
        });
        return last[0];
    }

    private void record(Topology t, int round, Violation v) {
        StringBuilder b = new StringBuilder(String.format("%s %s%s: %s", v.kind(), t, round < 0 ? "" : " round " + round, v.what()));
        for (String e : v.evidence()) b.append("\n    ").append(e);
        report.violations.add(b.toString());
    }

    private static long count(List<Op> history, Predicate<Op> p) {
        return history.stream().filter(p).count();
    }

    /** The first answered write after {@code from} (and, when given, under an epoch above {@code oldEpoch}), in ms after {@code from}. */
    private static Long gap(Workload load, long from, Long oldEpoch) {
        return gap(load, from, oldEpoch, null);
    }

    /** As {@link #gap(Workload, long, Long)}, counting only writes answered through nodes other than {@code notVia} (when given). */
    private static Long gap(Workload load, long from, Long oldEpoch, String notVia) {
        return load.history.stream()
                .filter(o -> o.answeredWrite() && o.ret() > from && (oldEpoch == null || (o.epoch() != null && o.epoch() > oldEpoch))
                        && (notVia == null || !notVia.equals(o.node())))
                .mapToLong(o -> (o.ret() - from) / 1_000_000).min().stream().boxed().findFirst().orElse(null);
    }

    /** Waits (bounded) for an answered write after {@code from}, so a gap can be measured. */
    private static void awaitWrite(Workload load, long from, Long oldEpoch) {
        awaitWrite(load, from, oldEpoch, null);
    }

    private static void awaitWrite(Workload load, long from, Long oldEpoch, String notVia) {
        try {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> gap(load, from, oldEpoch, notVia) != null);
        } catch (org.awaitility.core.ConditionTimeoutException none) {
            // Reported as a gap of "none" over its bound.
        }
    }

    /** An action that ends a fault. */
    private interface Heal {
        void run() throws Exception;
    }

    /**
     * Holds a fault for its deliberate duration: {@code heal} is scheduled {@code ms} from now on
     * the fault timer, and this waits (bounded) for it to have run, so the heal happens on time
     * whatever this thread does, and a failing heal fails the round.
     */
    private void hold(long ms, Heal heal) throws Exception {
        CompletableFuture<Void> healed = new CompletableFuture<>();
        faultTimer.schedule(() -> {
            try {
                heal.run();
                healed.complete(null);
            } catch (Throwable t) {
                healed.completeExceptionally(t);
            }
        }, ms, TimeUnit.MILLISECONDS);
        healed.get(ms + 60_000, TimeUnit.MILLISECONDS);
    }

    /**
     * The leader and the epoch it leads, read from one answer of that node: it believes it leads
     * and names itself as the lease's holder. (Reading the leader and then, separately, an epoch
     * can pair a leader that is just being replaced with its successor's epoch: then the "paused
     * leader" was not the holder of the epoch it was said to lead.)
     */
    private Node leaderWithEpoch(long[] epoch) {
        Node[] found = new Node[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            Node leader = cluster.faultableLeader(storeHost);
            io.vertx.core.json.JsonObject v = ClusterHarness.leaderView(leader);
            if (!"leader".equals(v.getString("role")) || !leader.id().equals(v.getString("leader")) || v.getLong("epoch") == null) return false;
            found[0] = leader;
            epoch[0] = v.getLong("epoch");
            return true;
        });
        return found[0];
    }

    private long msNow() {
        return (System.nanoTime() - report.base) / 1_000_000;
    }

    private FaultRecord inject(Topology topology, int round, Fault fault, boolean positiveSkew, Workload load, List<Op> extra,
                               String base) throws Exception {
        switch (fault) {
            case PAUSE_LEADER -> {
                long[] led = new long[1];
                Node leader = leaderWithEpoch(led);
                long epoch = led[0];
                leader.process().signal("STOP");
                long at = System.nanoTime();
                long injected = msNow();
                // Writes sent to the paused leader, pinned to the epoch it led: they reach it only
                // after it resumes, and none may be applied.
                List<CompletableFuture<Op>> queued = new ArrayList<>();
                Workload.Target paused = new Workload.Target(leader.id(), leader.httpPort());
                java.util.concurrent.ExecutorService senders = java.util.concurrent.Executors.newFixedThreadPool(3);
                long healed;
                try {
                    for (int i = 0; i < 3; i++) {
                        int client = 100 + i;
                        String key = base + "paused/" + i;
                        String value = topology.name().charAt(0) + "r" + round + "paused" + i;
                        queued.add(CompletableFuture.supplyAsync(
                                () -> Workload.cas(client, paused, key, null, value, epoch, QUEUED_WRITE_TIMEOUT), senders));
                    }
                    hold(PAUSE_MS, () -> {
                        leader.process().signal("CONT");
                        resumedAt = System.nanoTime();
                    });
                    pausedEpoch = epoch;
                    healed = (resumedAt - report.base) / 1_000_000;
                    for (CompletableFuture<Op> q : queued) extra.add(q.get(QUEUED_WRITE_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS));
                } finally {
                    senders.shutdownNow();
                }
                awaitWrite(load, at, epoch);
                // No bound: the issue bounds kills, graceful stops and store outages; a pause is
                // reported (its takeover has the kill's mechanics, so expect about TTL + renewal).
                return new FaultRecord(topology, round, fault, leader.id(), injected, healed, gap(load, at, epoch), null,
                        "stopped " + PAUSE_MS + " ms; queued writes: " + extra.stream().map(o -> o.outcome().toString()).toList());
            }
            case KILL_LEADER, TERM_LEADER -> {
                long[] led = new long[1];
                Node leader = leaderWithEpoch(led);
                long epoch = led[0];
                long at = System.nanoTime();
                long injected = msNow();
                if (fault == Fault.KILL_LEADER) leader.process().kill();
                else leader.process().signal("TERM");
                awaitWrite(load, at, epoch);
                Long gap = gap(load, at, epoch);
                String note = "";
                if (fault == Fault.TERM_LEADER) {
                    boolean exited = leader.process().process.waitFor(15, TimeUnit.SECONDS);
                    note = exited ? "exited " + leader.process().process.exitValue() : "did not exit within 15 s";
                    if (!exited) report.violations.add(topology + " round " + round + ": the leader did not exit within 15 s of SIGTERM");
                    // A graceful stop is a clean exit: a non-zero status means the shutdown failed.
                    else if (leader.process().process.exitValue() != 0) {
                        report.violations.add(topology + " round " + round + ": the leader exited " + leader.process().process.exitValue()
                                + " after SIGTERM (a graceful stop exits 0)");
                    }
                }
                restart(leader);
                return new FaultRecord(topology, round, fault, leader.id(), injected, msNow(), gap,
                        fault == Fault.KILL_LEADER ? TTL_MS + RENEW_MS : 1_000L, note);
            }
            case KILL_FOLLOWER -> {
                Node leader = cluster.awaitLeader(Duration.ofSeconds(30), cluster.nodes, 1);
                Node follower = cluster.others(leader).stream().filter(n -> !n.id().equals(storeHost)).findFirst().orElseThrow();
                long at = System.nanoTime();
                long injected = msNow();
                follower.process().kill();
                hold(TTL_MS, () -> { });
                awaitWrite(load, at, null);
                restart(follower);
                return new FaultRecord(topology, round, fault, follower.id(), injected, msNow(), gap(load, at, null), null, "");
            }
            case STORE_OUTAGE -> {
                // Every connection to the store (moto, or the store host's bus) is dropped for 2 x TTL.
                // On RocksDB the store host keeps its in-process store: only the remotes lose it.
                long injected = msNow();
                proxy.mode(TcpProxy.Mode.DROP);
                long[] at = new long[1];
                hold(2 * TTL_MS, () -> {
                    proxy.mode(TcpProxy.Mode.FORWARD);
                    at[0] = System.nanoTime();
                });
                long healed = (at[0] - report.base) / 1_000_000;
                // On RocksDB the store host's own store never went away: a write answered through
                // it proves nothing about recovery, so only writes through the remotes count.
                String notVia = topology == Topology.ROCKS ? storeHost : null;
                awaitWrite(load, at[0], null, notVia);
                return new FaultRecord(topology, round, fault, "proxy", injected, healed, gap(load, at[0], null, notVia), 2 * RENEW_MS,
                        "out for " + 2 * TTL_MS + " ms" + (topology == Topology.ROCKS
                                ? " (remotes cut from the store host's bus; gap through the remotes only)" : ""));
            }
            case STORE_LATENCY -> {
                long injected = msNow();
                long at = System.nanoTime();
                proxy.mode(TcpProxy.Mode.SLOW);
                hold(2 * TTL_MS, () -> proxy.mode(TcpProxy.Mode.FORWARD));
                long healed = msNow();
                long answered = count(load.history, o -> o.answeredWrite() && o.call() > at && o.ret() < report.base + healed * 1_000_000L);
                return new FaultRecord(topology, round, fault, "proxy", injected, healed, gap(load, at, null), null,
                        "+200 ms per chunk towards the store (per connection) for " + 2 * TTL_MS + " ms; " + answered + " writes answered meanwhile");
            }
            case CLOCK_SKEW -> {
                Node leader = cluster.awaitLeader(Duration.ofSeconds(30), cluster.nodes, 1);
                Node victim = cluster.others(leader).stream().filter(n -> !n.id().equals(storeHost)).findFirst().orElseThrow();
                String offset = (positiveSkew ? "+" : "-") + SKEW_MS / 1_000 + "s";
                long injected = msNow();
                long at = System.nanoTime();
                // libfaketime preloaded into the JVM itself (not the faketime wrapper, which forks:
                // killing the wrapper would leave the JVM running). Monotonic time stays real.
                Node skewed = cluster.restartNoWait(victim, List.of(), Map.of("LD_PRELOAD", libfaketime(), "FAKETIME", offset,
                        "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                        // libfaketime 0.9.10's "monotonic fix" rewrites the JVM's timed waits: a
                        // clustered node under it took 12-30 s to reach Hazelcast and never
                        // listened (7 of 7 skew rounds of the first long run). Without it the node
                        // starts in seconds, its wall clock still offset.
                        "FAKETIME_FORCE_MONOTONIC_FIX", "0"));
                String joined;
                boolean tookPart = false;
                try {
                    skewed.process().awaitListening(Duration.ofSeconds(30));
                    try {
                        cluster.awaitThreeMembers(Duration.ofSeconds(30));
                        joined = "rejoined the cluster";
                        tookPart = true;
                    } catch (org.awaitility.core.ConditionTimeoutException | AssertionError notJoined) {
                        joined = "started, but did NOT rejoin the cluster within 30 s";
                    }
                } catch (org.awaitility.core.ConditionTimeoutException | AssertionError notListening) {
                    // The skewed node never ran: this round tested the cluster without it, not a
                    // skewed member (docs/reliability.md: libfaketime's monotonic fix did this).
                    joined = "did NOT start (not listening within 30 s under libfaketime): no skewed member took part";
                }
                // Without a skewed member in the cluster the round tested nothing about skew: it
                // must not pass as if it had.
                if (!tookPart) {
                    report.inconclusive.add(String.format("%s round %d %s: %s %s, so no skewed member took part", topology, round,
                            fault, victim.id(), joined));
                }
                // Nor with a member whose clock is not in fact off (libfaketime silently not
                // applied): its own wall clock, as its /v1/meters answer's at_ms gives it, must be
                // off from real time by about the offset.
                String measured = "";
                if (tookPart) {
                    long expected = positiveSkew ? SKEW_MS : -SKEW_MS;
                    HistoryChecks.ClockReading[] last = new HistoryChecks.ClockReading[1];
                    try {
                        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() ->
                                HistoryChecks.skewNotShown(last[0] = wallClockOf(skewed), expected, SKEW_TOLERANCE_MS).isEmpty());
                        measured = "measured " + last[0].describe() + " (its /v1/meters at_ms); ";
                    } catch (org.awaitility.core.ConditionTimeoutException notShown) {
                        String seen = last[0] == null ? "its wall clock could not be read (/v1/meters) within 15 s"
                                : HistoryChecks.skewNotShown(last[0], expected, SKEW_TOLERANCE_MS).orElseThrow();
                        measured = "NOT confirmed: " + seen + "; ";
                        report.inconclusive.add(String.format("%s round %d %s: %s ran under libfaketime %s, but %s, so the skew is "
                                + "not shown to have been real", topology, round, fault, victim.id(), offset, seen));
                    }
                }
                hold(2 * TTL_MS, () -> { });
                awaitWrite(load, at, null);
                restart(skewed);
                return new FaultRecord(topology, round, fault, victim.id(), injected, msNow(), gap(load, at, null), null,
                        "wall clock " + offset + "; " + measured + joined);
            }
            default -> throw new IllegalStateException(fault.toString());
        }
    }

    /** The skew a CLOCK_SKEW round asks libfaketime for, either way, and how close the node's clock must be to it. */
    static final long SKEW_MS = 5_000;
    static final long SKEW_TOLERANCE_MS = 2_000;

    /**
     * One reading of {@code n}'s own wall clock: {@code at_ms} of its {@code /v1/meters} answer
     * (the node's wall clock as it answers; {@code seen_at_ms} in {@code /v1/cluster} is the same
     * clock but up to a second old), between this JVM's real wall clock before and after.
     */
    private static HistoryChecks.ClockReading wallClockOf(Node n) throws Exception {
        long sent = System.currentTimeMillis();
        java.net.http.HttpResponse<String> r = lake.it.MetasrvProcess.get(n.httpPort(), "/v1/meters");
        long received = System.currentTimeMillis();
        if (r.statusCode() != 200) throw new IllegalStateException("/v1/meters answered " + r.statusCode());
        return new HistoryChecks.ClockReading(sent, new io.vertx.core.json.JsonObject(r.body()).getLong("at_ms"), received);
    }

    /** Debian's libfaketime (package faketime, installed by scripts/chaos and scripts/test when missing). */
    static String libfaketime() throws IOException {
        for (String dir : List.of("/usr/lib/x86_64-linux-gnu/faketime", "/usr/lib/aarch64-linux-gnu/faketime", "/usr/lib/faketime")) {
            Path lib = Path.of(dir, "libfaketime.so.1");
            if (Files.isReadable(lib)) return lib.toString();
        }
        throw new IOException("libfaketime.so.1 not found: install Debian's faketime (apt-get install -y faketime)");
    }

    /**
     * Restarts {@code n} and waits for it to listen, trying again (at most three starts) when the
     * new process exits or does not listen in time: on a loaded machine a node's first store call
     * at start-up can time out, and the node then exits by design (it cannot serve without its
     * store). Every retry is in the report.
     */
    private Node restart(Node n, List<String> wrapper, Map<String, String> env) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Node again = cluster.restartNoWait(n, wrapper, env);
            try {
                again.process().awaitListening(Duration.ofSeconds(90));
                return again;
            } catch (AssertionError | org.awaitility.core.ConditionTimeoutException failed) {
                String why = String.valueOf(failed.getMessage());
                int cut = why.indexOf("lake-metasrv: ");
                report.restartRetries.add(n.id() + " start " + attempt + " failed: "
                        + (cut >= 0 ? why.substring(cut, Math.min(why.length(), cut + 200)) : why.substring(0, Math.min(why.length(), 200))));
                if (attempt >= 3) throw failed;
                n = again;
            }
        }
    }

    private Node restart(Node n) throws Exception {
        return restart(n, List.of(), Map.of());
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    // ---- command line ----

    private static void usage(String problem) {
        System.err.println("chaos: " + problem);
        System.err.println("usage: scripts/chaos [--seed N] [--rounds N] [--seconds S] [--clients N] [--topology dynamo,rocks] [--faults KILL_LEADER,...] [--report FILE]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        long seed = System.nanoTime() & 0xffff_ffffL;
        int rounds = 3;
        long loadSeconds = 3;
        int clients = 4;
        List<Topology> topologies = List.of(Topology.DYNAMO, Topology.ROCKS);
        Path reportFile = null;
        List<Fault> only = List.of();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                    case "--seconds" -> loadSeconds = Long.parseLong(args[++i]);
                    case "--clients" -> clients = Integer.parseInt(args[++i]);
                    case "--topology" -> topologies = java.util.Arrays.stream(args[++i].split(","))
                            .map(s -> Topology.valueOf(s.trim().toUpperCase())).toList();
                    case "--report" -> reportFile = Path.of(args[++i]);
                    case "--faults" -> only = java.util.Arrays.stream(args[++i].split(",")).map(f -> Fault.valueOf(f.trim().toUpperCase())).toList();
                    default -> usage("unknown option " + args[i]);
                }
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException bad) {
            // A malformed number, an unknown topology or fault, or an option without its value.
            usage(String.valueOf(bad.getMessage()));
        }
        if (rounds < 1 || rounds > 1_000 || loadSeconds < 0 || loadSeconds > 600 || clients < 1 || clients > 64) {
            System.err.println("chaos: rounds 1-1000, seconds 0-600, clients 1-64");
            System.exit(2);
        }
        // Whatever ends this JVM, no node it started outlives it.
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
                ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly), "chaos-reap"));
        ChaosCampaign campaign = new ChaosCampaign(new Settings(seed, rounds, loadSeconds, topologies, clients, only));
        Report report = campaign.report;
        try {
            campaign.runAll();
        } catch (Exception | AssertionError failed) {
            // What ran before the failure is still evidence: print it, marked FAILED.
            failed.printStackTrace();
            report.aborted = String.valueOf(failed);
        }
        String text = report.text();
        System.out.print(text);
        if (reportFile != null) Files.writeString(reportFile, text);
        System.exit(report.ok() ? 0 : 1);
    }
}
