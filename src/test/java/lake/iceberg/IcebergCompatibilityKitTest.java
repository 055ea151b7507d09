package lake.iceberg;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.config.access.AuthToken;
import lake.config.AuthTokens;
import lake.config.access.CatalogGrant;
import lake.config.access.CatalogGrant.Privilege;
import lake.meta.MetaStore;
import lake.meta.dynamo.MotoServer;
import lake.meta.rocks.RocksConfig;
import lake.meta.rocks.RocksMetaStore;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.EngineFilter.includeEngines;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Apache Iceberg's own REST Compatibility Kit (iceberg-open-api 1.11.0, {@code RESTCompatibilityKitSuite}:
 * the table and the view suites) against a started node, over real HTTP, on each backend, with
 * the flags: no failures. The kit runs as a principal holding grants on the kit's
 * namespaces only (none exist before it runs: a grant on a namespace covers the namespace itself,
 * so it creates them), beside another team's namespace that it never sees.
 */
class IcebergCompatibilityKitTest {
    /** The kit's flags (read from system properties, as from {@code CATALOG_*} variables). */
    static final Map<String, String> FLAGS = Map.of(
            "rck.requires-namespace-create", "true",
            "rck.supports-serverside-retry", "true",
            "rck.supports-names-with-dot", "true",
            "rck.overrides-requested-location", "false");

    /** Skipped or aborted with the flags above against this server (1 skipped, 9 aborted when measured). */
    static final int MAX_NOT_RUN = 10;

    /** Every namespace the kit's catalog and view tests create, at any level (a grant covers its children). */
    static final List<String> KIT_NAMESPACES = List.of("ns", "newdb", "ns1", "ns2", "other_ns", "a", "ns_1", "newdb_1", "ns_2", "newdb_2", "new~2Edb");
    static final String KIT_TOKEN = "rck-token-0123456789abcdef";
    static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";

    @TempDir Path dir;

    @Test
    void icebergCompatibilityKitPassesOnRocks() throws Exception {
        TestExecutionSummary s = runKit(v -> RocksMetaStore.open(v, RocksConfig.defaults(dir.resolve("rocks"))));
        assertThat(s.getTestsSucceededCount()).isGreaterThan(140);
    }

    @Test
    void icebergCompatibilityKitPassesOnDynamo() throws Exception {
        TestExecutionSummary s = runKit(MotoServer::openFreshStore);
        assertThat(s.getTestsSucceededCount()).isGreaterThan(140);
    }

