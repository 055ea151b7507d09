package lake.meta.rocks;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import lake.meta.GuardedMutation;
import lake.meta.Transaction;
import lake.meta.TransactionOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static lake.meta.rocks.RocksAwait.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Group commit keeps each mutation's own checks, in arrival order, against the state including the
 * group's earlier writes; and it really shares fsyncs. Mutations submitted from one thread without
 * waiting arrive in submission order, so their results must equal a one-by-one execution.
 */
class RocksGroupCommitTest {
    private static final String GUARD = "election/leader";
    private static final byte[] LEASE = b("lease-1");

    @TempDir
    Path dir;
    private RocksMetaStore store;

    @AfterEach
    void close() throws Exception {
        if (store != null) await(store.close());
    }

    @Test
    void laterMutationInAGroupSeesAnEarlierOnesWrite() throws Exception {
        store = RocksMetaStore.open(RocksConfig.defaults(dir));
        assertThat(await(store.cas(GUARD, null, LEASE))).isTrue();
        RocksStats before = store.stats();

        // A chain on ONE key: every mutation depends on the write of the one before it, so any
        // group of two or more holds a dependent pair. Submitted without waiting, they queue up
        // while the writer fsyncs, and each must still succeed exactly as if run alone.
        int rounds = 300;
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            byte[] v1 = b("v1-" + i);
            byte[] v2 = b("v2-" + i);
            results.add(store.guardedMutate(GuardedMutation.create(GUARD, LEASE, "tbl/k", v1)));
            results.add(store.guardedMutate(GuardedMutation.update(GUARD, LEASE, "tbl/k", v1, v2)));
            results.add(store.cas("tbl/k", v2, b("v3-" + i)));
            results.add(store.delete("tbl/k", b("v3-" + i)));
        }
        for (Future<Boolean> f : results) assertThat(await(f)).isTrue();
        assertThat(await(store.get("tbl/k"))).isEmpty();

