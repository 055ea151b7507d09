package lake.config;

import lake.config.access.AuthToken;
import lake.config.access.CatalogGrant;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Precedence (defaults &lt; file &lt; environment &lt; command line) and one clear message per invalid setting. */
class SettingsLoaderTest {
    @TempDir Path dir;

    private static Settings load(Map<String, String> env, String... args) {
        return ((SettingsLoader.Invocation.Run) SettingsLoader.load(args, env)).settings();
    }

    private Path file(String json) throws Exception {
        Path f = dir.resolve("config-" + System.nanoTime() + ".json");
        Files.writeString(f, json);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    @Test
    void configJsonHoldsEveryDefaultAndOnlyKnownSettings() {
        JsonObject defaults = SettingsLoader.defaults();
        Set<String> expected = new HashSet<>();
        for (Option o : SettingsLoader.OPTIONS) if (!o.name().equals("config")) expected.add(o.fileKey());
        assertThat(defaults.fieldNames()).containsExactlyInAnyOrderElementsOf(expected);
        Settings s = load(Map.of());
        assertThat(s.httpHost()).as("loopback by default").isEqualTo("127.0.0.1");
        assertThat(s.httpPort()).isEqualTo(8080);
        assertThat(s.leaseTtlMs()).isEqualTo(10_000);
        assertThat(s.leaseRenewMs()).as("a third of the TTL").isEqualTo(3_333);
        assertThat(s.authTokens()).as("no access control by default").isEmpty();
        assertThat(s.shutdownTimeoutMs()).isEqualTo(4_000);
    }

    @Test
    void precedenceIsDefaultsThenFileThenEnvironmentThenCommandLine() throws Exception {
        Path f = file("{\"http_port\": 9001, \"lease_ttl_ms\": 6000, \"store_timeout_ms\": 7000, \"request_timeout_ms\": 8000}");
        // File over defaults.
        Settings fromFile = load(Map.of(), "--config", f.toString());
        assertThat(fromFile.httpPort()).isEqualTo(9001);
        assertThat(fromFile.leaseTtlMs()).isEqualTo(6000);
        assertThat(fromFile.storeTimeoutMs()).isEqualTo(7000);
        assertThat(fromFile.dataDir()).as("untouched settings keep the default").isEqualTo(Path.of("./data"));

        // Environment over file; LAKE_CONFIG names the file like --config.
        Map<String, String> env = Map.of("LAKE_CONFIG", f.toString(), "LAKE_HTTP_PORT", "9002", "LAKE_LEASE_TTL_MS", "9000");
        Settings fromEnv = load(env);
        assertThat(fromEnv.httpPort()).isEqualTo(9002);
        assertThat(fromEnv.leaseTtlMs()).isEqualTo(9000);
        assertThat(fromEnv.storeTimeoutMs()).as("the file still applies where env says nothing").isEqualTo(7000);

        // Command line over environment.
        Settings fromCli = load(env, "--http-port", "9003", "--store-timeout-ms=1234");
        assertThat(fromCli.httpPort()).isEqualTo(9003);
        assertThat(fromCli.storeTimeoutMs()).isEqualTo(1234);
        assertThat(fromCli.leaseTtlMs()).isEqualTo(9000);
        assertThat(fromCli.requestTimeoutMs()).isEqualTo(8000);

        // --config on the command line wins over LAKE_CONFIG.
        Path other = file("{\"http_port\": 9100}");
        assertThat(load(Map.of("LAKE_CONFIG", f.toString()), "--config", other.toString()).httpPort()).isEqualTo(9100);
    }

    @Test
    void catalogRootDefaultsUnderTheDataDirectoryAndLosesItsTrailingSlash() {
        Settings defaults = load(Map.of(), "--data-dir", dir.resolve("d").toString());
        assertThat(defaults.catalogRoot()).isEqualTo(dir.resolve("d").resolve("tables").toAbsolutePath().toUri().toString());
        assertThat(load(Map.of("LAKE_CATALOG_ROOT", "s3://lake-data/robots/")).catalogRoot()).isEqualTo("s3://lake-data/robots");
    }

    @Test
    void tokensComeFromFileEnvironmentOrTokensFileAndKeepOnlyDigests() throws Exception {
        String secret = "s3cret-token-0123456789";
        String digest = HexFormat.of().formatHex(AuthTokens.sha256(secret));
        Path f = file("{\"auth_tokens\": [{\"name\": \"ops\", \"access\": \"read-write\", \"token\": \"" + secret + "\"}]}");
        Settings s = load(Map.of(), "--config", f.toString());
        assertThat(s.authTokens()).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo("ops");
            assertThat(t.readWrite()).isTrue();
            assertThat(t.sha256()).isEqualTo(AuthTokens.sha256(secret));
        });
        assertThat(s.toJson().encode()).doesNotContain(secret).doesNotContain(digest).contains("\"ops\"");