    /** Starts a leader over {@code backend}, runs the kit against its {@code /iceberg}, and asserts no failure. */
    private TestExecutionSummary runKit(Function<Vertx, Future<? extends MetaStore>> backend) throws Exception {
        try (NodeHarness h = new NodeHarness()) {
            List<AuthToken> tokens = List.of(
                    new AuthToken("operator", AuthTokens.sha256(ADMIN_TOKEN), AuthToken.Access.ADMIN, null, null),
                    new AuthToken("rck", AuthTokens.sha256(KIT_TOKEN), AuthToken.Access.READ_WRITE, null, null, null,
                            KIT_NAMESPACES.stream().map(ns -> new CatalogGrant(ns, null, EnumSet.of(Privilege.READ, Privilege.WRITE,
                                    Privilege.CREATE, Privilege.DROP))).toList()));
            MetasrvNode node = h.deploy(NodeHarness.settings("a", dir.resolve("a"), 10_000, 0, 1_000).with(f -> f.authTokens = tokens),
                    new ManualClock(1_700_000_000_000L), backend);
            assertThat(h.campaign(node).isLeader()).isTrue();
            NodeHarness.settled(node);
            // Another team's namespace and table: the kit lists namespaces and tables, and must never see them.
            int port = node.httpPort();
            Map<String, String> admin = Map.of("Authorization", "Bearer " + ADMIN_TOKEN);
            assertThat(Rest.call(port, "POST", "/v1/namespaces", "{\"namespace\":[\"elsewhere\"]}", admin).statusCode()).isEqualTo(200);
            assertThat(Rest.call(port, "POST", "/v1/namespaces/elsewhere/tables", "{\"name\":\"kept\",\"schema\":"
                    + "{\"type\":\"struct\",\"fields\":[]}}", admin).statusCode()).isEqualTo(200);
            Map<String, String> props = new java.util.HashMap<>(FLAGS);
            props.put("uri", "http://127.0.0.1:" + port + "/iceberg");
            props.put("token", KIT_TOKEN);
            props.forEach(System::setProperty);
            try {
                LauncherDiscoveryRequest request = request()
                        .selectors(selectClass("org.apache.iceberg.rest.RESTCompatibilityKitSuite"))
                        .filters(includeEngines("junit-platform-suite"))
                        .configurationParameter("rck.local", "false")
                        .build();
                Launcher launcher = LauncherFactory.create();
                SummaryGeneratingListener summary = new SummaryGeneratingListener();
                List<String> skipped = new ArrayList<>();
                TestExecutionListener skips = new TestExecutionListener() {
                    @Override public void executionSkipped(TestIdentifier id, String reason) {
                        if (id.isTest()) skipped.add(id.getDisplayName() + ": " + reason);
                    }

                    @Override public void executionFinished(TestIdentifier id, org.junit.platform.engine.TestExecutionResult r) {
                        if (id.isTest() && r.getStatus() == org.junit.platform.engine.TestExecutionResult.Status.ABORTED) {
                            skipped.add(id.getDisplayName() + ": aborted: " + r.getThrowable().map(Throwable::getMessage).orElse(""));
                        }
                    }
                };
                launcher.execute(request, summary, skips);
                TestExecutionSummary s = summary.getSummary();
                StringWriter report = new StringWriter();
                s.printTo(new PrintWriter(report));
                s.printFailuresTo(new PrintWriter(report), 12);
                System.out.println("RCK: " + s.getTestsSucceededCount() + " passed, " + s.getTestsFailedCount() + " failed, "
                        + (s.getTestsSkippedCount() + s.getTestsAbortedCount()) + " skipped/aborted of " + s.getTestsFoundCount());
                System.out.println(report);
                skipped.forEach(x -> System.out.println("skipped: " + x));
                assertThat(s.getTestsFoundCount()).as("the kit found its tests").isGreaterThan(100);
                assertThat(s.getTestsFailedCount()).as(report.toString()).isZero();
                assertThat(s.getContainersFailedCount()).as(report.toString()).isZero();
                // Every test found either passed or did not run (skipped by the kit's flags, or
                // aborted by an assumption); no more may stop running than the 10 measured with
                // these flags (verification/iceberg.md), so coverage cannot shrink unnoticed.
                assertThat(s.getTestsSucceededCount() + s.getTestsSkippedCount() + s.getTestsAbortedCount())
                        .isEqualTo(s.getTestsFoundCount());
                assertThat(skipped).as("tests that did not run").hasSizeLessThanOrEqualTo(MAX_NOT_RUN);
                assertThat(Rest.call(port, "GET", "/v1/namespaces/elsewhere/tables/kept", null, admin).statusCode())
                        .as("the other team's table is untouched").isEqualTo(200);
                assertThat(Rest.call(port, "GET", "/v1/namespaces", null, Map.of("Authorization", "Bearer " + KIT_TOKEN)).body())
                        .as("the kit's principal never sees it").doesNotContain("elsewhere");
                // It creates, reads, commits and drops only in its own namespaces: never forbidden. What it
                // expects to be absent outside them ("non-existing") is hidden, answered as absent.
                assertThat(node.metrics().registry().find("lake.auth.rejections").tag("code", "forbidden").counters())
                        .as("forbidden refusals the kit met").isNotEmpty().allSatisfy(c -> assertThat(c.count()).isZero());
                assertThat(node.metrics().registry().find("lake.auth.rejections").tag("code", "hidden").counters())
                        .as("what it asked for outside its grants, answered as absent").anySatisfy(c -> assertThat(c.count()).isPositive());
                return s;
            } finally {
                props.keySet().forEach(System::clearProperty);
            }
        }
    }
}