        RocksStats after = store.stats();
        long mutations = after.mutations() - before.mutations();
        long groups = after.groups() - before.groups();
        assertThat(mutations).isEqualTo(4L * rounds);
        assertThat(groups).as("dependent mutations shared groups").isLessThan(mutations);
        assertThat(after.syncs() - before.syncs()).isEqualTo(groups);
    }

    @Test
    void racingMutationsInAGroupResolveInArrivalOrder() throws Exception {
        store = RocksMetaStore.open(RocksConfig.defaults(dir));
        assertThat(await(store.cas("k", null, b("start")))).isTrue();
        List<Future<Boolean>> racers = new ArrayList<>();
        for (int i = 0; i < 64; i++) racers.add(store.cas("k", b("start"), b("r" + i)));
        // A guarded create that depends on the first racer's write, and one that a stale guard blocks.
        racers.add(store.guardedMutate(GuardedMutation.create("k", b("r0"), "t/after-r0", b("x"))));
        racers.add(store.guardedMutate(GuardedMutation.create("k", b("start"), "t/stale", b("x"))));

        List<Boolean> results = new ArrayList<>();
        for (Future<Boolean> f : racers) results.add(await(f));
        List<Boolean> sequential = new ArrayList<>();
        sequential.add(true);
        for (int i = 1; i < 64; i++) sequential.add(false);
        sequential.add(true);
        sequential.add(false);
        assertThat(results).containsExactlyElementsOf(sequential);
        assertThat(await(store.get("k"))).hasValueSatisfying(v -> assertThat(v).containsExactly(b("r0")));
        assertThat(await(store.get("t/after-r0"))).isPresent();
        assertThat(await(store.get("t/stale"))).isEmpty();
    }

    @Test
    void transactionInAGroupSeesEarlierWritesAndLaterMembersSeeItsWrites() throws Exception {
        store = RocksMetaStore.open(RocksConfig.defaults(dir));
        assertThat(await(store.cas(GUARD, null, LEASE))).isTrue();
        RocksStats before = store.stats();
        // Submitted without waiting, so they share groups; each result must equal one-by-one execution.
        int rounds = 100;
        List<Future<Boolean>> singles = new ArrayList<>();
        List<Future<TransactionOutcome>> transactions = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            String a = "a/" + i;
            String b = "b/" + i;
            singles.add(store.cas(a, null, b("a1")));
            transactions.add(store.transact(Transaction.guarded(GUARD, LEASE, List.of(
                    Transaction.Op.update(a, b("a1"), b("a2")),   // needs the cas just before it
                    Transaction.Op.create(b, b("b1")),
                    Transaction.Op.checkAbsent("never/" + i)))));
            transactions.add(store.transact(Transaction.of(List.of(
                    Transaction.Op.update(a, b("a1"), b("lost")),  // the transaction before already moved it
                    Transaction.Op.create(b, b("lost"))))));
            singles.add(store.delete(b, b("b1")));                // needs the transaction's write
            singles.add(store.guardedMutate(GuardedMutation.update(GUARD, LEASE, a, b("a2"), b("a3"))));
        }
        for (Future<Boolean> f : singles) assertThat(await(f)).isTrue();
        for (int i = 0; i < transactions.size(); i += 2) {
            assertThat(await(transactions.get(i))).isEqualTo(TransactionOutcome.APPLIED);
            assertThat(await(transactions.get(i + 1))).isEqualTo(TransactionOutcome.notApplied(List.of(0, 1), false));
        }
        for (int i = 0; i < rounds; i++) {
            assertThat(await(store.get("a/" + i))).hasValueSatisfying(v -> assertThat(v).containsExactly(b("a3")));
            assertThat(await(store.get("b/" + i))).isEmpty();
        }
        RocksStats after = store.stats();
        assertThat(after.mutations() - before.mutations()).isEqualTo(5L * rounds);
        assertThat(after.groups() - before.groups()).as("transactions shared groups").isLessThan(5L * rounds);
    }

    @Test
    void concurrentCallersShareFsyncs() throws Exception {
        store = RocksMetaStore.open(RocksConfig.defaults(dir));
        assertThat(await(store.cas(GUARD, null, LEASE))).isTrue();
        Vertx vertx = Vertx.vertx();
        try {
            RocksStats before = store.stats();
            int callers = 32;
            int perCaller = 20;
            List<Future<Void>> tasks = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                int caller = c;
                // Each caller is its own worker thread, waiting for each acknowledgement in turn.
                tasks.add(vertx.executeBlocking(() -> {
                    for (int i = 0; i < perCaller; i++) {
                        if (!await(store.guardedMutate(GuardedMutation.create(GUARD, LEASE, "t/" + caller + "/" + i, b("v"))))) {
                            throw new AssertionError("create " + caller + "/" + i + " refused");
                        }
                    }
                    return null;
                }, false));
            }
            for (Future<Void> t : tasks) await(t);
            RocksStats after = store.stats();
            long mutations = after.mutations() - before.mutations();
            assertThat(mutations).isEqualTo((long) callers * perCaller);
            assertThat(after.syncs() - before.syncs()).as("fsyncs for %d concurrent mutations", mutations)
                    .isLessThan(mutations);
        } finally {
            await(vertx.close());
        }
    }

    @Test
    void withoutGroupCommitEveryMutationIsItsOwnGroup() throws Exception {
        store = RocksMetaStore.open(RocksConfig.defaults(dir).withGroupCommit(false));
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < 50; i++) results.add(store.cas("k" + i, null, b("v")));
        for (Future<Boolean> f : results) assertThat(await(f)).isTrue();
        assertThat(store.stats()).isEqualTo(new RocksStats(50, 50, 50));
    }

    @Test
    void groupWhoseConditionsAllFailWritesNothing() throws Exception {
        store = RocksMetaStore.open(RocksConfig.defaults(dir));
        assertThat(await(store.cas("k", null, b("v")))).isTrue();
        RocksStats before = store.stats();
        assertThat(await(store.cas("k", null, b("w")))).isFalse();
        RocksStats after = store.stats();
        assertThat(after.syncs()).as("a refused mutation needs no fsync").isEqualTo(before.syncs());
        assertThat(after.mutations()).isEqualTo(before.mutations() + 1);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
