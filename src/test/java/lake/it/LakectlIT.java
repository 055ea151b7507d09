package lake.it;

import io.vertx.core.json.JsonObject;
import lake.it.TcpProxy;
import lake.it.LakectlProcess.Run;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static lake.it.LakectlProcess.failsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * lakectl as a user runs it: {@code bin/lakectl} as a real process against a real Metasrv process
 * (the fat jar) that requires tokens (an admin one, which also creates and drops namespaces and resigns, and a read-only one).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LakectlIT {
    static final String RW = "rw-token-0123456789abcdef";
    static final String RO = "ro-token-0123456789abcdef";

    Path dir;
    MetasrvProcess server;
    int port;
    Path rwTokenFile;

    @BeforeAll
    void startServer() throws Exception {
        dir = Files.createTempDirectory("lakectl-it");
        String tokens = "[{\"name\":\"writer\",\"access\":\"admin\",\"token\":\"" + RW + "\"},"
                + "{\"name\":\"reader\",\"access\":\"read\",\"token\":\"" + RO + "\"}]";
        server = MetasrvProcess.start(List.of("--data-dir", dir.resolve("data").toString(), "--http-port", "0"),
                Map.of("LAKE_AUTH_TOKENS", tokens));
        port = server.awaitListening(Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(20)).until(() -> MetasrvProcess.get(port, "/ready").statusCode() == 200);
        rwTokenFile = Files.writeString(dir.resolve("rw-token"), RW + "\n");
    }

    @AfterAll
    void stopServer() throws Exception {
        if (server != null) server.close();
    }

    String endpoints() {
        return "http://127.0.0.1:" + port;
    }

    ProcessBuilder builder(Map<String, String> env, List<String> args) {
        return LakectlProcess.builder(endpoints(), env, args);
    }

    Run run(Map<String, String> env, byte[] stdin, String... args) throws Exception {
        return LakectlProcess.run(endpoints(), env, stdin, args);
    }

    /** lakectl with the read-write token from a file. */
    Run rw(String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of("--token-file", rwTokenFile.toString()));
        a.addAll(List.of(args));
        return run(Map.of(), null, a.toArray(String[]::new));
    }

    @Test
    void lakectlExitCodesFollowTheTable() throws Exception {
        assertThat(rw("create", "exit/k", "v").exit()).isEqualTo(0);
        failsWith(rw("create", "exit/k", "v"), 1, "exit/k");
        failsWith(rw("get", "exit/missing"), 1, "not_found");
        failsWith(rw("cas", "exit/k", "wrong", "x"), 1, "expected value");
        failsWith(rw("get"), 2, "KEY");
        failsWith(rw("put", "election/leader", "mine"), 2, "invalid_argument");
        failsWith(rw("--timeout", "1s", "--endpoints", "http://127.0.0.1:" + closedPort(), "get", "exit/k"), 3, "unreachable");
        try (TcpProxy silent = new TcpProxy(port, TcpProxy.Mode.WITHHOLD)) {
            failsWith(rw("--timeout", "2s", "--endpoints", "http://127.0.0.1:" + silent.port(), "create", "exit/unknown", "v"),
                    4, "outcome_unknown");
            assertThat(silent.requests()).as("sent once").isEqualTo(1);
        }
        assertThat(rw("get", "exit/unknown").text()).as("the unknown write did apply").isEqualTo("v\n");
        failsWith(run(Map.of(), null, "get", "exit/k"), 5, "unauthorized");
        failsWith(run(Map.of("LAKECTL_TOKEN", RO), null, "put", "exit/k", "x"), 5, "forbidden");
        assertThat(run(Map.of("LAKECTL_TOKEN", RO), null, "get", "exit/k").text()).isEqualTo("v\n");
        failsWith(run(Map.of("LAKECTL_TOKEN", RO), null, "resign"), 5, "forbidden");
        assertThat(new JsonObject(rw("-o", "json", "leader").text()).getLong("epoch")).as("the refused resign left the lease alone")
                .isEqualTo(1L);
        failsWith(rw("--epoch", "99", "put", "exit/k", "x"), 6, "epoch_mismatch");
        // Found by the second review: "exists": false was dropped and the put applied unconditionally.
        failsWith(run(Map.of("LAKECTL_TOKEN", RW), "{\"ops\":[{\"key\":\"exit/k\",\"exists\":false,\"value\":\"bmV3\"}]}"
                .getBytes(StandardCharsets.UTF_8), "txn", "-"), 2, "'exists' must be true");
        assertThat(rw("get", "exit/k").text()).as("nothing written by refused commands").isEqualTo("v\n");
    }

    /**
     * Nothing listens at any endpoint: exit 3 at once, naming every address, instead of retrying
     * "connection refused" until the 10 s deadline. The process's time is compared with the same
     * process answering a live server (JVM start and all), so only the call's own time is judged;
     * the 3 s margin holds on a loaded machine and is far below the deadline it replaces.
     */
    @Test
    void unreachableServerFailsFast() throws Exception {
        int one, two;
        try (ServerSocket s1 = new ServerSocket(0); ServerSocket s2 = new ServerSocket(0)) {
            one = s1.getLocalPort();
            two = s2.getLocalPort();
        }
        String closed = "http://127.0.0.1:" + one + ",http://127.0.0.1:" + two;
        rw("get", "fast/none");                          // warms up: the first run after a build makes the CDS archive
        long started = System.nanoTime();
        assertThat(rw("get", "fast/none").exit()).as("a live server answers not found").isEqualTo(1);
        long baselineMs = (System.nanoTime() - started) / 1_000_000L;
        started = System.nanoTime();
        Run refused = rw("--timeout", "10s", "--endpoints", closed, "get", "fast/k");
        long refusedMs = (System.nanoTime() - started) / 1_000_000L;
        failsWith(refused, 3, "connection refused");
        assertThat(refused.err()).contains("127.0.0.1:" + one, "127.0.0.1:" + two);
        assertThat(refusedMs - baselineMs).as("the call's own time (%d ms, a live call %d ms) against its 10 s deadline",
                refusedMs, baselineMs).isLessThan(3_000);
        // A cluster with one endpoint down still works: the refused one is skipped, as before.
        assertThat(rw("--endpoints", "http://127.0.0.1:" + one + "," + endpoints(), "put", "fast/k", "v").exit()).isZero();
        assertThat(rw("--endpoints", "http://127.0.0.1:" + one + "," + endpoints(), "get", "fast/k").text()).isEqualTo("v\n");
    }

    @Test
    void lakectlPrintsTextForPeopleAndJsonForScripts() throws Exception {
        assertThat(rw("put", "out/a", "first").text()).startsWith("applied (epoch ");
        rw("put", "out/bb", "second value");
        assertThat(rw("ls", "out/").text()).isEqualTo("KEY     VALUE\nout/a   first\nout/bb  second value\n");
        assertThat(rw("ls", "out/", "--page-size", "1").text()).as("printed page by page, aligned the same")
                .isEqualTo("KEY     VALUE\nout/a   first\nout/bb  second value\n");
        JsonObject page = new JsonObject(rw("-o", "json", "ls", "out/").text());
        assertThat(page.getJsonArray("entries")).hasSize(2);
        assertThat(page.getValue("continuation")).isNull();
        assertThat(new JsonObject(rw("-o", "json", "ls", "out/", "--page-size", "1").text())).isEqualTo(page);
        assertThat(new JsonObject(rw("-o", "json", "get", "out/a").text()).getString("value")).isEqualTo("Zmlyc3Q=");
        assertThat(new JsonObject(rw("-o", "json", "put", "out/a", "x").text()).getBoolean("applied")).isTrue();
        assertThat(new JsonObject(rw("-o", "json", "leader").text()).getLong("epoch")).isEqualTo(1L);
        assertThat(rw("leader").text()).startsWith("LEADER").contains("1");
        assertThat(rw("cluster").text()).startsWith("NODE").contains("leader");
        Run health = rw("health");
        assertThat(health.exit()).isZero();
        assertThat(health.text()).contains("up", "yes");
        com.sun.net.httpserver.HttpServer notMetasrv = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        notMetasrv.createContext("/", x -> {
            byte[] hello = "hello from another service".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, hello.length);
            x.getResponseBody().write(hello);
            x.close();
        });
        notMetasrv.start();
        try {
            String others = "http://127.0.0.1:" + notMetasrv.getAddress().getPort() + ",http://127.0.0.1:" + closedPort();
            Run mixed = rw("--endpoints", endpoints() + "," + others, "health");
            failsWith(mixed, 3, "not Metasrv's");
            assertThat(mixed.err()).contains("127.0.0.1:" + notMetasrv.getAddress().getPort(), others.substring(others.indexOf(',') + 1));
            assertThat(mixed.text()).as("every endpoint in the table").contains("up", "down");
        } finally {
            notMetasrv.stop(0);
        }
        Path txn = Files.writeString(dir.resolve("txn.json"),
                "{\"ops\":[{\"key\":\"out/t1\",\"expected\":null,\"value\":\"djE=\"},{\"key\":\"out/a\",\"exists\":true}]}");
        assertThat(rw("txn", txn.toString()).exit()).isZero();
        Run again = run(Map.of("LAKECTL_TOKEN", RW), Files.readAllBytes(txn), "-o", "json", "txn", "-");
        assertThat(again.exit()).isEqualTo(1);
        assertThat(new JsonObject(again.text()).getJsonArray("failed").getList()).containsExactly(0);
        assertThat(rw("del", "out/t1").exit()).isZero();
        failsWith(rw("del", "out/a", "--expected", "nope"), 1, "out/a");
    }

    /** {@code ls} leaves Metasrv's own keys out unless {@code --all}, or a PREFIX under them; page by page the same. */
    @Test
    void lakectlLsHidesSystemKeysUnlessAll() throws Exception {
        assertThat(rw("ns", "create", "lsns").exit()).isZero();
        assertThat(rw("put", "lsall/k", "v").exit()).isZero();
        List<String> shown = List.of(rw("ls", "--keys-only").text().split("\n"));
        assertThat(shown).contains("lsall/k").noneMatch(k -> k.startsWith("__lake_internal/") || k.startsWith("tbl/")
                || k.startsWith("drop/") || k.equals("election/leader"));
        assertThat(List.of(rw("ls", "--keys-only", "--page-size", "1").text().split("\n"))).as("page by page")
                .isEqualTo(shown);
        assertThat(rw("-o", "json", "ls").text()).doesNotContain("__lake_internal/");
        List<String> all = List.of(rw("ls", "--all", "--keys-only").text().split("\n"));
        assertThat(all).contains("lsall/k", "__lake_internal/namespaces/lsns", "election/leader").containsAll(shown);
        assertThat(rw("ls", "__lake_internal/namespaces/", "--keys-only").text()).contains("__lake_internal/namespaces/lsns");
        assertThat(rw("ns", "drop", "lsns").exit()).isZero();
    }

    @Test
    void lakectlRoundTripsBinaryValuesByteForByte() throws Exception {
        byte[] value = new byte[4096];
        new Random(13).nextBytes(value);
        Path in = Files.write(dir.resolve("value.bin"), value);
        assertThat(rw("put", "bin/file", "--file", in.toString()).exit()).isZero();
        Path out = dir.resolve("out.bin");
        assertThat(rw("get", "bin/file", "--file", out.toString()).exit()).isZero();
        assertThat(Files.readAllBytes(out)).isEqualTo(value);
        assertThat(rw("get", "bin/file", "--file", "-").out()).isEqualTo(value);
        assertThat(run(Map.of("LAKECTL_TOKEN", RW), value, "create", "bin/stdin", "--file", "-").exit()).isZero();
        assertThat(rw("get", "bin/stdin", "--file", "-").out()).isEqualTo(value);
        String b64 = java.util.Base64.getEncoder().encodeToString(value);
        assertThat(rw("put", "bin/b64", "--base64", b64).exit()).isZero();
        assertThat(rw("get", "bin/b64", "--base64").text().strip()).isEqualTo(b64);
        assertThat(rw("ls", "bin/").text()).contains("<4096 bytes, binary; use --base64>");
    }

    @Test
    void lakectlCatalogCommandsAndWatch() throws Exception {
        Process watch = builder(Map.of("LAKECTL_TOKEN", RW), List.of("catalog", "--watch"))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> new java.io.BufferedReader(new java.io.InputStreamReader(watch.getInputStream(),
                StandardCharsets.UTF_8)).lines().forEach(lines::add));
        reader.setDaemon(true);
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> lines.stream().anyMatch(l -> l.startsWith("generation")));
            assertThat(rw("ns", "create", "robots", "-p", "owner=lab").text()).contains("robots", "owner", "lab");
            failsWith(rw("ns", "create", "robots"), 1, "already_exists");
            Run created = rw("-o", "json", "table", "create", "robots", "episodes", "-c", "id:i64", "-c", "video:file");
            assertThat(created.exit()).isZero();
            String incarnation = new JsonObject(created.text()).getJsonObject("registration").getString("incarnation_id");
            await().atMost(Duration.ofSeconds(30)).until(() -> lines.stream().anyMatch(l -> l.startsWith("robots") && l.contains("episodes")));
            assertThat(lines.stream().filter(l -> l.startsWith("generation")).count()).as("the watch printed the new generation").isGreaterThanOrEqualTo(2);
            assertThat(rw("ns", "ls").text()).isEqualTo("robots\n");
            assertThat(rw("ns", "get", "robots").text()).contains("owner");
            assertThat(rw("table", "ls", "robots").text()).isEqualTo("episodes\n");
            assertThat(rw("table", "get", "robots", "episodes").text()).contains("version", "id:i64, video:file");
            assertThat(rw("table", "commit", "robots", "episodes", "--expected-version", "0", "--new-version", "1",
                    "--incarnation", incarnation).exit()).isZero();
            failsWith(rw("table", "commit", "robots", "episodes", "--expected-version", "0", "--new-version", "2"), 1, "version_conflict");
            failsWith(rw("ns", "drop", "robots"), 1, "namespace_not_empty");
            assertThat(rw("table", "drop", "robots", "episodes").text()).contains("dropped table robots/episodes");
            failsWith(rw("table", "get", "robots", "episodes"), 1, "not_found");
            assertThat(rw("ns", "drop", "robots").exit()).isZero();
            assertThat(rw("catalog").text()).contains("0 tables");
        } finally {
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void lakectlWatchPrintsEveryChangeUnderThePrefixInOrder() throws Exception {
        long before = new JsonObject(rw("-o", "json", "put", "w/zero", "0").text()).getLong("revision");
        Run fromRevision = null;
        Process watch = builder(Map.of("LAKECTL_TOKEN", RW), List.of("watch", "w/", "--after", Long.toString(before), "--count", "3"))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertThat(rw("put", "w/a", "1").exit()).isZero();
            assertThat(rw("put", "other", "1").exit()).isZero();
            assertThat(rw("put", "w/b", "2").exit()).isZero();
            assertThat(rw("del", "w/a", "--expected", "1").exit()).isZero();
            assertThat(watch.waitFor(60, TimeUnit.SECONDS)).as("--count 3 ends the watch").isTrue();
            assertThat(watch.exitValue()).isZero();
            List<String> lines = new String(watch.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertThat(lines).hasSize(3);
            assertThat(lines.stream().map(l -> l.substring(l.indexOf('\t') + 1)).toList())
                    .containsExactly("put\tw/a\t1", "put\tw/b\t2", "del\tw/a");
            List<Long> revisions = lines.stream().map(l -> Long.parseLong(l.substring(0, l.indexOf('\t')))).toList();
            assertThat(revisions).isSorted().doesNotHaveDuplicates().allMatch(r -> r > before);
            fromRevision = rw("-o", "json", "watch", "w/", "--after", Long.toString(before), "--count", "1");
        } finally {
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(fromRevision.exit()).isZero();
        assertThat(new JsonObject(fromRevision.text().trim()).getJsonArray("changes").getJsonObject(0).getString("key")).isEqualTo("w/a");
    }

    @Test
    void lakectlCatalogEventsPrintsEachCatalogWrite() throws Exception {
        long before = new JsonObject(rw("-o", "json", "put", "events/zero", "0").text()).getLong("revision");
        Run events;
        assertThat(rw("ns", "create", "ev").exit()).isZero();
        assertThat(rw("table", "create", "ev", "t", "-c", "id:i64").exit()).isZero();
        assertThat(rw("table", "drop", "ev", "t").exit()).isZero();
        events = rw("catalog", "events", "--after", Long.toString(before), "--count", "3");
        assertThat(events.exit()).isZero();
        List<String> lines = events.text().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).matches("[0-9]+\tnamespace_created\tev");
        assertThat(lines.get(1)).matches("[0-9]+\ttable_created\tev/t\t.*");
        assertThat(lines.get(2)).matches("[0-9]+\ttable_dropped\tev/t");
        assertThat(rw("ns", "drop", "ev").exit()).isZero();
    }

    /** {@code table get} of an Iceberg table shows its metadata file and schema, not only the registration. */
    @Test
    void lakectlTableGetShowsAnIcebergTablesMetadataAndSchema() throws Exception {
        assertThat(icebergPost("/iceberg/v1/namespaces", "{\"namespace\":[\"ice\"]}").statusCode()).isEqualTo(200);
        var created = icebergPost("/iceberg/v1/namespaces/ice/tables", "{\"name\":\"trips\",\"schema\":{\"type\":\"struct\",\"fields\":["
                + "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
                + "{\"id\":2,\"name\":\"city\",\"required\":false,\"type\":\"string\"}]}}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        String metadata = new JsonObject(created.body()).getString("metadata-location");
        try {
            Run text = rw("table", "get", "ice", "trips");
            assertThat(text.exit()).isZero();
            assertThat(text.text()).contains("engine             iceberg", "metadata location  " + metadata, "format version     2",
                    "current snapshot   (none)");
            assertThat(text.text()).containsSubsequence("ID  COLUMN  TYPE    REQUIRED\n", "1   id      long    yes\n",
                    "2   city    string  no\n");
            JsonObject json = new JsonObject(rw("-o", "json", "table", "get", "ice", "trips").text());
            assertThat(json.getJsonObject("registration").getString("metadata_location")).isEqualTo(metadata);
            assertThat(json.getJsonObject("iceberg").getString("metadata-location")).isEqualTo(metadata);
            assertThat(json.getJsonObject("iceberg").getJsonObject("metadata").getJsonArray("schemas")).hasSize(1);
        } finally {
            rw("table", "drop", "ice", "trips");
            rw("ns", "drop", "ice");
        }
    }

    private java.net.http.HttpResponse<String> icebergPost(String path, String json) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(endpoints() + path))
                        .header("Authorization", "Bearer " + RW).header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(json)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void lakectlNeverShowsTheToken() throws Exception {
        // A long-running lakectl: its arguments are what every local user can read from the process list.
        Process watch = builder(Map.of(), List.of("--token-file", rwTokenFile.toString(), "catalog", "--watch"))
                .redirectError(ProcessBuilder.Redirect.DISCARD).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(Path.of("/proc/" + watch.pid() + "/cmdline"))
                    && Files.readString(Path.of("/proc/" + watch.pid() + "/cmdline")).contains("Lakectl"));
            String cmdline = Files.readString(Path.of("/proc/" + watch.pid() + "/cmdline")).replace('\0', ' ');
            assertThat(cmdline).contains("--token-file").doesNotContain(RW);
        } finally {
            watch.destroy();
            watch.waitFor(10, TimeUnit.SECONDS);
        }
        Run bad = run(Map.of("LAKECTL_TOKEN", "wrong-token-0123456789"), null, "-o", "json", "get", "x");
        failsWith(bad, 5, "unauthorized");
        assertThat(bad.err() + bad.text()).doesNotContain("wrong-token-0123456789");
        Run plain = run(Map.of(), null, "--token", RW, "get", "exit/none");
        assertThat(plain.err()).contains("warning: --token puts the token in the process list");
        assertThat(plain.err() + plain.text()).doesNotContain(RW);
        for (Run r : List.of(rw("put", "tok/k", "v"), rw("-o", "json", "get", "tok/k"), rw("--help"), rw("health"))) {
            assertThat(r.err() + r.text()).doesNotContain(RW);
        }
    }

    @Test
    void everyCommandHasHelpAndCompletionIsGenerated() throws Exception {
        for (List<String> c : List.of(List.of("get"), List.of("put"), List.of("create"), List.of("cas"), List.of("del"), List.of("ls"),
                List.of("txn"), List.of("leader"), List.of("cluster"), List.of("resign"), List.of("health"), List.of("ns", "create"),
                List.of("ns", "ls"), List.of("ns", "get"), List.of("ns", "drop"), List.of("table", "create"), List.of("table", "ls"),
                List.of("table", "get"), List.of("table", "commit"), List.of("table", "drop"), List.of("catalog"))) {
            List<String> args = new ArrayList<>(c);
            args.add("--help");
            Run r = run(Map.of(), null, args.toArray(String[]::new));
            assertThat(r.exit()).as("%s --help", c).isZero();
            assertThat(r.text()).as("%s --help", c).startsWith("Usage: lakectl " + String.join(" ", c));
        }
        Run completion = run(Map.of(), null, "generate-completion");
        assertThat(completion.exit()).isZero();
        assertThat(completion.text()).contains("complete -F", "lakectl");
        // The fat jar runs the same CLI.
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                MetasrvProcess.jar().toString(), "ctl", "--endpoints", "http://127.0.0.1:" + port, "--token-file",
                rwTokenFile.toString(), "leader").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(out).startsWith("LEADER");
    }

    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
