package lake.api;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import lake.config.AuthTokens;
import lake.config.FeedSettings;
import lake.config.SecuritySettings;
import lake.config.Settings;
import lake.meta.MetaStore;
import lake.node.ApiFixture;
import lake.node.ManualClock;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import static lake.node.ApiFixture.T0;
import static lake.node.ApiFixture.TTL;
import static lake.node.ApiFixture.cas;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watching the change feed (issue 36): every node serves watchers from its tail, fed by the
 * leader's publications; order, compaction, slow watchers and access. Two nodes share one store;
 * run against every backend.
 */
public abstract class WatchContract {

    protected abstract Function<Vertx, Future<? extends MetaStore>> backend(Path dir);

    @TempDir Path dir;
    NodeHarness h;

    @BeforeEach
    void harness() {
        h = new NodeHarness();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    MetasrvNode leader(String id, FeedSettings feed, java.util.function.Consumer<Settings.Fields> more) throws Exception {
        MetasrvNode a = h.deploy(NodeHarness.settings(id, dir.resolve(id), TTL, 0, 1_000).with(f -> {
            f.feed = feed;
            more.accept(f);
        }), new ManualClock(T0), backend(dir));
        h.campaign(a);
        return a;
    }

    MetasrvNode follower(String id, java.util.function.Consumer<Settings.Fields> more) throws Exception {
        return h.deploy(NodeHarness.settings(id, dir.resolve(id), TTL, 0, 1_000).with(more::accept), new ManualClock(T0), null);
    }

    /** A write right after the campaign: an API instance may not have heard of its leadership yet. */
    long write(MetasrvNode node, JsonObject body) throws Exception {
        return write(node, body, null);
    }

    long write(MetasrvNode node, JsonObject body, String token) throws Exception {
        java.util.concurrent.atomic.AtomicReference<HttpResponse<Buffer>> answer = new java.util.concurrent.atomic.AtomicReference<>();
        String path = body.containsKey("ops") ? "/v1/txn" : "/v1/kv/cas";
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            var req = h.http.request(HttpMethod.POST, node.httpPort(), "127.0.0.1", path);
            if (token != null) req.bearerTokenAuthentication(token);
            HttpResponse<Buffer> r = NodeHarness.await(req.sendBuffer(Buffer.buffer(body.encode())));
            answer.set(r);
            return r.statusCode() != 503 || !r.bodyAsString().contains("not_leader");
        });
        assertThat(answer.get().statusCode()).as(answer.get().bodyAsString()).isEqualTo(200);
        return answer.get().bodyAsJsonObject().getLong("revision");
    }

    HttpResponse<Buffer> poll(MetasrvNode node, String query, String token) throws Exception {
        var req = h.http.request(HttpMethod.GET, node.httpPort(), "127.0.0.1", "/v1/watch?" + query);
        if (token != null) req.bearerTokenAuthentication(token);
        return NodeHarness.await(req.send());
    }

    /** Long polls from {@code after} until {@code count} events arrived; the revisions in the order served. */
    List<Long> watchUntil(MetasrvNode node, String prefix, long after, int count, String token, List<JsonObject> events) throws Exception {
        List<Long> seen = new ArrayList<>();
        long cursor = after;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seen.size() < count) {
            assertThat(System.nanoTime()).as("watch on %s saw %s of %d events", node.nodeId(), seen, count).isLessThan(deadline);
            HttpResponse<Buffer> r = poll(node, "prefix=" + prefix + "&after=" + cursor + "&wait_ms=1000", token);
            if (r.statusCode() == 503 && r.bodyAsString().contains("feed_not_ready")) continue;
            assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
            JsonObject page = r.bodyAsJsonObject();
            for (Object e : page.getJsonArray("events")) {
                JsonObject event = (JsonObject) e;
                seen.add(event.getLong("revision"));
                if (events != null) events.add(event);
            }
            long next = page.getLong("cursor");
            assertThat(next).as("the cursor never goes back").isGreaterThanOrEqualTo(cursor);
            cursor = next;
        }
        return seen;
    }

    /** An SSE stream's events as they arrive (the {@code id:} of each, and the named events). */
    static final class Sse {
        final List<Long> ids = new CopyOnWriteArrayList<>();
        final List<String> named = new CopyOnWriteArrayList<>();
        final List<String> opening = new CopyOnWriteArrayList<>();
        /** Each record event's {@code data:} line, parsed. */
        final List<JsonObject> data = new CopyOnWriteArrayList<>();
        volatile int status;
        private final StringBuilder pending = new StringBuilder();
        /** Where the search for the next event's end goes on: a large event arrives in many chunks, each searched once. */
        private int searched;

        void feed(Buffer chunk) {
            pending.append(chunk.toString(StandardCharsets.UTF_8));
            int end;
            while ((end = pending.indexOf("\n\n", Math.max(0, searched - 1))) >= 0) {
                String event = pending.substring(0, end);
                pending.delete(0, end + 2);
                searched = 0;
                // An `id:` without data (the stream's opening block) moves the last event id only.
                boolean data = event.contains("\ndata: ") || event.startsWith("data: ");
                for (String line : event.split("\n")) {
                    if (line.startsWith("id: ") && data && !event.contains("event: ")) ids.add(Long.parseLong(line.substring(4)));
                    if (line.startsWith("data: ") && !event.contains("event: ")) this.data.add(new JsonObject(line.substring(6)));
                    if (line.startsWith("event: ")) named.add(event);
                }
                if (!data && event.contains("id: ")) opening.add(event);
            }
            searched = pending.length();
        }
    }

    Sse sse(MetasrvNode node, String query) throws Exception {
        return sse(node, query, null);
    }

    /** An SSE stream of {@code /v1/watch?query}, with {@code Last-Event-ID} when given (as an EventSource reconnecting). */
    Sse sse(MetasrvNode node, String query, Long lastEventId) throws Exception {
        return sse(node, query, lastEventId, null);
    }

    /** As {@link #sse(MetasrvNode, String, Long)}, presenting {@code token} when given. */
    Sse sse(MetasrvNode node, String query, Long lastEventId, String token) throws Exception {
        Sse s = new Sse();
        HttpClient client = h.vertx.createHttpClient();
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET)
                .setHost("127.0.0.1").setPort(node.httpPort()).setURI("/v1/watch?" + query)
                .putHeader("Accept", "text/event-stream");
        if (lastEventId != null) options.putHeader("Last-Event-ID", Long.toString(lastEventId));
        if (token != null) options.putHeader("Authorization", "Bearer " + token);
        // The handler is set as the response arrives, on the event loop: no chunk is missed.
        NodeHarness.await(client.request(options)
                .compose(req -> req.send()).onSuccess(res -> {
                    s.status = res.statusCode();
                    res.handler(s::feed);
                }));
        return s;
    }

    static JsonObject value(String key, int bytes) {
        byte[] v = new byte[bytes];
        java.util.Arrays.fill(v, (byte) 'x');
        return new JsonObject().put("key", key).put("value", Base64.getEncoder().encodeToString(v));
    }

    /** Creates {@code prefix0} … {@code prefix(n-1)} on {@code node} all at once; their revisions, ascending. */
    List<Long> concurrentCreates(MetasrvNode node, String prefix, int n) throws Exception {
        List<Future<HttpResponse<Buffer>>> writes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            writes.add(h.http.post(node.httpPort(), "127.0.0.1", "/v1/kv/cas").sendJsonObject(cas(prefix + i, null, "v" + i)));
        }
        List<Long> applied = new ArrayList<>();
        for (Future<HttpResponse<Buffer>> w : writes) {
            HttpResponse<Buffer> r = NodeHarness.await(w);
            assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
            applied.add(r.bodyAsJsonObject().getLong("revision"));
        }
        applied.sort(Long::compare);
        return applied;
    }

    @Test
    void readersNeverSeeARevisionBelowOneAlreadyServed() throws Exception {
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, f -> {});
        MetasrvNode b = follower("b", f -> {});
        write(a, cas("order/first", null, "v"));
        // Concurrent writers: on DynamoDB their transactions commit in any order; watchers on the
        // leader and on a follower, long poll and SSE, must still see revisions only rise.
        Sse streamA = sse(a, "prefix=order/&after=0");
        Sse streamB = sse(b, "prefix=order/&after=0");
        List<Long> applied = concurrentCreates(a, "order/k", 120);
        List<Long> onA = watchUntil(a, "order/", 0, 121, null, null);
        List<Long> onB = watchUntil(b, "order/", 0, 121, null, null);
        assertThat(onA).isSorted().doesNotHaveDuplicates().containsAll(applied);
        assertThat(onB).isEqualTo(onA);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> streamA.ids.size() >= 121 && streamB.ids.size() >= 121);
        assertThat(streamA.ids.subList(1, 121)).as("SSE on the leader").isSorted().doesNotHaveDuplicates().containsExactlyElementsOf(applied);
        assertThat(streamB.ids).as("SSE on a follower").isEqualTo(streamA.ids);
        // The current revision is one a record holds: watching after it shows nothing already seen.
        long current = h.get(b, "/v1/revision").bodyAsJsonObject().getLong("revision");
        assertThat(current).isEqualTo(applied.get(applied.size() - 1));
        long next = write(a, cas("order/after", null, "v"));
        assertThat(watchUntil(b, "order/", current, 1, null, null)).containsExactly(next);
    }

    /**
     * More streams on one node than a wake serves in one task (so its pass goes on in later tasks,
     * while writes keep advancing the tail): every stream still sees every change, in order, once.
     */
    @Test
    void manyStreamsOnOneNodeEachSeeEveryChangeInOrder() throws Exception {
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, f -> {});
        long start = write(a, cas("many/first", null, "v"));
        List<Sse> streams = new ArrayList<>();
        for (int i = 0; i < 300; i++) streams.add(sse(a, "prefix=many/&after=" + start));
        List<Long> applied = concurrentCreates(a, "many/k", 40);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> streams.stream().allMatch(s -> s.ids.size() >= applied.size()));
        for (int i = 0; i < streams.size(); i++) {
            assertThat(streams.get(i).ids).as("stream %d", i).containsExactlyElementsOf(applied);
        }
    }

    @Test
    void watchFromCompactedRevisionIsGone() throws Exception {
        MetasrvNode a = leader("a", new FeedSettings(3_600_000, 3, 50), f -> {});
        MetasrvNode b = follower("b", f -> {});
        List<Long> revisions = new ArrayList<>();
        for (int i = 0; i < 10; i++) revisions.add(write(a, cas("gone/k" + i, null, "v")));
        // Retention keeps the newest three: the floor reaches the seventh revision.
        long floor = revisions.get(6);
        for (MetasrvNode n : List.of(a, b)) {
            // Each node learns the floor with the leader's next publication (its tail drops what compaction removed).
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                for (long after : List.of(0L, revisions.get(5))) {
                    HttpResponse<Buffer> r = poll(n, "after=" + after, null);
                    assertThat(r.statusCode()).as("after %d: %s", after, r.bodyAsString()).isEqualTo(410);
                    JsonObject e = r.bodyAsJsonObject().getJsonObject("error");
                    assertThat(e.getString("code")).isEqualTo("compacted");
                    assertThat(e.getLong("compact_revision")).isEqualTo(floor);
                    assertThat(e.getLong("oldest_revision")).as("the oldest revision still held").isEqualTo(revisions.get(7));
                }
            });
            Sse stream = sse(n, "after=" + revisions.get(0));
            assertThat(stream.status).as("a stream from a compacted revision is refused before it starts").isEqualTo(410);
            HttpResponse<Buffer> atFloor = poll(n, "after=" + floor, null);
            assertThat(atFloor.statusCode()).as(atFloor.bodyAsString()).isEqualTo(200);
            assertThat(atFloor.bodyAsJsonObject().getJsonArray("events").stream().map(e -> ((JsonObject) e).getLong("revision")).toList())
                    .containsExactlyElementsOf(revisions.subList(7, 10));
        }
    }

    @Test
    void slowWatcherIsCutOffWithoutSlowingWrites() throws Exception {
        // A tail of 32 records: a watcher more than that behind, reading nothing, is cut off.
        MetasrvNode a = leader("a", new FeedSettings(3_600_000, 1_000_000, 60_000, 32, 64L << 20), f -> {});
        write(a, cas("slow/first", null, "v"));
        Sse fast = sse(a, "prefix=slow/&after=0");
        try (Socket slow = new Socket()) {
            // A watcher that never reads: its socket buffers fill, then the node's bounded queue.
            slow.setReceiveBufferSize(4096);
            slow.connect(new java.net.InetSocketAddress("127.0.0.1", a.httpPort()));
            OutputStream out = slow.getOutputStream();
            out.write(("GET /v1/watch?prefix=slow/&after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // Every write is answered while the slow watcher reads nothing (~40 MB of events).
            List<Long> applied = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                applied.add(write(a, new JsonObject().put("ops", new io.vertx.core.json.JsonArray().add(value("slow/big" + i, 200 * 1024)))));
            }
            try {
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> fast.ids.size() >= 151);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("the other watcher got " + fast.ids.size() + " of 151 records in 60 s; its named events: "
                        + fast.named.stream().map(n -> n.length() > 300 ? n.substring(0, 300) : n).toList(), e);
            }
            assertThat(fast.ids.subList(1, 151)).as("the other watcher missed nothing").containsExactlyElementsOf(applied);
            assertThat(fast.named).as("the other watcher was not cut off").isEmpty();

            // Now the slow watcher reads what it was sent: its stream ends with the cut-off, naming
            // the last revision it was sent, and every event before it is whole and in order.
            String text = readAll(slow.getInputStream());
            int cut = text.indexOf("event: cutoff");
            assertThat(cut).as("the slow watcher was cut off").isPositive();
            JsonObject cutoff = new JsonObject(text.substring(text.indexOf("data: ", cut) + 6, text.indexOf("\n", text.indexOf("data: ", cut))));
            long resume = cutoff.getLong("resume_after");
            List<Long> sent = new ArrayList<>();
            for (String block : text.substring(0, cut).split("\n\n")) {
                if (!block.contains("data: ")) continue;
                for (String line : block.split("\n")) if (line.startsWith("id: ")) sent.add(Long.parseLong(line.substring(4)));
            }
            assertThat(sent).isNotEmpty().isSorted();
            assertThat(sent.get(sent.size() - 1)).isEqualTo(resume);
            assertThat(resume).as("cut off before the end").isLessThan(applied.get(applied.size() - 1));
            // Resuming where it was told misses nothing.
            assertThat(watchUntil(a, "slow/", resume, (int) applied.stream().filter(r -> r > resume).count(), null, null))
                    .containsExactlyElementsOf(applied.stream().filter(r -> r > resume).toList());
        }
        assertThat(h.get(a, "/metrics").bodyAsString()).containsPattern("lake_watch_cutoffs_total\\{[^}]*\\} [1-9]");
    }

    /** The chunked body of a response up to its end (the server closes the stream after the cut-off). */
    static String readAll(InputStream in) throws Exception {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            int n = in.read(buf);
            if (n < 0) break;
            all.write(buf, 0, n);
            // The chunked encoding's last chunk: the stream ended.
            if (all.size() >= 5 && new String(buf, Math.max(0, n - 5), Math.min(5, n), StandardCharsets.US_ASCII).equals("0\r\n\r\n")) break;
        }
        return all.toString(StandardCharsets.UTF_8);
    }

    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String TEAM_A = "team-a-token-0123456789abcdef";

    @Test
    void watcherSeesOnlyWhatItMayRead() throws Exception {
        java.util.function.Consumer<Settings.Fields> withTokens = adminAndTeamA();
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, withTokens);
        MetasrvNode b = follower("b", withTokens);
        long r1 = write(a, cas("a/1", null, "v"), ADMIN);
        write(a, cas("b/1", null, "v"), ADMIN);
        long r3 = write(a, new JsonObject().put("ops", new io.vertx.core.json.JsonArray()
                .add(value("a/2", 3)).add(value("b/2", 3))), ADMIN);
        long r4 = write(a, cas("b/3", null, "v"), ADMIN);

        for (MetasrvNode n : List.of(a, b)) {
            List<JsonObject> events = new ArrayList<>();
            assertThat(watchUntil(n, "", 0, 2, TEAM_A, events)).containsExactly(r1, r3);
            assertThat(events.get(1).getJsonArray("changes").stream().map(c -> ((JsonObject) c).getString("key")).toList())
                    .as("the transaction's record shows only the key the principal may read").containsExactly("a/2");
            // Under a prefix it may not read: nothing, but the cursor moves past what it may not see.
            HttpResponse<Buffer> hidden = poll(n, "prefix=b/&after=0", TEAM_A);
            assertThat(hidden.statusCode()).as(hidden.bodyAsString()).isEqualTo(200);
            assertThat(hidden.bodyAsJsonObject().getJsonArray("events")).isEmpty();
            assertThat(hidden.bodyAsJsonObject().getLong("cursor")).isEqualTo(r4);
            // The admin sees everything.
            assertThat(watchUntil(n, "", 0, 4, ADMIN, null)).hasSize(4).endsWith(r4);
            assertThat(poll(n, "after=0", null).statusCode()).as("no token, no watch").isEqualTo(401);
        }
    }

    /**
     * Streams of two principals open at once on one prefix, woken by the same writes: each
     * admin stream sees every record, each of team-a's only the records (and, in them, the keys)
     * it may read.
     */
    @Test
    void concurrentStreamsOfDifferentPrincipalsSeeOnlyTheirOwn() throws Exception {
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, adminAndTeamA());
        long start = write(a, cas("a/0", null, "v"), ADMIN);
        List<Sse> admins = new ArrayList<>();
        List<Sse> teams = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            admins.add(sse(a, "prefix=&after=" + start, null, ADMIN));
            teams.add(sse(a, "prefix=&after=" + start, null, TEAM_A));
        }
        List<Long> all = new ArrayList<>();
        List<Long> teamSees = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            all.add(write(a, cas("b/" + i, null, "v"), ADMIN));
            long both = write(a, new JsonObject().put("ops", new io.vertx.core.json.JsonArray()
                    .add(value("a/" + (i + 1), 3)).add(value("b/x" + i, 3))), ADMIN);
            all.add(both);
            teamSees.add(both);
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> admins.stream().allMatch(s -> s.ids.size() >= all.size())
                && teams.stream().allMatch(s -> s.ids.size() >= teamSees.size()));
        for (Sse s : admins) {
            assertThat(s.ids).as("every admin stream sees every write once, in order").isEqualTo(all);
            assertThat(s.data).isEqualTo(admins.get(0).data);
        }
        for (Sse s : teams) {
            assertThat(s.ids).as("team-a's streams see only the records with keys it may read").isEqualTo(teamSees);
            for (JsonObject e : s.data) {
                assertThat(e.getJsonArray("changes").stream().map(c -> ((JsonObject) c).getString("key")))
                        .as("and of them only those keys").allMatch(k -> k.startsWith("a/"));
            }
        }
    }

    /** Settings with a tokens file of two principals: {@code admin} ({@link #ADMIN}), and {@code team-a} ({@link #TEAM_A}), which may read {@code a/}. */
    java.util.function.Consumer<Settings.Fields> adminAndTeamA() throws Exception {
        Path tokens = dir.resolve("tokens.json");
        Files.writeString(tokens, "[" + entry("admin", "admin", ADMIN, "") + ","
                + entry("team-a", "read", TEAM_A, ",\"prefixes\":[\"a/\"]") + "]");
        Files.setPosixFilePermissions(tokens, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        return f -> {
            f.authTokens = AuthTokens.withFile(List.of(), tokens);
            f.security = new SecuritySettings(tokens, List.of());
        };
    }

    static String entry(String name, String access, String token, String grants) {
        return "{\"name\":\"" + name + "\",\"access\":\"" + access + "\",\"token_sha256\":\""
                + HexFormat.of().formatHex(AuthTokens.sha256(token)) + "\"" + grants + "}";
    }

    /** Catalog events from {@code after} until {@code count} arrived (long polls of {@code GET /v1/catalog/events} on {@code node}). */
    List<JsonObject> catalogEvents(MetasrvNode node, long after, int count, String token) throws Exception {
        List<JsonObject> events = new ArrayList<>();
        long cursor = after;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (events.size() < count) {
            assertThat(System.nanoTime()).as("catalog events on %s: %s of %d", node.nodeId(), events, count).isLessThan(deadline);
            var req = h.http.request(HttpMethod.GET, node.httpPort(), "127.0.0.1", "/v1/catalog/events?after=" + cursor + "&wait_ms=1000");
            if (token != null) req.bearerTokenAuthentication(token);
            HttpResponse<Buffer> r = NodeHarness.await(req.send());
            if (r.statusCode() == 503 && r.bodyAsString().contains("feed_not_ready")) continue;
            assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
            for (Object e : r.bodyAsJsonObject().getJsonArray("events")) events.add((JsonObject) e);
            cursor = r.bodyAsJsonObject().getLong("cursor");
        }
        return events;
    }

    @Test
    void catalogEventsNameEveryCatalogWriteWithTheRevisionItsReplyGave() throws Exception {
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, f -> {});
        MetasrvNode b = follower("b", f -> {});
        write(a, cas("kv/not-catalog", null, "v"));
        List<Long> replied = new ArrayList<>();
        replied.add(catalogWrite(a, HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", "robots")));
        replied.add(catalogWrite(a, HttpMethod.POST, "/v1/namespaces/robots/tables",
                new JsonObject().put("name", "episodes").put("columns", new io.vertx.core.json.JsonArray().add("id:i64"))));
        String incarnation = h.get(a, "/v1/namespaces/robots/tables/episodes").bodyAsJsonObject().getJsonObject("registration").getString("incarnation_id");
        replied.add(catalogWrite(a, HttpMethod.POST, "/v1/namespaces/robots/tables/episodes/versions",
                new JsonObject().put("expected_version", 0).put("version", 1).put("incarnation_id", incarnation)));
        replied.add(catalogWrite(a, HttpMethod.DELETE, "/v1/namespaces/robots/tables/episodes", null));
        replied.add(catalogWrite(a, HttpMethod.DELETE, "/v1/namespaces/robots", null));

        List<JsonObject> events = catalogEvents(b, 0, 5, null);
        assertThat(events).extracting(e -> e.getLong("revision")).as("each reply's revision is its event's").containsExactlyElementsOf(replied);
        assertThat(events).extracting(e -> e.getJsonObject("event").getString("type")).containsExactly(
                "namespace_created", "table_created", "table_version_committed", "table_dropped", "namespace_dropped");
        assertThat(events).allMatch(e -> !e.containsKey("changes")).allMatch(e -> e.getJsonObject("event").getString("namespace").equals("robots"));
        assertThat(events.get(1).getJsonObject("event").getString("incarnation_id")).isEqualTo(incarnation);
        assertThat(events.get(2).getJsonObject("event").getLong("version")).isEqualTo(1L);
        // The same records in the key feed carry the event beside the keys they changed.
        HttpResponse<Buffer> kv = poll(b, "after=" + (replied.get(0) - 1) + "&limit=1", null);
        assertThat(kv.bodyAsJsonObject().getJsonArray("events").getJsonObject(0).getJsonObject("event").getString("type")).isEqualTo("namespace_created");
        assertThat(kv.bodyAsJsonObject().getJsonArray("events").getJsonObject(0).getJsonArray("changes")).isNotEmpty();
    }

    long catalogWrite(MetasrvNode node, HttpMethod method, String path, JsonObject body) throws Exception {
        HttpResponse<Buffer> r = h.send(node, method, path, body == null ? null : body.encode());
        assertThat(r.statusCode()).as(path + ": " + r.bodyAsString()).isEqualTo(200);
        return r.bodyAsJsonObject().getLong("revision");
    }

    @Test
    void icebergCommitEventsMatchSnapshots() throws Exception {
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, f -> {});
        MetasrvNode b = follower("b", f -> {});
        long start = h.get(a, "/v1/revision").statusCode() == 200 ? h.get(a, "/v1/revision").bodyAsJsonObject().getLong("revision") : 0;
        org.apache.iceberg.rest.RESTCatalog iceberg = new org.apache.iceberg.rest.RESTCatalog();
        iceberg.setConf(new org.apache.hadoop.conf.Configuration());
        iceberg.initialize("events", java.util.Map.of("uri", "http://127.0.0.1:" + a.httpPort() + "/iceberg"));
        try {
            org.apache.iceberg.catalog.TableIdentifier id = org.apache.iceberg.catalog.TableIdentifier.of("lab", "runs");
            iceberg.createNamespace(org.apache.iceberg.catalog.Namespace.of("lab"));
            org.apache.iceberg.Table table = iceberg.buildTable(id, new org.apache.iceberg.Schema(
                    org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.LongType.get()))).create();
            for (int i = 0; i < 4; i++) {
                table.newFastAppend().appendFile(org.apache.iceberg.DataFiles.builder(org.apache.iceberg.PartitionSpec.unpartitioned())
                        .withPath(dir.resolve("data-" + i + ".parquet").toString()).withFileSizeInBytes(100).withRecordCount(1).build()).commit();
            }
            table.refresh();
            List<JsonObject> events = catalogEvents(b, start, 6, null);
            assertThat(events).extracting(e -> e.getJsonObject("event").getString("type"))
                    .containsExactly("namespace_created", "table_created", "tables_committed", "tables_committed", "tables_committed", "tables_committed");
            assertThat(events).extracting(e -> e.getLong("revision")).isSorted().doesNotHaveDuplicates();
            JsonObject created = events.get(1).getJsonObject("event");
            assertThat(created.getString("table_uuid")).isEqualTo(table.uuid().toString());
            List<Long> committedSnapshots = new ArrayList<>();
            String previous = created.getString("metadata_location");
            for (JsonObject e : events.subList(2, 6)) {
                JsonObject t = e.getJsonObject("event").getJsonArray("tables").getJsonObject(0);
                assertThat(t.getString("namespace") + "." + t.getString("name")).isEqualTo("lab.runs");
                assertThat(t.getString("previous_metadata_location")).as("each commit follows the last").isEqualTo(previous);
                previous = t.getString("metadata_location");
                for (Object s : t.getJsonArray("added_snapshot_ids")) committedSnapshots.add(((Number) s).longValue());
                assertThat(t.getLong("current_snapshot_id")).isEqualTo(committedSnapshots.get(committedSnapshots.size() - 1));
            }
            assertThat(committedSnapshots).as("the events name exactly the committed snapshots, in order")
                    .containsExactlyElementsOf(java.util.stream.StreamSupport.stream(table.snapshots().spliterator(), false)
                            .map(org.apache.iceberg.Snapshot::snapshotId).toList());
            assertThat(previous).isEqualTo(((org.apache.iceberg.BaseTable) table).operations().current().metadataFileLocation());
        } finally {
            iceberg.close();
        }
    }

    /** POST /iceberg/v1/events with {@code body} (and {@code accept}), on {@code node}. */
    HttpResponse<Buffer> icebergEvents(MetasrvNode node, JsonObject body, String accept) throws Exception {
        var req = h.http.request(HttpMethod.POST, node.httpPort(), "127.0.0.1", "/iceberg/v1/events");
        if (accept != null) req.putHeader("Accept", accept);
        return NodeHarness.await(req.sendJsonObject(body));
    }

    /** Every event the proposal's query gives on {@code node} for {@code query}, following continuation tokens to the end. */
    List<JsonObject> allIcebergEvents(MetasrvNode node, JsonObject query) throws Exception {
        List<JsonObject> all = new ArrayList<>();
        JsonObject q = query.copy();
        for (int pages = 0; pages < 1_000; pages++) {
            HttpResponse<Buffer> r = icebergEvents(node, q, null);
            assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
            JsonObject page = r.bodyAsJsonObject();
            for (Object e : page.getJsonArray("events")) all.add((JsonObject) e);
            String next = page.getString("continuation-token");
            assertThat(next).isNotNull();
            if (next.equals(q.getString("continuation-token"))) return all;
            q.put("continuation-token", next);
        }
        throw new AssertionError("the continuation tokens never settled");
    }

    /**
     * The Iceberg face's events (issue 36), in the shape of the open events proposal (apache/iceberg
     * PR 12584): every Iceberg change of the catalog in commit order, each naming the object's UUID
     * and, for creates and commits, the metadata updates Iceberg's own parser reads back; filters,
     * pages and continuation tokens; the CloudEvents form; served by a follower.
     */
    @Test
    void icebergEventsFollowTheEventsProposal() throws Exception {
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, f -> {});
        MetasrvNode b = follower("b", f -> {});
        org.apache.iceberg.rest.RESTCatalog iceberg = new org.apache.iceberg.rest.RESTCatalog();
        iceberg.setConf(new org.apache.hadoop.conf.Configuration());
        iceberg.initialize("events", java.util.Map.of("uri", "http://127.0.0.1:" + a.httpPort() + "/iceberg"));
        try {
            assertThat(iceberg.listNamespaces()).isEmpty();
            org.apache.iceberg.catalog.Namespace lab = org.apache.iceberg.catalog.Namespace.of("lab", "day 1");
            org.apache.iceberg.catalog.TableIdentifier id = org.apache.iceberg.catalog.TableIdentifier.of(lab, "runs");
            org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
                    org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.LongType.get()));
            iceberg.createNamespace(lab);
            org.apache.iceberg.Table table = iceberg.buildTable(id, schema).create();
            for (int i = 0; i < 2; i++) {
                table.newFastAppend().appendFile(org.apache.iceberg.DataFiles.builder(org.apache.iceberg.PartitionSpec.unpartitioned())
                        .withPath(dir.resolve("data-" + i + ".parquet").toString()).withFileSizeInBytes(100).withRecordCount(1).build()).commit();
            }
            table.refresh();
            org.apache.iceberg.catalog.TableIdentifier viewId = org.apache.iceberg.catalog.TableIdentifier.of(lab, "recent");
            org.apache.iceberg.view.View view = iceberg.buildView(viewId).withSchema(schema).withDefaultNamespace(lab)
                    .withQuery("spark", "select id from runs").create();
            org.apache.iceberg.catalog.TableIdentifier moved = org.apache.iceberg.catalog.TableIdentifier.of(lab, "runs_old");
            iceberg.renameTable(id, moved);
            iceberg.dropTable(moved, false);
            iceberg.setProperties(lab, new java.util.HashMap<>(java.util.Map.of("owner", "robots")));
            iceberg.dropView(viewId);
            iceberg.dropNamespace(lab);
            // A lake table has no Iceberg operation: its events stay out.
            assertThat(h.post(a, "/v1/namespaces", new JsonObject().put("namespace", "plain")).statusCode()).isEqualTo(200);
            assertThat(h.post(a, "/v1/namespaces/plain/tables", new JsonObject().put("name", "t").put("columns", new JsonArray().add("id:i64")))
                    .statusCode()).isEqualTo(200);

            List<String> expected = List.of("create-namespace", "create-table", "update-table", "update-table", "create-view",
                    "rename-table", "drop-table", "update-namespace-properties", "drop-view", "drop-namespace", "create-namespace");
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> allIcebergEvents(b, new JsonObject()).size() >= expected.size());
            List<JsonObject> events = allIcebergEvents(b, new JsonObject());
            List<JsonObject> ops = events.stream().map(e -> e.getJsonObject("operation")).toList();
            assertThat(ops).extracting(o -> o.getString("operation-type")).containsExactlyElementsOf(expected);
            assertThat(events).extracting(e -> e.getString("event-id")).doesNotHaveDuplicates();
            assertThat(events).extracting(e -> Long.parseLong(e.getString("request-id"))).as("in commit order").isSorted();
            assertThat(events).allSatisfy(e -> assertThat(e.getInteger("request-event-count")).isEqualTo(1));
            // Names are Iceberg's: levels and the table's own name, whatever the catalog's escaping.
            JsonObject runs = new JsonObject().put("namespace", new JsonArray().add("lab").add("day 1")).put("name", "runs");
            assertThat(ops.get(0).getJsonArray("namespace")).isEqualTo(runs.getJsonArray("namespace"));
            String uuid = table.uuid().toString();
            JsonObject create = ops.get(1);
            assertThat(create.getJsonObject("identifier")).isEqualTo(runs);
            assertThat(create.getString("table-uuid")).isEqualTo(uuid);
            List<org.apache.iceberg.MetadataUpdate> created = create.getJsonArray("updates").stream()
                    .map(u -> org.apache.iceberg.MetadataUpdateParser.fromJson(((JsonObject) u).encode())).toList();
            assertThat(created).filteredOn(u -> u instanceof org.apache.iceberg.MetadataUpdate.AssignUUID)
                    .singleElement().satisfies(u -> assertThat(((org.apache.iceberg.MetadataUpdate.AssignUUID) u).uuid()).isEqualTo(uuid));
            List<Long> added = new ArrayList<>();
            for (JsonObject commit : ops.subList(2, 4)) {
                assertThat(commit.getString("table-uuid")).isEqualTo(uuid);
                for (Object u : commit.getJsonArray("updates")) {
                    if (org.apache.iceberg.MetadataUpdateParser.fromJson(((JsonObject) u).encode())
                            instanceof org.apache.iceberg.MetadataUpdate.AddSnapshot s) added.add(s.snapshot().snapshotId());
                }
            }
            assertThat(added).as("the commits' updates add exactly the table's snapshots, in order")
                    .containsExactlyElementsOf(java.util.stream.StreamSupport.stream(table.snapshots().spliterator(), false)
                            .map(org.apache.iceberg.Snapshot::snapshotId).toList());
            assertThat(ops.get(4).getString("view-uuid")).isEqualTo(view.uuid().toString());
            assertThat(ops.get(5).getJsonObject("source")).isEqualTo(runs);
            assertThat(ops.get(5).getJsonObject("destination").getString("name")).isEqualTo("runs_old");
            assertThat(ops.get(5).getString("table-uuid")).isEqualTo(uuid);
            assertThat(ops.get(6).getString("table-uuid")).as("a drop names what it dropped").isEqualTo(uuid);
            assertThat(ops.get(7).getJsonArray("updated")).containsExactly("owner");
            assertThat(ops.get(8).getString("view-uuid")).isEqualTo(view.uuid().toString());

            // One page at a time, the tokens give the same events; a token past the end gives none.
            assertThat(allIcebergEvents(b, new JsonObject().put("page-size", 1))).isEqualTo(events);
            // Filters.
            assertThat(allIcebergEvents(b, new JsonObject().put("operation-types", new JsonArray().add("update-table"))))
                    .isEqualTo(events.subList(2, 4));
            assertThat(allIcebergEvents(b, new JsonObject().put("catalog-objects-by-id",
                    new JsonArray().add(new JsonObject().put("uuid", uuid).put("type", "table")))))
                    .extracting(e -> e.getJsonObject("operation").getString("operation-type"))
                    .containsExactly("create-table", "update-table", "update-table", "rename-table", "drop-table");
            assertThat(allIcebergEvents(b, new JsonObject().put("catalog-objects-by-name", new JsonArray().add(new JsonArray().add("lab").add("day 1").add("runs")))))
                    .extracting(e -> e.getJsonObject("operation").getString("operation-type"))
                    .as("the rename's source names it").containsExactly("create-table", "update-table", "update-table", "rename-table");
            assertThat(allIcebergEvents(b, new JsonObject().put("object-types", new JsonArray().add("namespace")))).hasSize(4);
            long lastAt = events.get(events.size() - 1).getLong("timestamp-ms");
            HttpResponse<Buffer> later = icebergEvents(b, new JsonObject().put("after-timestamp-ms", lastAt), null);
            assertThat(later.bodyAsJsonObject().getJsonArray("events")).isEmpty();
            assertThat(later.bodyAsJsonObject().getLong("highest-processed-timestamp-ms")).isGreaterThanOrEqualTo(lastAt);

            // The CloudEvents form: the same events, each the data of a CloudEvent.
            HttpResponse<Buffer> batch = icebergEvents(b, new JsonObject().put("page-size", 1_000), "application/cloudevents-batch+json");
            assertThat(batch.getHeader("Content-Type")).isEqualTo("application/cloudevents-batch+json");
            assertThat(batch.getHeader("Iceberg-Continuation-Token")).isNotEmpty();
            JsonArray ces = batch.bodyAsJsonArray();
            assertThat(ces.stream().map(c -> ((JsonObject) c).getJsonObject("data")).toList()).isEqualTo(events);
            JsonObject first = ces.getJsonObject(0);
            assertThat(first.getString("specversion")).isEqualTo("1.0");
            assertThat(first.getString("id")).isEqualTo(events.get(0).getString("event-id"));
            assertThat(first.getString("type")).isEqualTo("org.apache.iceberg.catalog.create-namespace");
            assertThat(first.getString("source")).startsWith("urn:lake-metasrv:");

            // Strict input: Iceberg's error model names what is wrong.
            for (JsonObject bad : List.of(new JsonObject().put("page-size", 0), new JsonObject().put("bogus", 1),
                    new JsonObject().put("custom-filters", new JsonObject().put("x", 1)),
                    new JsonObject().put("operation-types", new JsonArray().add("explode-table")),
                    new JsonObject().put("continuation-token", "not-ours"))) {
                HttpResponse<Buffer> r = icebergEvents(b, bad, null);
                assertThat(r.statusCode()).as(bad.encode()).isEqualTo(400);
                assertThat(r.bodyAsJsonObject().getJsonObject("error").getString("type")).isEqualTo("BadRequestException");
            }
            assertThat(h.get(a, "/iceberg/v1/config").bodyAsJsonObject().getJsonArray("endpoints")).contains("POST /v1/{prefix}/events");
        } finally {
            iceberg.close();
        }
    }

    /** A node that has not heard the feed's position from a leader issues no token: 503, retry. */
    @Test
    void icebergEventsWaitForTheFeedsPosition() throws Exception {
        // No campaign: nobody leads, so no publication ever reaches this node's tail.
        MetasrvNode alone = h.deploy(NodeHarness.settings("alone", dir.resolve("alone"), TTL, 0, 1_000), new ManualClock(T0), backend(dir));
        HttpResponse<Buffer> r = icebergEvents(alone, new JsonObject(), null);
        assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(503);
        assertThat(r.bodyAsJsonObject().getJsonObject("error").getString("type")).isEqualTo("ServiceUnavailableException");
        assertThat(r.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("has not yet heard");
    }

    /** A continuation token whose revision was compacted answers 410; without a token the query starts at the oldest event held. */
    @Test
    void icebergEventsTokenExpiresWithCompaction() throws Exception {
        MetasrvNode a = leader("a", new FeedSettings(3_600_000, 3, 50), f -> {});
        assertThat(h.post(a, "/v1/namespaces", new JsonObject().put("namespace", "first")).statusCode()).isEqualTo(200);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !allIcebergEvents(a, new JsonObject()).isEmpty());
        HttpResponse<Buffer> page = icebergEvents(a, new JsonObject(), null);
        String token = page.bodyAsJsonObject().getString("continuation-token");
        for (int i = 0; i < 6; i++) write(a, cas("expire/k" + i, null, "v"));
        assertThat(h.post(a, "/v1/namespaces", new JsonObject().put("namespace", "second")).statusCode()).isEqualTo(200);
        for (int i = 6; i < 12; i++) write(a, cas("expire/k" + i, null, "v"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<Buffer> gone = icebergEvents(a, new JsonObject().put("continuation-token", token), null);
            assertThat(gone.statusCode()).as(gone.bodyAsString()).isEqualTo(410);
            assertThat(gone.bodyAsJsonObject().getJsonObject("error").getString("message")).contains("compacted");
        });
        // Without a token: from the oldest event held, which retention (the newest three records) keeps.
        assertThat(h.post(a, "/v1/namespaces", new JsonObject().put("namespace", "third")).statusCode()).isEqualTo(200);
        Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<Buffer> fresh = icebergEvents(a, new JsonObject(), null);
            assertThat(fresh.statusCode()).as(fresh.bodyAsString()).isEqualTo(200);
            assertThat(fresh.bodyAsJsonObject().getJsonArray("events").stream()
                    .map(e -> ((JsonObject) e).getJsonObject("operation").getJsonArray("namespace").getString(0)).toList())
                    .as("the first and second namespaces' events are compacted").containsExactly("third");
        });
    }

    @Test
    void streamResumesAfterLastEventIdAndStartsAtTheCurrentRevisionWithoutAfter() throws Exception {
        MetasrvNode a = leader("a", FeedSettings.DEFAULTS, f -> {});
        long r1 = write(a, cas("sse/1", null, "v"));
        long r2 = write(a, cas("sse/2", null, "v"));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> h.get(a, "/v1/revision").statusCode() == 200
                && h.get(a, "/v1/revision").bodyAsJsonObject().getLong("revision") >= r2);
        // Without `after`: changes from now on; the opening block names where it stands.
        Sse fromNow = sse(a, "prefix=sse/");
        // An EventSource reconnecting after r1: Last-Event-ID wins over `after`.
        Sse resumed = sse(a, "prefix=sse/&after=0", r1);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !fromNow.opening.isEmpty());
        assertThat(fromNow.opening.get(0)).contains("id: " + r2);
        long r3 = write(a, cas("sse/3", null, "v"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> fromNow.ids.size() >= 1 && resumed.ids.size() >= 2);
        assertThat(fromNow.ids).containsExactly(r3);
        assertThat(resumed.ids).containsExactly(r2, r3);
        HttpResponse<Buffer> bad = poll(a, "after=-1", null);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.bodyAsString()).contains("query parameter 'after'");
    }

    /** A catalog write sent again while the node's API instances learn it leads (503 not_leader right after a campaign). */
    long catalogWriteWhenLeading(MetasrvNode node, HttpMethod method, String path, JsonObject body) throws Exception {
        java.util.concurrent.atomic.AtomicReference<HttpResponse<Buffer>> answer = new java.util.concurrent.atomic.AtomicReference<>();
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            HttpResponse<Buffer> r = h.send(node, method, path, body == null ? null : body.encode());
            answer.set(r);
            return r.statusCode() != 503 || !r.bodyAsString().contains("not_leader");
        });
        assertThat(answer.get().statusCode()).as(path + ": " + answer.get().bodyAsString()).isEqualTo(200);
        return answer.get().bodyAsJsonObject().getLong("revision");
    }

    @Test
    void webhookDeliversEveryEventAfterFailover() throws Exception {
        // The receiver records every CloudEvent's id; its first answer is a failure (delivery is retried).
        List<Long> received = new CopyOnWriteArrayList<>();
        List<JsonObject> cloudEvents = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger posts = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean refusing = new java.util.concurrent.atomic.AtomicBoolean();
        List<String> contentTypes = new CopyOnWriteArrayList<>();
        io.vertx.core.http.HttpServer sink = NodeHarness.await(h.vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
            if (posts.incrementAndGet() == 1 || refusing.get()) {
                req.response().setStatusCode(503).end();
                return;
            }
            if (!"application/cloudevents-batch+json".equals(req.getHeader("Content-Type"))) contentTypes.add(req.getHeader("Content-Type"));
            for (Object e : new io.vertx.core.json.JsonArray(b.toString())) {
                cloudEvents.add((JsonObject) e);
                received.add(Long.parseLong(((JsonObject) e).getString("id")));
            }
            req.response().setStatusCode(204).end();
        })).listen(0, "127.0.0.1"));
        Path hooks = dir.resolve("webhooks.json");
        Files.writeString(hooks, "[{\"name\":\"ci\",\"url\":\"http://127.0.0.1:" + sink.actualPort() + "/events\"}]");
        FeedSettings feed = FeedSettings.DEFAULTS.withWebhooks(lake.config.Webhook.load(hooks));
        MetasrvNode a = leader("a", feed, f -> {});
        MetasrvNode b = h.deploy(NodeHarness.settings("b", dir.resolve("b"), TTL, 0, 1_000).with(f -> f.feed = feed),
                new ManualClock(T0 + TTL), null);
        // A webhook delivers the changes from its first start on: that start stores its cursor.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> h.get(a, "/v1/kv/__lake_internal/webhooks/ci").statusCode() == 200);
        List<Long> events = new ArrayList<>();
        events.add(catalogWrite(a, HttpMethod.POST, "/v1/namespaces", new JsonObject().put("namespace", "hooks")));
        events.add(catalogWrite(a, HttpMethod.POST, "/v1/namespaces/hooks/tables",
                new JsonObject().put("name", "t1").put("columns", new io.vertx.core.json.JsonArray().add("id:i64"))));
        write(a, cas("kv/not-an-event", null, "v"));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> received.containsAll(events));

        // The receiver is down: a commits one more event it cannot deliver (its cursor stays behind it).
        refusing.set(true);
        int refusedBefore = posts.get();
        events.add(catalogWrite(a, HttpMethod.POST, "/v1/namespaces/hooks/tables",
                new JsonObject().put("name", "t0").put("columns", new io.vertx.core.json.JsonArray().add("id:i64"))));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> posts.get() > refusedBefore);

        // b takes over; a, paused in time, learns it lost the lease at its next write (fenced) and stops delivering.
        assertThat(h.campaign(b).epoch()).isEqualTo(2L);
        ApiFixture.expectError(h.post(a, "/v1/kv/cas", cas("kv/after-takeover", null, "v")), 409, "fenced", "epoch 1");
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !h.status(a).isLeader());
        refusing.set(false);
        events.add(catalogWriteWhenLeading(b, HttpMethod.POST, "/v1/namespaces/hooks/tables",
                new JsonObject().put("name", "t2").put("columns", new io.vertx.core.json.JsonArray().add("id:i64"))));
        events.add(catalogWriteWhenLeading(b, HttpMethod.DELETE, "/v1/namespaces/hooks/tables/t1", null));
        events.add(catalogWriteWhenLeading(b, HttpMethod.DELETE, "/v1/namespaces/hooks/tables/t2", null));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> received.containsAll(events));

        List<Long> firstReceipts = received.stream().distinct().toList();
        // The event a could not deliver came from b, which resumed after the stored cursor.
        assertThat(firstReceipts).as("every event, first received in revision order; nothing else").containsExactlyElementsOf(events);
        JsonObject created = cloudEvents.stream().filter(e -> e.getString("id").equals(Long.toString(events.get(1)))).findFirst().orElseThrow();
        assertThat(created.getString("specversion")).isEqualTo("1.0");
        assertThat(created.getString("type")).isEqualTo("io.lake.catalog.table_created");
        assertThat(created.getString("subject")).isEqualTo("hooks/t1");
        assertThat(created.getJsonObject("data").getJsonObject("event").getString("name")).isEqualTo("t1");
        assertThat(posts.get()).as("the refused first POST was sent again").isGreaterThan(1);
        assertThat(h.get(b, "/metrics").bodyAsString()).as("the new leader counts what it delivered")
                .containsPattern("lake_webhook_delivered_total\\{node=\"b\",webhook=\"ci\"\\} [1-9]");
        assertThat(h.get(a, "/metrics").bodyAsString()).as("the old leader counts its refused POSTs")
                .containsPattern("lake_webhook_failures_total\\{node=\"a\",webhook=\"ci\"\\} [1-9]");
        assertThat(contentTypes).as("every POST a CloudEvents batch").isEmpty();
        // The stored cursor ends at the last event acknowledged.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            HttpResponse<Buffer> cursor = h.get(b, "/v1/kv/__lake_internal/webhooks/ci");
            return cursor.statusCode() == 200 && new String(java.util.Base64.getDecoder().decode(cursor.bodyAsJsonObject().getString("value")),
                    StandardCharsets.US_ASCII).equals(Long.toString(events.get(events.size() - 1)));
        });
    }
}
