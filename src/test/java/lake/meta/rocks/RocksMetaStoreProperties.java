package lake.meta.rocks;

import io.vertx.core.Future;
import lake.meta.GuardedMutation;
import lake.meta.KeyValue;
import lake.meta.Keys;
import lake.meta.ScanPage;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

import static lake.meta.rocks.RocksAwait.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random operation sequences over a tiny key and value space (so conditions hold about as often as
 * they fail) give identical results on the real RocksDB store and on a TreeMap model ordered by
 * {@link Keys#UTF8_ORDER}.
 */
class RocksMetaStoreProperties {
    private static final List<String> KEYS = List.of("a", "a/1", "a/2", "ab", "b", "\u00e9");
    private static final List<String> VALUES = List.of("", "x", "y");
    private static final List<String> PREFIXES = List.of("", "a", "a/", "b", "z");

    sealed interface Op permits Get, Cas, Delete, Guarded, Scan {}
    record Get(String key) implements Op {}
    record Cas(String key, String expected, String value) implements Op {}
    record Delete(String key, String expected) implements Op {}
    record Guarded(GuardedMutation mutation) implements Op {}
    record Scan(String prefix, int limit) implements Op {}

    /** Every operation awaited in turn, reads included: the store answers exactly like the model. */
    @Property(tries = 40)
    void operationSequencesMatchTheModel(@ForAll("ops") @Size(max = 40) List<Op> ops) throws Exception {
        withStore(RocksConfig::defaults, store -> {
            Model model = new Model();
            for (Op op : ops) {
                assertThat(run(store, op)).as(op.toString()).isEqualTo(model.run(op));
            }
            assertThat(dump(store)).isEqualTo(model.dump());
        });
    }

    /**
     * Mutations submitted all at once from one thread arrive in order and are grouped by the
     * writer; their results must still equal the model's one-by-one results.
     */
    @Property(tries = 40)
    void pipelinedMutationsMatchSequentialExecution(@ForAll("mutations") @Size(max = 60) List<Op> ops) throws Exception {
        withStore(RocksConfig::defaults, store -> {
            Model model = new Model();
            List<Future<Boolean>> pending = new ArrayList<>();
            for (Op op : ops) pending.add(submit(store, op));
            for (int i = 0; i < ops.size(); i++) {
                assertThat(await(pending.get(i))).as(ops.get(i).toString()).isEqualTo(model.run(ops.get(i)));
            }
            assertThat(dump(store)).isEqualTo(model.dump());
        });
    }

    // ---- generators ---------------------------------------------------------------------------

    @Provide
    Arbitrary<List<Op>> ops() {
        return Arbitraries.oneOf(mutation(), get(), scan()).list();
    }

    @Provide
    Arbitrary<List<Op>> mutations() {
        return mutation().list();
    }

    private Arbitrary<Op> mutation() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> value = Arbitraries.of(VALUES);
        Arbitrary<String> expected = Arbitraries.of(VALUES).injectNull(0.3);
        Arbitrary<Op> cas = Combinators.combine(key, expected, value).as(Cas::new);
        Arbitrary<Op> delete = Combinators.combine(key, value).as(Delete::new);
        Arbitrary<Op> guarded = Combinators.combine(key, key, value, value, value, Arbitraries.integers().between(0, 2))
                .filter((g, t, ge, te, v, kind) -> !g.equals(t))
                .as((g, t, ge, te, v, kind) -> (Op) new Guarded(switch (kind) {
                    case 0 -> GuardedMutation.create(g, b(ge), t, b(v));
                    case 1 -> GuardedMutation.update(g, b(ge), t, b(te), b(v));
                    default -> GuardedMutation.delete(g, b(ge), t, b(te));
                }));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, cas), net.jqwik.api.Tuple.of(2, delete), net.jqwik.api.Tuple.of(4, guarded));
    }

    private Arbitrary<Op> get() {
        return Arbitraries.of(KEYS).map(Get::new);
    }

    private Arbitrary<Op> scan() {
        return Combinators.combine(Arbitraries.of(PREFIXES), Arbitraries.integers().between(1, 3)).as(Scan::new);
    }

    // ---- the store and the model --------------------------------------------------------------

    private static Future<Boolean> submit(RocksMetaStore store, Op op) {
        if (op instanceof Cas c) return store.cas(c.key(), c.expected() == null ? null : b(c.expected()), b(c.value()));
        if (op instanceof Delete d) return store.delete(d.key(), b(d.expected()));
        if (op instanceof Guarded g) return store.guardedMutate(g.mutation());
        throw new IllegalArgumentException("not a mutation: " + op);
    }

    /** Runs one operation and renders its result comparably: Boolean, Optional<String> or a list of entries. */
    private static Object run(RocksMetaStore store, Op op) throws Exception {
        if (op instanceof Get g) return await(store.get(g.key())).map(RocksMetaStoreProperties::s);
        if (op instanceof Scan s) {
            List<String> out = new ArrayList<>();
            String continuation = null;
            do {
                ScanPage page = await(store.scanPrefix(s.prefix(), continuation, s.limit()));
                assertThat(page.entries().size()).isLessThanOrEqualTo(s.limit());
                for (KeyValue kv : page.entries()) out.add(kv.key() + "=" + s(kv.value()));
                continuation = page.continuation();
            } while (continuation != null);
            return out;
        }
        return await(submit(store, op));
    }

    private static final class Model {
        private final TreeMap<String, String> map = new TreeMap<>(Keys.UTF8_ORDER);

        Object run(Op op) {
            if (op instanceof Get g) return Optional.ofNullable(map.get(g.key()));
            if (op instanceof Scan s) {
                List<String> out = new ArrayList<>();
                map.forEach((k, v) -> { if (k.startsWith(s.prefix())) out.add(k + "=" + v); });
                return out;
            }
            if (op instanceof Cas c) {
                if (!java.util.Objects.equals(map.get(c.key()), c.expected())) return false;
                map.put(c.key(), c.value());
                return true;
            }
            if (op instanceof Delete d) {
                if (!d.expected().equals(map.get(d.key()))) return false;
                map.remove(d.key());
                return true;
            }
            GuardedMutation m = ((Guarded) op).mutation();
            if (!s(m.guardExpected()).equals(map.get(m.guardKey()))) return false;
            String current = map.get(m.targetKey());
            String expected = m.targetExpected() == null ? null : s(m.targetExpected());
            if (!java.util.Objects.equals(current, expected)) return false;
            if (m.kind() == GuardedMutation.Kind.DELETE) map.remove(m.targetKey());
            else map.put(m.targetKey(), s(m.value()));
            return true;
        }

        List<String> dump() {
            List<String> out = new ArrayList<>();
            map.forEach((k, v) -> out.add(k + "=" + v));
            return out;
        }
    }

    private static List<String> dump(RocksMetaStore store) throws Exception {
        return (List<String>) run(store, new Scan("", 1000));
    }

    // ---- plumbing -----------------------------------------------------------------------------

    private interface StoreBody {
        void run(RocksMetaStore store) throws Exception;
    }

    private static void withStore(java.util.function.Function<Path, RocksConfig> config, StoreBody body) throws Exception {
        Path dir = Files.createTempDirectory("rocks-props-");
        RocksMetaStore store = RocksMetaStore.open(config.apply(dir));
        try {
            body.run(store);
        } finally {
            await(store.close());
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