        // The environment replaces the file's list; a tokens file adds to it.
        Path tokens = file("[{\"name\": \"reader\", \"access\": \"read\", \"token_sha256\": \"" + digest.toUpperCase() + "\"}]");
        Settings both = load(Map.of("LAKE_AUTH_TOKENS", "[]", "LAKE_AUTH_TOKENS_FILE", tokens.toString()), "--config", f.toString());
        assertThat(both.authTokens()).extracting(AuthToken::name).containsExactly("reader");
        assertThat(both.authTokens().get(0).readWrite()).isFalse();

        // One certificate names one principal: a client_cert_cn twice is refused, within one
        // source and across the inline entries and the tokens file (found by the review).
        assertThatThrownBy(() -> load(Map.of(), "--auth-tokens", "[{\"name\":\"a\",\"access\":\"read\",\"client_cert_cn\":\"app\"},"
                + "{\"name\":\"b\",\"access\":\"admin\",\"client_cert_cn\":\"app\"}]"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("client_cert_cn 'app'");
        Path adminByCert = file("[{\"name\": \"b\", \"access\": \"admin\", \"client_cert_cn\": \"app\"}]");
        assertThatThrownBy(() -> load(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"read\",\"client_cert_cn\":\"app\"}]",
                "LAKE_AUTH_TOKENS_FILE", adminByCert.toString())))
                .isInstanceOf(ConfigException.class).hasMessageContaining("client_cert_cn 'app'");

        // Digests are accepted on the command line.
        Settings cli = load(Map.of(), "--auth-tokens", "[{\"name\":\"ci\",\"access\":\"read\",\"token_sha256\":\"" + digest + "\"}]");
        assertThat(cli.authTokens()).extracting(AuthToken::name).containsExactly("ci");
    }

    @Test
    void orphanSettingsAreCheckedAndNamed() {
        LifecycleSettings.Orphans defaults = load(Map.of()).lifecycle().orphans();
        assertThat(defaults).as("3 days, no periodic sweep").isEqualTo(new LifecycleSettings.Orphans(259_200_000L, 0, false));
        Settings s = load(Map.of("LAKE_ORPHAN_SWEEP_INTERVAL_MS", "3600000"), "--orphan-min-age-ms", "604800000", "--orphan-sweep-delete");
        assertThat(s.lifecycle().orphans()).isEqualTo(new LifecycleSettings.Orphans(604_800_000L, 3_600_000L, true));
        assertThat(s.toJson().getLong("orphan_min_age_ms")).isEqualTo(604_800_000L);
        assertThatThrownBy(() -> load(Map.of(), "--orphan-min-age-ms", "1000"))
                .hasMessage("orphan-min-age-ms: must be at least request-timeout-ms (30000), the longest a commit can take, got 1000");
        assertThatThrownBy(() -> load(Map.of(), "--orphan-sweep-delete"))
                .hasMessageContaining("orphan-sweep-delete: needs orphan-sweep-interval-ms");
        assertThatThrownBy(() -> load(Map.of(), "--orphan-sweep-interval-ms", "-1")).hasMessageContaining("orphan-sweep-interval-ms: must be 0");
    }

