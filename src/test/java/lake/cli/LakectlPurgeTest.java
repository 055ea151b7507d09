package lake.cli;

import io.vertx.core.json.JsonObject;
import lake.config.AuthTokens;
import lake.config.LifecycleSettings;
import lake.config.access.AuthToken;
import lake.node.MetasrvNode;
import lake.node.NodeHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lakectl's purge commands in process against a real node (RocksDB, tokens required): a drop
 * with {@code --purge}, {@code table purge}, {@code table purges} and the expiry
 * {@code table dropped} shows. The node's purge worker runs once a day
 * ({@link NodeHarness#LIFECYCLE}), so a queued job stays queued while the test reads it.
 */
class LakectlPurgeTest {
    static final String ADMIN = "admin-token-0123456789abcdef";
    static final String WRITER = "writer-token-0123456789abcdef";

    @TempDir Path dir;
    NodeHarness h;
    int port;

    record Run(int exit, String out, String err) {
        /** The text rows (header first), each split on its column gaps. */
        List<List<String>> rows() {
            return out.lines().map(l -> Arrays.asList(l.trim().split("\\s{2,}"))).toList();
        }
    }

    @BeforeEach
    void node() throws Exception {
        h = new NodeHarness();
        List<AuthToken> tokens = List.of(
                new AuthToken("operator", AuthTokens.sha256(ADMIN), AuthToken.Access.ADMIN, null, null),
                new AuthToken("writer", AuthTokens.sha256(WRITER), AuthToken.Access.READ_WRITE, null, null, null, List.of()));
        MetasrvNode node = h.publicLeader(NodeHarness.settings("a", dir.resolve("a"), 10_000, 0, 1_000).with(f -> f.authTokens = tokens));
        port = node.httpPort();
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    Run lakectl(String token, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Lakectl.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("LAKECTL_TOKEN", token, "LAKECTL_ENDPOINTS", "http://127.0.0.1:" + port));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8).strip());
    }

    Run admin(String... args) {
        Run r = lakectl(ADMIN, args);
        assertThat(r.exit()).as("lakectl %s: %s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    /** Creates robots/{name} and answers its incarnation id. */
    String table(String name) {
        Run created = admin("-o", "json", "table", "create", "robots", name, "-c", "id:i64");
        return new JsonObject(created.out()).getJsonObject("registration").getString("incarnation_id");
    }

    @Test
    void dropWithPurgeIsListedByTablePurgesAsQueued() {
        admin("ns", "create", "robots");
        String episodes = table("episodes");

        assertThat(admin("table", "drop", "robots", "episodes", "--purge").out())
                .isEqualTo("dropped table robots/episodes (incarnation " + episodes + "); purge queued\n");
        Run purges = admin("table", "purges");
        assertThat(purges.rows()).containsExactly(
                List.of("NAMESPACE", "TABLE", "INCARNATION", "STATE", "PHASE", "REASON", "DELETED", "MESSAGE"),
                List.of("robots", "episodes", episodes, "queued", "-", "requested", "0", "-"));
        JsonObject job = new JsonObject(admin("-o", "json", "table", "purges").out().strip());
        assertThat(job.getString("incarnation_id")).isEqualTo(episodes);
        assertThat(job.getString("state")).isEqualTo("queued");
        assertThat(job.getLong("deleted")).isZero();

        table("frames");
        JsonObject dropped = new JsonObject(admin("-o", "json", "table", "drop", "robots", "frames", "--purge").out());
        assertThat(dropped.getString("purge")).as("the API's reply: the tombstone and purge queued").isEqualTo("queued");
        assertThat(admin("table", "purges").rows()).extracting(r -> r.get(1)).containsExactly("TABLE", "episodes", "frames");
    }

    /**
     * {@code table undrop} restores the dropped incarnation (the same id), and says why when it
     * cannot: exit 1 while the name is taken (give {@code --to-name}), exit 2 when the name was
     * dropped more than once (give {@code --incarnation}); {@code --to-name} restores under another name.
     */
    @Test
    void tableUndropRestoresTheIncarnationAndSaysWhyWhenItCannot() {
        admin("ns", "create", "robots");
        String first = table("episodes");
        admin("table", "drop", "robots", "episodes");
        String second = table("episodes");

        Run taken = lakectl(ADMIN, "table", "undrop", "robots", "episodes", "--incarnation", first);
        assertThat(taken.exit()).as(taken.err()).isEqualTo(1);
        assertThat(taken.err()).contains("robots");
        admin("table", "drop", "robots", "episodes");
        Run ambiguous = lakectl(ADMIN, "table", "undrop", "robots", "episodes");
        assertThat(ambiguous.exit()).as(ambiguous.err()).isEqualTo(2);

        assertThat(admin("table", "undrop", "robots", "episodes", "--incarnation", first).out())
                .isEqualTo("undropped table robots/episodes (incarnation " + first + ")\n");
        JsonObject other = new JsonObject(admin("-o", "json", "table", "undrop", "robots", "episodes", "--incarnation", second,
                "--to-name", "episodes2").out());
        assertThat(other.getString("name")).isEqualTo("episodes2");
        assertThat(other.getJsonObject("registration").getString("incarnation_id")).as("the same incarnation, under another name").isEqualTo(second);
        assertThat(admin("table", "dropped").rows()).as("nothing left dropped: the header only").hasSize(1);
    }

    @Test
    void tablePurgeQueuesADroppedTableAndDroppedShowsWhenItExpires() {
        admin("ns", "create", "robots");
        String episodes = table("episodes");
        admin("table", "drop", "robots", "episodes");
        assertThat(admin("table", "purges").rows()).as("a plain drop queues nothing: the header only").hasSize(1);

        JsonObject tombstone = new JsonObject(admin("-o", "json", "table", "dropped").out().strip());
        long droppedMs = tombstone.getLong("dropped_ms");
        assertThat(tombstone.getLong("expires_ms")).isEqualTo(droppedMs + LifecycleSettings.DEFAULTS.tableRetentionMs());
        assertThat(admin("table", "dropped").rows()).containsExactly(
                List.of("NAMESPACE", "TABLE", "ENGINE", "INCARNATION", "DROPPED", "EXPIRES"),
                List.of("robots", "episodes", "lance", episodes, Instant.ofEpochMilli(droppedMs).toString(),
                        Instant.ofEpochMilli(droppedMs + LifecycleSettings.DEFAULTS.tableRetentionMs()).toString()));

        assertThat(admin("table", "purge", "robots", "episodes", episodes).out())
                .isEqualTo("purge of robots/episodes (incarnation " + episodes + ") queued\n");
        JsonObject job = new JsonObject(admin("-o", "json", "table", "purge", "robots", "episodes", episodes).out());
        assertThat(job.getString("state")).as("asked again: the same job").isEqualTo("queued");
        assertThat(job.getString("reason")).isEqualTo("requested");
        assertThat(admin("table", "purges").rows()).hasSize(2)
                .element(1).isEqualTo(List.of("robots", "episodes", episodes, "queued", "-", "requested", "0", "-"));
    }

    /**
     * A view dropped at the Iceberg face is a tombstone as a table's is: {@code table dropped}
     * lists it with its engine, {@code iceberg-view}, and {@code table undrop} restores it, saying
     * it is a view: the Iceberg client loads the same view (its UUID) again.
     */
    @Test
    void droppedViewIsListedWithItsEngineAndUndropRestoresIt() throws Exception {
        admin("ns", "create", "robots");
        org.apache.iceberg.catalog.TableIdentifier id = org.apache.iceberg.catalog.TableIdentifier.of("robots", "v");
        try (org.apache.iceberg.rest.RESTCatalog c = new org.apache.iceberg.rest.RESTCatalog()) {
            c.initialize("lakectl-test", Map.of("uri", "http://127.0.0.1:" + port + "/iceberg", "token", ADMIN,
                    "io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO", "http-client.type", "urlconnection"));
            org.apache.iceberg.Schema schema = new org.apache.iceberg.Schema(
                    org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.LongType.get()));
            String uuid = c.buildView(id).withSchema(schema).withDefaultNamespace(id.namespace()).withQuery("spark", "select 1 as id")
                    .create().uuid().toString();
            assertThat(c.dropView(id)).isTrue();

            List<List<String>> rows = admin("table", "dropped").rows();
            assertThat(rows).hasSize(2);
            assertThat(rows.get(1).subList(0, 3)).isEqualTo(List.of("robots", "v", "iceberg-view"));
            String incarnation = rows.get(1).get(3);
            assertThat(admin("table", "undrop", "robots", "v").out()).isEqualTo("undropped view robots/v (incarnation " + incarnation + ")\n");
            assertThat(c.loadView(id).uuid().toString()).as("the same view").isEqualTo(uuid);
        }
    }

    @Test
    void tablePurgeExitsNotFoundForbiddenOrUsage() {
        admin("ns", "create", "robots");
        String episodes = table("episodes");
        admin("table", "drop", "robots", "episodes");

        Run unknown = lakectl(ADMIN, "table", "purge", "robots", "episodes", "no-such-incarnation");
        assertThat(unknown.exit()).as(unknown.err()).isEqualTo(ExitCodes.NOT_APPLIED);
        assertThat(unknown.err()).startsWith("lakectl: not_found");
        Run notAdmin = lakectl(WRITER, "table", "purge", "robots", "episodes", episodes);
        assertThat(notAdmin.exit()).as(notAdmin.err()).isEqualTo(ExitCodes.ACCESS);
        assertThat(notAdmin.err()).contains("forbidden");
        Run missing = lakectl(ADMIN, "table", "purge", "robots", "episodes");
        assertThat(missing.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(missing.err()).contains("INCARNATION_ID");
        Run absent = lakectl(ADMIN, "table", "drop", "robots", "absent", "--purge");
        assertThat(absent.exit()).as(absent.err()).isEqualTo(ExitCodes.NOT_APPLIED);
        assertThat(admin("table", "purges").rows()).as("nothing was queued by any of them").hasSize(1);
    }
}
