package lake.meta;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GuardedMutationTest {

    private static byte[] b(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    @Test
    void factoriesBuildTheThreeTransitions() {
        GuardedMutation c = GuardedMutation.create("g", b("l"), "t", b("v"));
        assertThat(c.kind()).isEqualTo(GuardedMutation.Kind.CREATE);
        assertThat(c.targetExpected()).isNull();
        assertThat(c.value()).containsExactly(b("v"));

        GuardedMutation u = GuardedMutation.update("g", b("l"), "t", b("old"), b("new"));
        assertThat(u.kind()).isEqualTo(GuardedMutation.Kind.UPDATE);
        assertThat(u.targetExpected()).containsExactly(b("old"));

        GuardedMutation d = GuardedMutation.delete("g", b("l"), "t", b("old"));
        assertThat(d.kind()).isEqualTo(GuardedMutation.Kind.DELETE);
        assertThat(d.value()).isNull();
    }

    @Test
    void mutationIsImmutableAgainstCallerArrays() {
        byte[] guard = b("lease");
        byte[] value = b("value");
        GuardedMutation m = GuardedMutation.create("g", guard, "t", value);
        guard[0] = 'X';
        value[0] = 'X';
        m.value()[0] = 'Y';
        m.guardExpected()[0] = 'Y';
        assertThat(m.guardExpected()).containsExactly(b("lease"));
        assertThat(m.value()).containsExactly(b("value"));
        assertThat(m).isEqualTo(GuardedMutation.create("g", b("lease"), "t", b("value")));
    }

    @Test
    void guardKeyEqualToTargetKeyIsAnInvalidMutation() {
        assertThatThrownBy(() -> GuardedMutation.create("same", b("l"), "same", b("v")))
                .isInstanceOf(MetaException.InvalidMutation.class)
                .hasMessageContaining("same");
    }

    @Test
    void updateAndDeleteNeedAnExactTargetExpectation() {
        assertThatThrownBy(() -> GuardedMutation.update("g", b("l"), "t", null, b("v")))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("target expected");
        assertThatThrownBy(() -> GuardedMutation.delete("g", b("l"), "t", null))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("target expected");
        assertThatThrownBy(() -> GuardedMutation.create("g", b("l"), "t", null))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("value");
    }

    @Test
    void continuationRoundTripsAndIsScopedToItsPrefix() {
        String token = ScanPage.continuationAfter("tbl/", "tbl/é/1");
        assertThat(ScanPage.resumeAfter("tbl/", token)).isEqualTo("tbl/é/1");
        assertThat(ScanPage.resumeAfter("tbl/", null)).isNull();
        assertThatThrownBy(() -> ScanPage.resumeAfter("other/", token))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("prefix");
        assertThatThrownBy(() -> ScanPage.resumeAfter("tbl/", "***"))
                .isInstanceOf(MetaException.InvalidArgument.class);
        // The key starts with "tbl" and with "", but the continuation names "tbl/" only.
        assertThatThrownBy(() -> ScanPage.resumeAfter("tbl", token))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("another prefix");
        assertThatThrownBy(() -> ScanPage.resumeAfter("", token))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("another prefix");
    }

    @Test
    void keyOrderIsUtf8ByteOrder() {
        // U+FFFF sorts before a supplementary character in UTF-8, but after it in UTF-16.
        String bmp = "\uFFFF";
        String supplementary = new String(Character.toChars(0x1F600));
        assertThat(Keys.UTF8_ORDER.compare(bmp, supplementary)).isNegative();
        assertThat(bmp.compareTo(supplementary)).isPositive();
    }

    @Test
    void aBackendWithoutAtomicGuardedMutationRefusesIt() throws Exception {
        MetaStore plain = new MetaStore() {
            @Override public io.vertx.core.Future<java.util.Optional<byte[]>> get(String key) { throw new AssertionError("not called"); }
            @Override public io.vertx.core.Future<Boolean> cas(String k, byte[] e, byte[] v) { throw new AssertionError("not called"); }
            @Override public io.vertx.core.Future<Boolean> delete(String k, byte[] e) { throw new AssertionError("not called"); }
            @Override public io.vertx.core.Future<ScanPage> scanPrefix(String p, String c, int l) { throw new AssertionError("not called"); }
            @Override public io.vertx.core.Future<java.util.Optional<String>> lastKey(String p) { throw new AssertionError("not called"); }
            @Override public io.vertx.core.Future<Void> close() { return io.vertx.core.Future.succeededFuture(); }
        };
        io.vertx.core.Future<Boolean> refused = plain.guardedMutate(GuardedMutation.create("g", b("l"), "t", b("v")));
        assertThat(refused.failed()).isTrue();
        assertThat(refused.cause()).isInstanceOf(MetaException.Unsupported.class).hasMessageContaining("atomic");
    }

    @Test
    void faultsKeepTheirKind() {
        assertThat(new MetaException.RetryableBackend("x", null).kind()).isEqualTo(MetaException.Kind.RETRYABLE_BACKEND);
        assertThat(new MetaException.StoreLocked("/d", null)).isInstanceOf(MetaException.PermanentBackend.class)
                .hasMessageContaining("/d");
        assertThat(new MetaException.Unsupported("x").kind()).isEqualTo(MetaException.Kind.UNSUPPORTED);
    }
}
