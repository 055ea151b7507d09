package lake.console;

import io.vertx.core.json.JsonObject;
import lake.node.MetasrvNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's console in a real headless chromium against real nodes over real HTTP
 * (specs/console.spec.md maps each scenario here). Waits are Selenium's explicit waits on what
 * the page shows; nothing sleeps.
 */
class ConsoleTest {
    @TempDir Path dir;
    ConsoleNodes nodes;
    ConsoleBrowser browser;

    @BeforeEach
    void start() {
        nodes = new ConsoleNodes();
        browser = ConsoleBrowser.open();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (browser != null) browser.close();
        } finally {
            nodes.close();
        }
    }

    @Test
    void consoleShowsLeaderAndEpoch() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir), dir);
        browser.go(a.httpPort(), "");

        assertThat(browser.textOf("leader-holder", t -> t.equals("a"))).isEqualTo("a");
        assertThat(browser.textOf("leader-epoch", t -> !t.equals("—"))).isEqualTo("1");
        assertThat(browser.textOf("node-role", t -> !t.equals("—"))).isEqualTo("leader");
        // A live countdown: seconds left on the lease, at most the TTL, moving as the page ticks.
        String first = browser.textOf("lease-countdown", t -> t.matches("\\d+\\.\\d s"));
        assertThat(Double.parseDouble(first.replace(" s", ""))).isBetween(0.0, ConsoleNodes.TTL_MS / 1000.0);
        browser.textOf("lease-countdown", t -> t.matches("\\d+\\.\\d s") && !t.equals(first));
        assertThat(browser.textOf("node-authority", t -> t.startsWith("may publish"))).contains("monotonic deadline");
        // The timeline has this node's own takeover of epoch 1; the cluster lists it as leader.
        assertThat(browser.rowOf("timeline", c -> c.get(1).equals("takeover"))).containsSubsequence("takeover", "a", "1");
        assertThat(browser.rowOf("members", c -> c.get(0).equals("a"))).containsSubsequence("a", "leader", "1");
        assertThat(browser.consoleProblems()).isEmpty();
    }

    @Test
    void consoleShowsRecentChangesLive() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir), dir);
        browser.go(a.httpPort(), "");
        browser.textOf("changes-status", t -> t.equals("watching"));
        nodes.create(a, "live/first", "v".getBytes(), null);
        nodes.create(a, "live/second", "v".getBytes(), null);
        // Newest first, each with its revision and what it changed.
        browser.rowOf("changes", c -> c.get(2).equals("put live/second"));
        List<List<String>> rows = browser.rows("changes");
        assertThat(rows).extracting(r -> r.get(2)).containsExactly("put live/second", "put live/first");
        assertThat(Long.parseLong(rows.get(0).get(0))).isGreaterThan(Long.parseLong(rows.get(1).get(0)));
        assertThat(rows.get(0).get(3)).isEqualTo("1");
        assertThat(browser.consoleProblems()).isEmpty();
    }

    /**
     * A member whose clock runs a minute ahead and that stops refreshing its entry is shown by how
     * long it has stood still, never as "just now (not refreshing)".
     */
    @Test
    void aMemberThatStoppedRefreshingIsNeverJustNow() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir), dir);
        io.vertx.core.json.JsonObject ahead = new io.vertx.core.json.JsonObject().put("node_id", "z").put("role", "follower")
                .put("epoch", 1).put("http_host", "127.0.0.1").put("http_port", 1)
                .put("seen_at_ms", System.currentTimeMillis() + 60_000);
        lake.node.NodeHarness.await(nodes.harness.vertx.sharedData().<String, io.vertx.core.json.JsonObject>getAsyncMap(
                lake.cluster.Membership.MAP).compose(m -> m.put("z", ahead, 120_000)));
        browser.go(a.httpPort(), "");
        String shown = browser.textOf("members", t -> t.contains("not refreshing"));
        assertThat(browser.rowOf("members", c -> c.get(0).equals("z")).get(4)).matches("\\d+ s ago \\(not refreshing\\)");
        assertThat(shown).doesNotContain("just now (not refreshing)");
        assertThat(browser.consoleProblems()).isEmpty();
    }

    @Test
    void consoleTimelineShowsTakeover() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir.resolve("a")), dir.resolve("a"));
        MetasrvNode b = nodes.standby(ConsoleNodes.settings("b", dir.resolve("b")));
        // b has seen a's lease (its first one: "observed", not taken) before anything changes.
        browser.go(b.httpPort(), "");
        browser.rowOf("timeline", c -> c.get(1).equals("observed") && c.get(2).equals("a") && c.get(3).equals("1"));

        // Resign on a through a's console: the confirmation first, then the write.
        browser.go(a.httpPort(), "");
        browser.visible("resign").click();
        browser.visible("resign-yes").click();
        browser.textOf("resign-result", t -> t.startsWith("Resigned"));
        browser.rowOf("timeline", c -> c.get(1).equals("resign") && c.get(2).equals("a") && c.get(3).equals("1"));

        // b took the lease under the next epoch, and its timeline says so.
        browser.go(b.httpPort(), "");
        List<String> takeover = browser.rowOf("timeline", c -> c.get(1).equals("takeover"));
        assertThat(takeover).containsSubsequence("takeover", "b", "2");
        assertThat(browser.textOf("leader-holder", t -> t.equals("b"))).isEqualTo("b");
        assertThat(browser.textOf("leader-epoch", t -> t.equals("2"))).isEqualTo("2");
        assertThat(browser.consoleProblems()).isEmpty();
    }

    @Test
    void consoleBrowsesKeysByPrefix() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir), dir);
        nodes.sampleData(a, null);
        for (int i = 0; i < 60; i++) nodes.create(a, String.format("many/%03d", i), ("value " + i).getBytes(), null);
        browser.go(a.httpPort(), "#data");

        browser.visible("prefix").sendKeys("tables/");
        browser.visible("browse").click();
        browser.rowOf("keys", c -> c.get(0).equals("tables/robots"));
        List<List<String>> rows = browser.rows("keys");
        assertThat(rows).extracting(r -> r.get(0)).containsExactly("tables/episodes", "tables/raw", "tables/robots");
        assertThat(rows.get(2)).containsExactly("tables/robots", "2 B", "text", "v1");
        assertThat(rows.get(1)).containsExactly("tables/raw", "4 B", "hex", "00 01 02 ff");
        assertThat(browser.driver.findElement(By.id("next-page")).isDisplayed()).isFalse();

        // Paged: 60 keys come 50 to a page; the next page appends the other 10.
        browser.driver.findElement(By.id("prefix")).clear();
        browser.driver.findElement(By.id("prefix")).sendKeys("many/");
        browser.driver.findElement(By.id("browse")).click();
        browser.wait.until(d -> browser.rows("keys").size() == 50);
        browser.visible("next-page").click();
        browser.wait.until(d -> browser.rows("keys").size() == 60);
        assertThat(browser.rows("keys").get(59).get(0)).isEqualTo("many/059");
        browser.wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("next-page")));

        // Nothing under a prefix: the empty state, not an empty table.
        browser.driver.findElement(By.id("prefix")).clear();
        browser.driver.findElement(By.id("prefix")).sendKeys("nothing/here/");
        browser.driver.findElement(By.id("browse")).click();
        browser.visible("keys-empty");
        assertThat(browser.rows("keys")).isEmpty();
        assertThat(browser.consoleProblems()).isEmpty();
    }

    /**
     * Metasrv's own keys stay out of the key browser unless asked for. 55 namespaces put 56 keys
     * under {@code __lake_internal/} ahead of every user key, so the first page of 50 holds only
     * hidden keys: the browser must read on rather than call the listing empty.
     */
    @Test
    void consoleHidesSystemKeysUnlessAsked() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir), dir);
        nodes.sampleData(a, null);
        for (int i = 0; i < 55; i++) {
            assertThat(nodes.post(a, "/v1/namespaces", "{\"namespace\":\"ns" + i + "\"}", null).statusCode()).isEqualTo(200);
        }
        browser.go(a.httpPort(), "#data");
        browser.visible("browse").click();
        browser.rowOf("keys", c -> c.get(0).equals("tables/robots"));
        assertThat(browser.rows("keys")).extracting(r -> r.get(0))
                .containsExactly("config/retention", "tables/episodes", "tables/raw", "tables/robots");
        assertThat(browser.driver.findElement(By.id("next-page")).isDisplayed()).isFalse();

        // Asked for: the catalog's keys and the lease key, in byte order, 50 to a page.
        browser.visible("show-system").click();
        browser.rowOf("keys", c -> c.get(0).equals("__lake_internal/catalog-directory-generation"));
        assertThat(browser.rows("keys")).hasSize(50);
        // The change feed's records (one per write above) come next; each page adds at most 50 rows.
        java.util.List<String> seen = List.of();
        for (int page = 2; page <= 4 && !seen.contains("tbl/robots/episodes"); page++) {
            int before = browser.rows("keys").size();
            browser.visible("next-page").click();
            browser.wait.until(d -> browser.rows("keys").size() > before);
            assertThat(browser.rows("keys").size() - before).isBetween(1, 50);
            seen = browser.rows("keys").stream().map(r -> r.get(0)).toList();
        }
        assertThat(seen).contains("election/leader", "tables/robots", "tbl/robots/episodes")
                .anyMatch(k -> k.startsWith("drop/robots/scratch/")).anyMatch(k -> k.startsWith("__lake_internal/feed/"));

        // A prefix under a system range asks for it, even unticked (unticking browses again).
        browser.driver.findElement(By.id("prefix")).sendKeys("tbl/");
        browser.visible("show-system").click();
        browser.wait.until(d -> browser.rows("keys").size() == 1);
        assertThat(browser.rows("keys").get(0).get(0)).isEqualTo("tbl/robots/episodes");
        assertThat(browser.consoleProblems()).isEmpty();
    }

    @Test
    void consoleAsksForTokenWhenRequired() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.withTokens(ConsoleNodes.settings("a", dir)), dir);
        // Found by the review: the catalog view asked and hid the panel again in the same refresh.
        for (String view : new String[] {"#catalog", "#data"}) {
            browser.go(a.httpPort(), view);
            assertThat(browser.textOf("token-reason", t -> t.contains("401"))).as(view).contains("requires a token");
            assertThat(browser.visible("token-panel").isDisplayed()).as("%s still asks after the next refreshes", view).isTrue();
            long rejected = rejections(a);
            // While it asks, the page stops polling: the node's count of refused requests stays put.
            org.awaitility.Awaitility.await().during(java.time.Duration.ofMillis(4_500)).atMost(java.time.Duration.ofSeconds(6))
                    .until(() -> rejections(a) == rejected && browser.driver.findElement(By.id("token-panel")).isDisplayed());
        }
        browser.go(a.httpPort(), "");

        // No token: the page asks for one and shows the 401 plainly, and shows no data.
        assertThat(browser.textOf("token-reason", t -> t.contains("401"))).contains("requires a token");
        assertThat(browser.driver.findElement(By.id("leader-holder")).getText()).isEqualTo("—");

        // A wrong token is refused, and the page says so.
        browser.visible("token").sendKeys("not-a-token");
        browser.visible("token-submit").click();
        assertThat(browser.textOf("token-reason", t -> t.contains("refused"))).contains("401");

        // A read-only token: the data shows, and there is no resign button.
        browser.visible("token").sendKeys(ConsoleNodes.READ_ONLY);
        browser.visible("token-submit").click();
        assertThat(browser.textOf("leader-holder", t -> t.equals("a"))).isEqualTo("a");
        browser.wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("token-panel")));
        assertThat(browser.driver.findElement(By.id("resign-area")).isDisplayed()).isFalse();
        // Kept for the tab: a reload needs no new token.
        browser.driver.navigate().refresh();
        assertThat(browser.textOf("leader-epoch", t -> t.equals("1"))).isEqualTo("1");

        // A read-write token writes keys but may not resign (admin only): still no button.
        browser.visible("token-button").click();
        browser.visible("token").sendKeys(ConsoleNodes.READ_WRITE);
        browser.visible("token-submit").click();
        browser.wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("token-panel")));
        assertThat(browser.textOf("leader-epoch", t -> t.equals("1"))).isEqualTo("1");
        assertThat(browser.driver.findElement(By.id("resign-area")).isDisplayed()).isFalse();

        // An admin token may resign: the button appears (behind a confirmation).
        browser.visible("token-button").click();
        browser.visible("token").sendKeys(ConsoleNodes.ADMIN);
        browser.visible("token-submit").click();
        browser.visible("resign").click();
        browser.visible("resign-no").click();
        browser.wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("resign-confirm")));
        assertThat(nodes.harness.status(a).isLeader()).as("cancel wrote nothing").isTrue();
        // The only problems logged are the refused requests themselves (401s), no script errors.
        assertThat(browser.consoleProblems()).allMatch(p -> p.contains("401"), "only the 401 responses");
    }

    /** The node's count of requests refused 401 (its Prometheus meter). */
    static long rejections(MetasrvNode node) {
        return node.metrics().registry().find("lake.auth.rejections").counters().stream()
                .mapToLong(c -> (long) c.count()).sum();
    }

    /**
     * A purge that cannot finish stays in the queue, and the catalog view shows it: a table created
     * at a location the catalog did not assign it is dropped with {@code purgeRequested}, and the
     * leader's worker (looking every 100 ms) refuses to delete its files. The job's row says so and
     * why, its tombstone's row gives its expiry and the purge's state, and the worker's counts show.
     */
    @Test
    void catalogViewShowsThePurgeQueue() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir).with(f -> f.lifecycle = lake.node.NodeHarness.PURGING), dir);
        nodes.sampleData(a, null);
        String location = dir.resolve("elsewhere").toUri().toString();
        HttpResponse<String> created = nodes.post(a, "/iceberg/v1/namespaces/robots/tables", "{\"name\":\"elsewhere\",\"location\":\""
                + location + "\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}}", null);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        HttpResponse<String> dropped = nodes.delete(a, "/iceberg/v1/namespaces/robots/tables/elsewhere?purgeRequested=true", null);
        assertThat(dropped.statusCode()).as(dropped.body()).isEqualTo(204);
        browser.go(a.httpPort(), "#catalog");

        List<String> job = browser.rowOf("purges", c -> c.get(1).equals("elsewhere") && c.get(3).equals("refused"));
        JsonObject queued = listed(a, "/v1/catalog/purges", "purges", "elsewhere");
        assertThat(job.subList(0, 8)).containsExactly("robots", "elsewhere", queued.getString("incarnation_id"), "refused", "requested",
                "0", "0", shown(queued.getLong("queued_ms")));
        assertThat(job.get(8)).isEqualTo(queued.getString("message")).contains("was not assigned to this table");

        // Each tombstone's expiry, the node's retention after its drop; the refused one with its purge's state.
        JsonObject tomb = listed(a, "/v1/catalog/tombstones", "tombstones", "elsewhere");
        assertThat(tomb.getString("incarnation_id")).isEqualTo(queued.getString("incarnation_id"));
        assertThat(browser.rowOf("tombstones", c -> c.get(1).equals("elsewhere")).get(4))
                .isEqualTo(shown(tomb.getLong("expires_ms")) + "; purge refused");
        JsonObject scratch = listed(a, "/v1/catalog/tombstones", "tombstones", "scratch");
        assertThat(scratch.getLong("expires_ms") - scratch.getLong("dropped_ms"))
                .isEqualTo(lake.config.LifecycleSettings.DEFAULTS.tableRetentionMs());
        assertThat(browser.rowOf("tombstones", c -> c.get(1).equals("scratch")).get(4)).isEqualTo(shown(scratch.getLong("expires_ms")));

        // The worker's meters on this node, its leader: one refusal, nothing deleted, one job left.
        assertThat(browser.textOf("p-refused", t -> !t.equals("—"))).isEqualTo("1");
        assertThat(browser.textOf("p-queue", t -> t.equals("1"))).isEqualTo("1");
        assertThat(browser.driver.findElement(By.id("p-files-deleted")).getText()).isEqualTo("0");
        assertThat(browser.driver.findElement(By.id("p-tables")).getText()).isEqualTo("0");
        assertThat(browser.driver.findElement(By.id("purges-empty")).isDisplayed()).isFalse();
        assertThat(browser.driver.findElement(By.id("catalog-error")).isDisplayed()).isFalse();
        assertThat(browser.consoleProblems()).isEmpty();
    }

    /**
     * The tombstones and the purge queue span every namespace, so a principal with grants is
     * refused them (403): the view says so for each, and still lists the namespaces it may see.
     */
    @Test
    void catalogViewSaysWhyThePurgeQueueIsRefused() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.withTokens(ConsoleNodes.settings("a", dir)), dir);
        nodes.sampleData(a, ConsoleNodes.ADMIN);
        browser.go(a.httpPort(), "#catalog");
        browser.visible("token").sendKeys(ConsoleNodes.TEAM);
        browser.visible("token-submit").click();

        String error = browser.textOf("catalog-error", t -> t.contains("Purge queue"));
        assertThat(error.lines()).containsExactly(
                "Tombstones: 403 forbidden: list-tombstones spans every namespace; principal 'team' has grants, so it may not",
                "Purge queue: 403 forbidden: list-purges spans every namespace; principal 'team' has grants, so it may not");
        browser.click(By.xpath("//ul[@id='namespaces']//button[text()='robots']"));
        browser.click(By.xpath("//ul[@id='tables']//button[text()='episodes']"));
        browser.textOf("registration", t -> t.contains("robots.episodes"));
        assertThat(browser.rows("purges")).isEmpty();
        assertThat(browser.textOf("purges-empty", t -> !t.isEmpty())).as("not \"none\": unknown").isEqualTo("Not shown: the listing failed (above).");
        assertThat(browser.textOf("tombstones-empty", t -> !t.isEmpty())).isEqualTo("Not shown: the listing failed (above).");
        assertThat(browser.textOf("p-refused", t -> !t.equals("—"))).isEqualTo("0");
        assertThat(browser.consoleProblems()).allMatch(p -> p.contains("401") || p.contains("403"), "only the refused responses");
    }

    /** The one entry named {@code name} in a listing of this node's ({@code field} its array). */
    private JsonObject listed(MetasrvNode node, String path, String field, String name) throws Exception {
        HttpResponse<String> r = nodes.get(node, path, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new JsonObject(r.body()).getJsonArray(field).stream().map(o -> (JsonObject) o)
                .filter(o -> o.getString("name").equals(name)).findFirst().orElseThrow(() -> new AssertionError("no " + name + " in " + r.body()));
    }

    /** A time as the console shows it: UTC, to the second. */
    private static String shown(long ms) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC).format(Instant.ofEpochMilli(ms));
    }

    @Test
    void consolePagesLogNoBrowserErrors() throws Exception {
        MetasrvNode a = nodes.leader(ConsoleNodes.settings("a", dir), dir);
        nodes.sampleData(a, null);
        List<String> problems = new ArrayList<>();

        browser.go(a.httpPort(), "#overview");
        browser.rowOf("members", c -> c.get(0).equals("a"));
        // Two reads of the meters make the rates and p99 appear.
        browser.rowOf("ops", c -> c.get(0).equals("cas"));
        browser.textOf("rate-now", t -> !t.equals("—"));
        problems.addAll(browser.consoleProblems());

        browser.visible("tab-data").click();
        browser.visible("browse").click();
        browser.rowOf("keys", c -> c.get(0).equals("config/retention"));
        problems.addAll(browser.consoleProblems());

        browser.visible("tab-catalog").click();
        browser.click(By.xpath("//ul[@id='namespaces']//button[text()='robots']"));
        browser.click(By.xpath("//ul[@id='tables']//button[text()='episodes']"));
        browser.textOf("registration", t -> t.contains("Current version"));
        assertThat(browser.driver.findElement(By.id("registration")).getText()).contains("robots.episodes").contains("id:i64");
        browser.rowOf("tombstones", c -> c.get(1).equals("scratch"));
        problems.addAll(browser.consoleProblems());

        assertThat(problems).isEmpty();
    }
}