    @Test
    void vendingSettingsAreCheckedAndNamed() {
        assertThat(load(Map.of()).storageAccess().vending()).as("off by default").isFalse();
        Settings s = load(Map.of("LAKE_ICEBERG_VENDING_ROLE_ARN", "arn:aws:iam::123456789012:role/lake-vended"),
                "--iceberg-sts-endpoint", "http://127.0.0.1:5000", "--iceberg-vending-duration-s", "900", "--iceberg-s3-region", "eu-west-1");
        assertThat(s.storageAccess().vending()).isTrue();
        assertThat(s.storageAccess().durationSeconds()).isEqualTo(900);
        assertThat(s.storageAccess().region()).isEqualTo("eu-west-1");
        assertThat(s.storageAccess().stsEndpoint().getPort()).isEqualTo(5000);
        assertThat(s.toJson().getString("iceberg_vending_role_arn")).isEqualTo("arn:aws:iam::123456789012:role/lake-vended");
        assertThatThrownBy(() -> load(Map.of(), "--iceberg-vending-role-arn", "lake-vended"))
                .hasMessageContaining("iceberg-vending-role-arn: 'lake-vended' is not an IAM role ARN");
        assertThatThrownBy(() -> load(Map.of(), "--iceberg-sts-endpoint", "http://127.0.0.1:5000"))
                .hasMessage("iceberg-sts-endpoint: needs iceberg-vending-role-arn");
        assertThatThrownBy(() -> load(Map.of(), "--iceberg-vending-role-arn", "arn:aws:iam::123456789012:role/r", "--iceberg-vending-duration-s", "0"))
                .hasMessage("iceberg-vending-duration-s: must be 1 to 43200, got 0");
        assertThatThrownBy(() -> load(Map.of(), "--iceberg-vending-role-arn", "arn:aws:iam::123456789012:role/r", "--iceberg-sts-endpoint", "ftp://sts"))
                .hasMessageContaining("iceberg-sts-endpoint: 'ftp://sts' is not an http(s) URL");
    }

    @Test
    void oidcSettingsTurnAccessControlOnAndRefuseWhatCannotBeTrusted() {
        Settings s = load(Map.of("LAKE_OIDC_ISSUER", "https://idp.example/realms/lake", "LAKE_OIDC_AUDIENCE", "lake-metasrv",
                "LAKE_OIDC_JWKS_URL", "https://idp.example/realms/lake/protocol/openid-connect/certs"), "--oidc-roles-claim", "realm_access.roles");
        assertThat(s.security().oidc()).satisfies(o -> {
            assertThat(o.issuer()).isEqualTo("https://idp.example/realms/lake");
            assertThat(o.rolesClaim()).isEqualTo("realm_access.roles");
            assertThat(o.principalClaim()).as("default").isEqualTo("sub");
            assertThat(List.of(o.adminRole(), o.writeRole(), o.readRole())).containsExactly("lake-admin", "lake-write", "lake-read");
            assertThat(o.jwksMinRefetchMs()).isEqualTo(10_000);
        });
        assertThat(s.accessControlled()).as("no token configured, yet every request needs a principal").isTrue();
        assertThat(s.toJson().getJsonObject("oidc").getString("audience")).isEqualTo("lake-metasrv");
        assertThat(load(Map.of()).security().oidc()).isNull();

        Map<String, String> base = Map.of("LAKE_OIDC_ISSUER", "https://idp.example", "LAKE_OIDC_AUDIENCE", "lake");
        assertThatThrownBy(() -> load(base)).hasMessage("oidc-jwks-url: required with oidc-issuer");
        assertThatThrownBy(() -> load(base, "--oidc-jwks-url", "http://idp.example/jwks"))
                .hasMessageContaining("oidc-jwks-url: 'http://idp.example/jwks' is plain http to a host that is not a loopback address");
        assertThat(load(base, "--oidc-jwks-url", "http://127.0.0.1:9/jwks").security().oidc().jwksUrl().getPort()).as("loopback").isEqualTo(9);
        assertThat(load(base, "--oidc-jwks-url", "http://[::1]:9/jwks").security().oidc()).isNotNull();
        assertThat(load(base, "--oidc-jwks-url", "http://localhost:9/jwks").security().oidc()).isNotNull();
        assertThatThrownBy(() -> load(base, "--oidc-jwks-url", "http://localtest.me/jwks")).as("a name is never trusted to stay loopback")
                .hasMessageContaining("not a loopback address");
        assertThatThrownBy(() -> load(base, "--oidc-jwks-url", "http://2130706433:9/jwks")).as("127.0.0.1 as one number: a resolver reads a name")
                .hasMessageContaining("not a loopback address");
        assertThatThrownBy(() -> load(Map.of("LAKE_OIDC_AUDIENCE", "lake"))).hasMessage("oidc-audience: needs oidc-issuer");
        assertThatThrownBy(() -> load(Map.of("LAKE_OIDC_ISSUER", "https://idp.example", "LAKE_OIDC_JWKS_URL", "https://idp.example/jwks")))
                .hasMessageContaining("oidc-audience: required with oidc-issuer");
        assertThatThrownBy(() -> load(base, "--oidc-jwks-url", "https://idp.example/jwks", "--oidc-write-role", "lake-admin"))
                .hasMessageContaining("must differ");
        assertThatThrownBy(() -> load(base, "--oidc-jwks-url", "https://idp.example/jwks", "--oidc-jwks-min-refetch-ms", "999999999"))
                .hasMessageContaining("oidc-jwks-min-refetch-ms: must be 0 to oidc-jwks-refresh-ms");
    }

