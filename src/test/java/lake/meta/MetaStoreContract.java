package lake.meta;

import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import static lake.meta.StoreCalls.await;
import static lake.meta.StoreCalls.b;
import static lake.meta.StoreCalls.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store contract every {@link MetaStore} backend meets: guarded mutation, cas and delete on
 * exact bytes (empty is a value, distinct from absent), paged prefix scans whose continuation is
 * bound to its prefix, exactly one winner among racing writes, and input refused before the store
 * is touched. {@link MetaStoreConformance} runs it, with {@link TransactionContract}, against each
 * backend.
 */
public interface MetaStoreContract extends StoreUnderTest {

    // ---- guarded mutation ----------------------------------------------------------------------

    @Test
    default void guardedMutationAppliesAllTargetTransitions() throws Exception {
        byte[] lease = b("lease-epoch-1");
        assertThat(await(store().cas(GUARD, null, lease))).isTrue();

        assertThat(await(store().guardedMutate(GuardedMutation.create(GUARD, lease, "tbl/a", b("v1"))))).isTrue();
        assertThat(value("tbl/a")).containsExactly(b("v1"));

        assertThat(await(store().guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/a", b("v1"), b("v2"))))).isTrue();
        assertThat(value("tbl/a")).containsExactly(b("v2"));

        assertThat(await(store().guardedMutate(GuardedMutation.delete(GUARD, lease, "tbl/a", b("v2"))))).isTrue();
        assertThat(await(store().get("tbl/a"))).isEmpty();
        assertThat(value(GUARD)).as("the guard is only checked, never written").containsExactly(lease);
    }

    @Test
    default void guardedMutationRejectsStaleGuardWithoutTargetChange() throws Exception {
        byte[] stale = b("lease-epoch-1");
        byte[] current = b("lease-epoch-2");
        byte[] target = b("published-under-epoch-1");
        assertThat(await(store().cas(GUARD, null, stale))).isTrue();
        assertThat(await(store().guardedMutate(GuardedMutation.create(GUARD, stale, "tbl/t", target)))).isTrue();
        assertThat(await(store().cas(GUARD, stale, current))).isTrue();

        assertThat(await(store().guardedMutate(GuardedMutation.create(GUARD, stale, "tbl/new", b("x"))))).isFalse();
        assertThat(await(store().guardedMutate(GuardedMutation.update(GUARD, stale, "tbl/t", target, b("y"))))).isFalse();
        assertThat(await(store().guardedMutate(GuardedMutation.delete(GUARD, stale, "tbl/t", target)))).isFalse();

        assertThat(await(store().get("tbl/new"))).isEmpty();
        assertThat(value("tbl/t")).containsExactly(target);
        assertThat(value(GUARD)).containsExactly(current);
        // An absent guard is a mismatch too.
        assertThat(await(store().delete(GUARD, current))).isTrue();
        assertThat(await(store().guardedMutate(GuardedMutation.update(GUARD, current, "tbl/t", target, b("z"))))).isFalse();
        assertThat(value("tbl/t")).containsExactly(target);
    }

    @Test
    default void guardedMutationRejectsSameKey() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store().cas(GUARD, null, lease))).isTrue();

        assertThatThrownBy(() -> GuardedMutation.create(GUARD, lease, GUARD, b("x")))
                .isInstanceOf(MetaException.InvalidMutation.class).hasMessageContaining(GUARD);
        assertThatThrownBy(() -> GuardedMutation.update(GUARD, lease, GUARD, lease, b("x")))
                .isInstanceOf(MetaException.InvalidMutation.class);
        assertThatThrownBy(() -> GuardedMutation.delete(GUARD, lease, GUARD, lease))
                .isInstanceOf(MetaException.InvalidMutation.class);