    @Test
    void tokenEntriesGrantPrivilegesOnCatalogObjectsAndRefuseWhatTheirRoleCannotHold() throws Exception {
        String digest = HexFormat.of().formatHex(AuthTokens.sha256("team-token-0123456789"));
        String entry = "[{\"name\":\"team\",\"access\":\"read-write\",\"token_sha256\":\"" + digest + "\",\"grants\":["
                + "{\"namespace\":\"team_a\",\"privileges\":[\"read\",\"write\",\"create\",\"drop\"]},"
                + "{\"namespace\":\"shared\",\"name\":\"dim\",\"privileges\":[\"read\"]}]}]";
        Settings s = load(Map.of(), "--auth-tokens", entry);
        AuthToken team = s.authTokens().get(0);
        assertThat(team.restricted()).isTrue();
        assertThat(team.grants()).containsExactly(
                new CatalogGrant("team_a", null, java.util.EnumSet.of(CatalogGrant.Privilege.READ, CatalogGrant.Privilege.WRITE,
                        CatalogGrant.Privilege.CREATE, CatalogGrant.Privilege.DROP)),
                new CatalogGrant("shared", "dim", java.util.Set.of(CatalogGrant.Privilege.READ)));
        assertThat(s.toJson().getJsonArray("auth_tokens").getJsonObject(0).getJsonArray("grants").getJsonObject(1).encode())
                .isEqualTo("{\"namespace\":\"shared\",\"name\":\"dim\",\"privileges\":[\"read\"]}");

        assertThatThrownBy(() -> load(Map.of(), "--auth-tokens", entry.replace("\"drop\"", "\"delete\"")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("entry 'team' grant 0: unknown privilege delete");
        assertThatThrownBy(() -> load(Map.of(), "--auth-tokens", entry.replace("read-write", "read")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("a read entry's 'grants' may hold only \"read\"");
        assertThatThrownBy(() -> load(Map.of(), "--auth-tokens", entry.replace("read-write", "admin")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("takes no 'prefixes', 'namespaces' or 'grants'");
        assertThatThrownBy(() -> load(Map.of(), "--auth-tokens", entry.replace("\"name\":\"dim\"", "\"table\":\"dim\"")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("grant 1: unknown field 'table'");
        assertThatThrownBy(() -> load(Map.of(), "--auth-tokens", entry.replace("[\"read\"]", "[]")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("grant 1: 'privileges' must be a non-empty array");
    }

    @Test
    void clusterBusPortAndAdvertisedPortAreSettingsOfTheirOwn() throws Exception {
        ClusterSettings byDefault = load(Map.of()).cluster();
        assertThat(byDefault.busPort()).as("a free port picked at start").isZero();
        assertThat(byDefault.busPublicPort()).as("advertises the port it listens on").isZero();

        ClusterSettings fromFile = load(Map.of(), "--config",
                file("{\"cluster_bus_port\": 27001, \"cluster_bus_public_port\": 27002}").toString()).cluster();
        assertThat(fromFile.busPort()).isEqualTo(27001);
        assertThat(fromFile.busPublicPort()).isEqualTo(27002);

        ClusterSettings fromEnv = load(Map.of("LAKE_CLUSTER_BUS_PORT", "27003", "LAKE_CLUSTER_BUS_PUBLIC_PORT", "27004")).cluster();
        assertThat(fromEnv.busPort()).isEqualTo(27003);
        assertThat(fromEnv.busPublicPort()).isEqualTo(27004);

        Settings cli = load(Map.of("LAKE_CLUSTER_BUS_PORT", "27003"), "--cluster-bus-port", "27005");
        assertThat(cli.cluster().busPort()).as("the command line wins").isEqualTo(27005);
        assertThat(cli.cluster().busPublicPort()).isZero();
        assertThat(cli.toJson().getInteger("cluster_bus_port")).isEqualTo(27005);
        assertThat(cli.toJson().getValue("cluster_bus_public_port")).isNull();
    }

    @Test
    void feedWriteOrderDefaultsByStoreAndAcceptsOnlyCheckOrWait() {
        assertThat(load(Map.of()).feed().writeOrder()).as("RocksDB").isEqualTo(FeedSettings.WriteOrder.CHECK);
        assertThat(load(Map.of(), "--store", "dynamo").feed().writeOrder()).as("DynamoDB").isEqualTo(FeedSettings.WriteOrder.WAIT);
        assertThat(load(Map.of("LAKE_FEED_WRITE_ORDER", "wait")).feed().writeOrder()).isEqualTo(FeedSettings.WriteOrder.WAIT);
        assertThat(load(Map.of(), "--store", "dynamo", "--feed-write-order", "CHECK").feed().writeOrder()).isEqualTo(FeedSettings.WriteOrder.CHECK);
        assertThat(load(Map.of()).toJson().getString("feed_write_order")).isEqualTo("check");
        assertThatThrownBy(() -> load(Map.of(), "--feed-write-order", "later")).isInstanceOf(ConfigException.class)
                .hasMessage("feed-write-order: unknown order 'later' (expected check or wait)");
    }

    @Test
    void eachInvalidSettingFailsWithOneMessageNamingIt() throws Exception {
        String digest = HexFormat.of().formatHex(AuthTokens.sha256("s3cret-token-0123456789"));
        Path worldReadable = file("[{\"name\":\"a\",\"access\":\"read\",\"token\":\"s3cret-token-0123456789\"}]");
        Files.setPosixFilePermissions(worldReadable, PosixFilePermissions.fromString("rw-r--r--"));
        record Case(Map<String, String> env, List<String> args, String names) {}
        List<Case> cases = List.of(
                new Case(Map.of(), List.of("--no-such-option", "1"), "unknown option --no-such-option"),
                new Case(Map.of(), List.of("stray"), "unexpected argument 'stray'"),
                new Case(Map.of(), List.of("--store", "cassandra"), "store: unknown store type 'cassandra'"),
                new Case(Map.of("LAKE_STORE", "etcd"), List.of(), "store: unknown store type 'etcd'"),
                new Case(Map.of(), List.of("--lease-ttl-ms", "-5"), "lease-ttl-ms: must be positive"),
                new Case(Map.of(), List.of("--lease-ttl-ms", "3000", "--lease-renew-ms", "3000"), "lease-renew-ms: must be shorter than lease-ttl-ms"),
                new Case(Map.of(), List.of("--lease-renew-ms", "-1"), "lease-renew-ms: must be positive"),
                new Case(Map.of(), List.of("--http-port", "eighty"), "option --http-port: must be an int, got 'eighty'"),
                new Case(Map.of("LAKE_LEASE_TTL_MS", "10s"), List.of(), "environment LAKE_LEASE_TTL_MS: must be an integer, got '10s'"),
                new Case(Map.of(), List.of("--cluster", "maybe"), "option --cluster: must be true or false, got 'maybe'"),
                new Case(Map.of("LAKE_HTTP_PORT", "70000"), List.of(), "http-port: 70000 is not a port"),
                new Case(Map.of(), List.of("--shutdown-timeout-ms", "0"), "shutdown-timeout-ms: must be positive"),
                new Case(Map.of(), List.of("--config", dir.resolve("missing.json").toString()),
                        "config: no such file: " + dir.resolve("missing.json")),
                new Case(Map.of(), List.of("--config", dir.toString()), "config: is a directory, not a file: " + dir),
                new Case(Map.of("LAKE_AUTH_TOKENS_FILE", dir.resolve("absent-tokens.json").toString()), List.of(),
                        "auth-tokens-file: no such file: " + dir.resolve("absent-tokens.json")),
                new Case(Map.of(), List.of("--config", file("{\"http_port\": 80,").toString()), "config: config file"),
                new Case(Map.of(), List.of("--config", file("[1, 2]").toString()), "is not a JSON object"),
                new Case(Map.of(), List.of("--config", file("{\"http_prot\": 80}").toString()), "unknown setting 'http_prot'"),
                new Case(Map.of(), List.of("--config", file("{\"lease_ttl_ms\": \"ten\"}").toString()), "setting 'lease_ttl_ms' must be an integer, got 'ten'"),
                new Case(Map.of(), List.of("--config", file("{\"http_port\": 80.5}").toString()), "setting 'http_port' must be an int, got 80.5"),
                new Case(Map.of(), List.of("--auth-tokens", "[{\"name\":\"a\",\"access\":\"read\",\"token\":\"s3cret-token-0123456789\"}]"),
                        "auth-tokens: plaintext 'token' entries are refused on the command line"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"root\",\"token_sha256\":\"" + digest + "\"}]"), List.of(),
                        "auth-tokens entry 'a': 'access' must be"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"admin\",\"prefixes\":[\"x/\"],\"token_sha256\":\"" + digest + "\"}]"),
                        List.of(), "auth-tokens entry 'a': an admin entry acts on the whole service"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"read\",\"prefixes\":[],\"token_sha256\":\"" + digest + "\"}]"),
                        List.of(), "auth-tokens entry 'a': 'prefixes' must be a non-empty array"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"read\",\"token\":\"short\"}]"), List.of(),
                        "'token' must be a string of at least 16 characters"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"read\",\"token_sha256\":\"abc\"}]"), List.of(),
                        "'token_sha256' must be 64 hex digits"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"read\",\"token_sha256\":\"" + digest + "\"},"
                        + "{\"name\":\"a\",\"access\":\"read-write\",\"token\":\"another-token-0123456789\"}]"), List.of(), "the name is used twice"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "not json"), List.of(), "environment LAKE_AUTH_TOKENS: not a JSON array"),
                new Case(Map.of(), List.of("--config", file("{\"lease_ttl_ms\": null}").toString()), "lease-ttl-ms: must be set"),
                new Case(Map.of(), List.of("--config", file("{\"store\": null}").toString()), "store: must be set"),
                new Case(Map.of(), List.of("--config", file("{\"shutdown_timeout_ms\": null}").toString()), "shutdown-timeout-ms: must be set"),
                new Case(Map.of(), List.of("--config", file("{\"http_host\": null}").toString()), "http-host: must be set"),
                new Case(Map.of(), List.of("--http-host", ""), "http-host: '' is not a host name"),
                new Case(Map.of(), List.of("--cluster-bus-port", "70000"), "cluster-bus-port: 70000 is not a port"),
                new Case(Map.of("LAKE_CLUSTER_BUS_PORT", "-1"), List.of(), "cluster-bus-port: -1 is not a port"),
                new Case(Map.of(), List.of("--cluster-bus-port", "9000", "--cluster-bus-public-port", "65536"),
                        "cluster-bus-public-port: 65536 is not a port"),
                new Case(Map.of(), List.of("--cluster-bus-public-port", "9001"), "cluster-bus-public-port: needs a fixed cluster-bus-port"),
                new Case(Map.of(), List.of("--config", file("{\"cluster_bus_port\": null}").toString()), "cluster-bus-port: must be set"),
                new Case(Map.of(), List.of("--catalog-root", "bucket/prefix"), "catalog-root: 'bucket/prefix' is not an absolute URI"),
                new Case(Map.of(), List.of("--catalog-root", "s3:bucket"), "catalog-root: 's3:bucket' is not an absolute URI"),
                new Case(Map.of(), List.of("--http-host", "local host"), "http-host: 'local host' is not a host name"),
                new Case(Map.of(), List.of("--store", "dynamo", "--dynamo-endpoint", "localhost:4566"), "dynamo-endpoint: 'localhost:4566' is not an http(s) URL"),
                new Case(Map.of("LAKE_AUTH_TOKENS", "[{\"name\":\"a\",\"access\":\"read\",\"token_sha256\":\"" + digest + "\"}]"),
                        List.of("--cluster", "--cluster-members", "127.0.0.1:5701"), "cluster-secret-file: required"),
                new Case(Map.of("LAKE_AUTH_TOKENS_FILE", worldReadable.toString()), List.of(),
                        "auth-tokens-file: " + worldReadable + " holds tokens but other users can read or write it"));
        for (Case c : cases) {
            assertThatThrownBy(() -> SettingsLoader.load(c.args().toArray(String[]::new), c.env()))
                    .as(c.toString()).isInstanceOf(ConfigException.class)
                    .hasMessageContaining(c.names())
                    .satisfies(e -> assertThat(e.getMessage()).as("never echoes a token").doesNotContain("s3cret-token"));
        }
    }
}