        assertThat(value(GUARD)).containsExactly(lease);
        assertThat(all()).containsOnlyKeys(GUARD);
    }

    @Test
    default void guardedMutationTargetMismatchIsFalse() throws Exception {
        byte[] lease = b("lease");
        assertThat(await(store().cas(GUARD, null, lease))).isTrue();
        assertThat(await(store().cas("tbl/t", null, b("v1")))).isTrue();

        assertThat(await(store().guardedMutate(GuardedMutation.create(GUARD, lease, "tbl/t", b("other"))))).isFalse();
        assertThat(await(store().guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/t", b("v0"), b("v2"))))).isFalse();
        assertThat(await(store().guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/absent", b("v1"), b("v2"))))).isFalse();
        assertThat(await(store().guardedMutate(GuardedMutation.delete(GUARD, lease, "tbl/t", b("v1-but-longer"))))).isFalse();
        assertThat(await(store().guardedMutate(GuardedMutation.delete(GUARD, lease, "tbl/absent", b("v1"))))).isFalse();
        // An empty expected value is not the same as an absent or a non-empty one.
        assertThat(await(store().guardedMutate(GuardedMutation.update(GUARD, lease, "tbl/t", new byte[0], b("v2"))))).isFalse();

        assertThat(value("tbl/t")).containsExactly(b("v1"));
        assertThat(all()).containsOnlyKeys(GUARD, "tbl/t");
    }

    // ---- cas and delete -----------------------------------------------------------------------

    @Test
    default void casAndDeleteFollowExactValueSemantics() throws Exception {
        assertThat(await(store().get("k"))).isEmpty();
        assertThat(await(store().cas("k", b("x"), b("v")))).as("expected value on an absent key").isFalse();
        assertThat(await(store().cas("k", null, b("v1")))).isTrue();
        assertThat(await(store().cas("k", null, b("v2")))).as("must-be-absent on a present key").isFalse();
        assertThat(await(store().cas("k", b("v"), b("v2")))).as("prefix of the current value").isFalse();
        assertThat(await(store().cas("k", b("v1 "), b("v2")))).as("longer than the current value").isFalse();
        assertThat(value("k")).containsExactly(b("v1"));
        assertThat(await(store().cas("k", b("v1"), b("v2")))).isTrue();
        assertThat(value("k")).containsExactly(b("v2"));

        // Empty is a value, distinct from absent.
        assertThat(await(store().cas("k", b("v2"), new byte[0]))).isTrue();
        assertThat(await(store().get("k"))).hasValueSatisfying(v -> assertThat(v).isEmpty());
        assertThat(await(store().cas("k", null, b("x")))).isFalse();

        assertThat(await(store().delete("k", b("v2")))).as("delete with a stale value").isFalse();
        assertThat(await(store().delete("absent", b("v2")))).as("delete of an absent key").isFalse();
        assertThat(await(store().delete("k", new byte[0]))).isTrue();
        assertThat(await(store().get("k"))).isEmpty();
        assertThat(await(store().delete("k", new byte[0]))).as("second delete").isFalse();

        // Binary values round-trip byte for byte.
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) binary[i] = (byte) i;
        assertThat(await(store().cas("bin", null, binary))).isTrue();
        assertThat(value("bin")).containsExactly(binary);
        byte[] largest = new byte[Keys.MAX_VALUE_BYTES];
        largest[largest.length - 1] = 7;
        assertThat(await(store().cas("big", null, largest))).isTrue();
        assertThat(value("big")).containsExactly(largest);
    }

    // ---- scans --------------------------------------------------------------------------------

    @Test
    default void scanPrefixPagesThroughEveryEntryOnce() throws Exception {
        TreeMap<String, byte[]> expected = new TreeMap<>(Keys.UTF8_ORDER);
        List<Future<Boolean>> writes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String key = "tbl/a/" + String.format("%04d", i) + (i % 7 == 0 ? "/é" : i % 11 == 0 ? "/\u4e2d" : "");
            expected.put(key, b("v" + i));
            writes.add(store().cas(key, null, b("v" + i)));
        }
        // Neighbours that share bytes with the prefix but lie outside it.
        for (String outside : List.of("tbl/a", "tbl/a0", "tbl/a.", "tbl/`", "tbl/b/0001", "tbl/", "tbl/a\u00ff", "u")) {
            writes.add(store().cas(outside, null, b("outside")));
        }
        for (Future<Boolean> w : writes) assertThat(await(w)).isTrue();

        for (int pageSize : new int[] {1, 2, 1000}) {
            List<String> seen = new ArrayList<>();
            String continuation = null;
            int pages = 0;
            do {
                ScanPage page = await(store().scanPrefix("tbl/a/", continuation, pageSize));
                assertThat(page.entries().size()).isLessThanOrEqualTo(pageSize);
                for (KeyValue kv : page.entries()) {
                    seen.add(kv.key());
                    assertThat(kv.value()).as(kv.key()).containsExactly(expected.get(kv.key()));
                }
                continuation = page.continuation();
                assertThat(++pages).as("pages at size " + pageSize).isLessThanOrEqualTo(expected.size() + 1);
            } while (continuation != null);
            assertThat(seen).as("page size " + pageSize).containsExactlyElementsOf(expected.keySet());
        }

        ScanPage none = await(store().scanPrefix("tbl/zz", null, 10));
        assertThat(none.entries()).isEmpty();
        assertThat(none.continuation()).isNull();

        ScanPage everything = await(store().scanPrefix("", null, 1000));
        assertThat(everything.entries()).hasSize(308);
        assertThat(everything.continuation()).isNull();
    }

    @Test
    default void scanContinuationIsScopedToItsPrefix() throws Exception {
        assertThat(await(store().cas("a/1", null, b("1")))).isTrue();
        assertThat(await(store().cas("a/2", null, b("2")))).isTrue();
        ScanPage first = await(store().scanPrefix("a/", null, 1));
        assertThat(first.continuation()).isNotNull();
        assertThat(failure(store().scanPrefix("b/", first.continuation(), 1)))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("continuation");
        assertThat(failure(store().scanPrefix("a/", "%%not-base64%%", 1)))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("continuation");
    }

    /** The change feed finds where its records end by this read (an append-only range's last key). */
    @Test
    default void lastKeyIsTheGreatestKeyUnderItsPrefix() throws Exception {
        assertThat(await(store().lastKey("f/"))).as("empty store").isEmpty();
        for (String k : List.of("f/0001", "f/0002", "f/0010", "f/00100", "e/9", "f0", "f", "g/1")) {
            assertThat(await(store().cas(k, null, b(k)))).isTrue();
        }
        assertThat(await(store().lastKey("f/"))).as("not f0, the prefix's successor, which exists").contains("f/0010" + "0");
        assertThat(await(store().lastKey("f/0001"))).as("a prefix that is itself a key").contains("f/0001");
        assertThat(await(store().lastKey("f/001"))).contains("f/00100");
        assertThat(await(store().lastKey("e/"))).contains("e/9");
        assertThat(await(store().lastKey("f/1"))).as("nothing under it, keys on both sides").isEmpty();
        assertThat(await(store().lastKey("h/"))).as("after every key").isEmpty();
        assertThat(await(store().lastKey("a/"))).as("before every key").isEmpty();
        assertThat(await(store().lastKey(""))).as("the whole store").contains("g/1");
        assertThat(await(store().delete("f/00100", b("f/00100")))).isTrue();
        assertThat(await(store().lastKey("f/"))).as("a deleted key is gone").contains("f/0010");
        assertInvalid(store().lastKey(null));
    }

    // ---- concurrency --------------------------------------------------------------------------

    @Test
    default void concurrentCasHasExactlyOneWinner() throws Exception {
        assertThat(await(store().cas("contended", null, b("start")))).isTrue();
        for (int round = 0; round < 5; round++) {
            byte[] from = round == 0 ? b("start") : value("contended");
            List<Future<Boolean>> racers = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                int racer = i;
                int r = round;
                // Submitted from many threads at once, not one after another.
                racers.add(vertx().executeBlocking(
                        () -> await(store().cas("contended", from, b("r" + r + "-" + racer))), false));
            }
            List<Boolean> results = new ArrayList<>();
            for (Future<Boolean> f : racers) results.add(await(f));
            assertThat(results).as("round " + round).containsOnlyOnce(true);
            int winner = results.indexOf(true);
            assertThat(value("contended")).containsExactly(b("r" + round + "-" + winner));
        }
        // The same for racing creates of an absent key.
        List<Future<Boolean>> creators = new ArrayList<>();
        for (int i = 0; i < 64; i++) creators.add(store().cas("fresh", null, b("c" + i)));
        List<Boolean> created = new ArrayList<>();
        for (Future<Boolean> f : creators) created.add(await(f));
        assertThat(created).containsOnlyOnce(true);
    }

    @Test
    default void concurrentGuardFlipNeverAdmitsStaleGuard() throws Exception {
        int flips = 40;
        int writers = 8;
        int writesPerWriter = 60;
        assertThat(await(store().cas(GUARD, null, guardValue(0)))).isTrue();

        // flipDone[i] = System.nanoTime() once the guard provably holds generation i (cas completed).
        long[] flipDone = new long[flips + 1];
        flipDone[0] = System.nanoTime();
        // visibleAfterFlip[g]: every target visible once generation g was installed. A write carrying
        // generation g-1 that is not among them committed after its guard had been replaced.
        List<java.util.Set<String>> visibleAfterFlip = new ArrayList<>(Collections.nCopies(flips + 1, null));
        AtomicInteger currentGeneration = new AtomicInteger();
        Future<Void> flipper = vertx().executeBlocking(() -> {
            for (int g = 1; g <= flips; g++) {
                boolean ok = await(store().cas(GUARD, guardValue(g - 1), guardValue(g)));
                if (!ok) throw new AssertionError("guard flip " + g + " lost");
                flipDone[g] = System.nanoTime();
                currentGeneration.set(g);
                visibleAfterFlip.set(g, targetsVisible());
            }
            return null;
        }, false);

        record Attempt(String target, int generation, long submittedAt, boolean applied) {}
        List<Attempt> attempts = Collections.synchronizedList(new ArrayList<>());
        List<Future<Void>> writerTasks = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            writerTasks.add(vertx().executeBlocking(() -> {
                int cached = currentGeneration.get();
                for (int i = 0; i < writesPerWriter; i++) {
                    // Refresh the guard only now and then, so many writes carry a stale one.
                    if (i % 5 == 0) cached = currentGeneration.get();
                    String target = "t/" + writer + "/" + i;
                    long submitted = System.nanoTime();
                    boolean applied = await(store().guardedMutate(
                            GuardedMutation.create(GUARD, guardValue(cached), target, guardValue(cached))));
                    attempts.add(new Attempt(target, cached, submitted, applied));
                }
                return null;
            }, false));
        }
        await(flipper);
        for (Future<Void> t : writerTasks) await(t);

        int staleRefused = 0;
        int applied = 0;
        for (Attempt a : attempts) {
            boolean supersededBeforeSubmit = a.generation() < flips && flipDone[a.generation() + 1] != 0
                    && flipDone[a.generation() + 1] < a.submittedAt();
            if (supersededBeforeSubmit) {
                assertThat(a.applied()).as("write with generation %d submitted after generation %d was installed",
                        a.generation(), a.generation() + 1).isFalse();
                staleRefused++;
            }
            if (a.applied()) {
                applied++;
                if (a.generation() < flips) {
                    assertThat(visibleAfterFlip.get(a.generation() + 1))
                            .as("write %s with generation %d committed after generation %d was installed",
                                    a.target(), a.generation(), a.generation() + 1)
                            .contains(a.target());
                }
            }
            Optional<byte[]> stored = await(store().get(a.target()));
            if (a.applied()) {
                assertThat(stored).as(a.target()).hasValueSatisfying(v -> assertThat(v).containsExactly(guardValue(a.generation())));
            } else {
                assertThat(stored).as("refused write %s is not visible", a.target()).isEmpty();
            }
        }
        assertThat(applied).as("some writes carried the current guard").isPositive();
        assertThat(staleRefused).as("some writes carried a provably stale guard").isPositive();
        assertThat(value(GUARD)).containsExactly(guardValue(flips));
    }

    // ---- input validation ---------------------------------------------------------------------

    @Test
    default void invalidInputIsRejectedBeforeTheStore() throws Exception {
        String oversizedKey = "k".repeat(Keys.MAX_KEY_BYTES + 1);
        String multibyteOversized = "é".repeat(Keys.MAX_KEY_BYTES / 2 + 1); // 1,026 UTF-8 bytes, 513 chars
        byte[] oversizedValue = new byte[Keys.MAX_VALUE_BYTES + 1];

        for (String badKey : new String[] {"", oversizedKey, multibyteOversized, "a\0b", "bad\uD800"}) {
            assertInvalid(store().get(badKey));
            assertInvalid(store().cas(badKey, null, b("v")));
            assertInvalid(store().delete(badKey, b("v")));
        }
        assertInvalid(store().get(null));
        assertInvalid(store().cas("k", null, oversizedValue));
        assertInvalid(store().cas("k", oversizedValue, b("v")));
        assertInvalid(store().cas("k", null, null));
        assertInvalid(store().delete("k", null));
        assertInvalid(store().scanPrefix("", null, 0));
        assertInvalid(store().scanPrefix("", null, -1));
        assertInvalid(store().scanPrefix("a\0", null, 1));
        assertInvalid(store().scanPrefix(oversizedKey, null, 1));
        assertInvalid(store().guardedMutate(null));
        assertInvalid(store().transact(null));
        assertThatThrownBy(() -> GuardedMutation.create(GUARD, b("g"), "t", oversizedValue))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("value");
        assertThatThrownBy(() -> GuardedMutation.create("", b("g"), "t", b("v")))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("guard key");
        assertThatThrownBy(() -> GuardedMutation.update(GUARD, null, "t", b("v"), b("w")))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("guard expected");
        assertThatThrownBy(() -> GuardedMutation.delete(GUARD, b("g"), "t\0", b("v")))
                .isInstanceOf(MetaException.InvalidArgument.class).hasMessageContaining("target key");

        // The largest valid key is accepted, and nothing of the refused calls was written.
        String largestKey = "k".repeat(Keys.MAX_KEY_BYTES);
        assertThat(await(store().cas(largestKey, null, b("v")))).isTrue();
        assertThat(all()).containsOnlyKeys(largestKey);
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static byte[] guardValue(int generation) {
        return b("{\"holder\":\"n\",\"epoch\":" + generation + "}");
    }

    /** The keys under {@code t/}, as a scan sees them now. */
    private java.util.Set<String> targetsVisible() throws Exception {
        java.util.Set<String> keys = new java.util.HashSet<>();
        String continuation = null;
        do {
            ScanPage page = await(store().scanPrefix("t/", continuation, 1000));
            for (KeyValue kv : page.entries()) keys.add(kv.key());
            continuation = page.continuation();
        } while (continuation != null);
        return keys;
    }

    private static void assertInvalid(Future<?> future) throws Exception {
        assertThat(failure(future)).isInstanceOf(MetaException.InvalidArgument.class);
    }
}
