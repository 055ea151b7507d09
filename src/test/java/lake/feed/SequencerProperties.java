package lake.feed;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sequencer under any interleaving of allocations and settlements (writes finishing in any
 * order, as DynamoDB transactions of one leader commit): the watermark never decreases, never
 * passes an unsettled revision, and reaches the last revision once all are settled.
 */
class SequencerProperties {
    @Provide
    Arbitrary<List<Integer>> steps() {
        return Arbitraries.integers().between(0, 99).list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 300)
    void theWatermarkNeverPassesAnUnsettledRevisionNorGoesBack(@ForAll("steps") List<Integer> steps, @ForAll long seed) {
        long start = Math.floorMod(seed, 1_000_000L);
        Sequencer s = new Sequencer(start);
        Random random = new Random(seed);
        List<Long> open = new ArrayList<>();
        long lastAllocated = start;
        long watermark = s.watermark();
        assertThat(watermark).isEqualTo(start);
        for (int step : steps) {
            if (step < 55 || open.isEmpty()) {
                long r = s.allocate();
                assertThat(r).as("strictly increasing, starting above the start").isEqualTo(lastAllocated + 1);
                lastAllocated = r;
                open.add(r);
            } else {
                long r = open.remove(random.nextInt(open.size()));
                long after = s.settle(r);
                assertThat(after).as("never decreases").isGreaterThanOrEqualTo(watermark);
                watermark = after;
            }
            long min = open.stream().mapToLong(Long::longValue).min().orElse(lastAllocated + 1);
            assertThat(s.watermark()).as("below every unsettled revision").isLessThan(min);
            if (open.isEmpty()) assertThat(s.watermark()).isEqualTo(lastAllocated);
        }
        for (long r : List.copyOf(open)) watermark = s.settle(r);
        assertThat(s.watermark()).isEqualTo(lastAllocated).isEqualTo(s.last());
    }

    /**
     * Runs leave in revision order whatever order writes settle in: each starts where the last
     * ended, together they hold exactly the records settled with one, in order, and {@code last}
     * is the newest record at or below each run's end (or the start).
     */
    @Property(tries = 300)
    void runsLeaveInRevisionOrderWithExactlyTheSettledRecords(@ForAll("steps") List<Integer> steps, @ForAll long seed) {
        long start = Math.floorMod(seed, 1_000_000L);
        List<Published> runs = new ArrayList<>();
        Sequencer s = new Sequencer(start, 7, runs::add);
        Random random = new Random(seed);
        List<Long> open = new ArrayList<>();
        List<Long> withRecords = new ArrayList<>();
        for (int step : steps) {
            if (step < 55 || open.isEmpty()) {
                open.add(s.allocate());
            } else {
                long r = open.remove(random.nextInt(open.size()));
                // Applied (a record), refused (none), or known only to the store.
                int fate = random.nextInt(10);
                if (fate < 6) {
                    s.settle(r, ChangeRecord.of(r, 7, 0, List.of(new ChangeRecord.Change("k" + r, new byte[] {1})), null));
                    withRecords.add(r);
                } else if (fate < 9) {
                    s.settle(r, null);
                } else {
                    s.settleFromStore(r);
                }
            }
        }
        for (long r : List.copyOf(open)) s.settle(r, null);
        long at = start;
        long last = start;
        List<Long> published = new ArrayList<>();
        for (Published p : runs) {
            assertThat(p.epoch()).isEqualTo(7);
            assertThat(p.from()).as("each run starts where the last ended").isEqualTo(at);
            assertThat(p.to()).isGreaterThan(p.from());
            if (p.complete()) p.records().forEach(r -> published.add(r.revision()));
            else withRecords.removeIf(r -> r > p.from() && r <= p.to());
            if (p.complete() && !p.records().isEmpty()) last = p.records().get(p.records().size() - 1).revision();
            assertThat(p.last()).as("the newest record at or below the run's end").isGreaterThanOrEqualTo(last).isLessThanOrEqualTo(p.to());
            last = p.last();
            at = p.to();
        }
        assertThat(at).isEqualTo(s.last());
        withRecords.sort(Long::compare);
        assertThat(published).as("every record, once, in order").isEqualTo(withRecords);
    }

    /**
     * Writes that conflict — one writes a key the other writes or checks — are sent in revision
     * order, each only after every earlier conflicting one has settled, so they commit in revision
     * order; checks of one key, and writes on disjoint keys, wait for none; once everything settles
     * nothing is left waiting.
     */
    @Property(tries = 300)
    void aWriteIsSentOnlyAfterEveryEarlierWriteOnItsKeysSettled(@ForAll("steps") List<Integer> steps, @ForAll long seed) {
        Sequencer s = new Sequencer(Math.floorMod(seed, 1_000_000L));
        Random random = new Random(seed);
        java.util.Map<Long, java.util.Set<String>> writesOf = new java.util.HashMap<>();
        java.util.Map<Long, java.util.Set<String>> checksOf = new java.util.HashMap<>();
        java.util.Set<Long> settled = new java.util.HashSet<>();
        List<Long> sent = new ArrayList<>();
        List<Long> unsettledSent = new ArrayList<>();
        java.util.Set<Long> held = new java.util.LinkedHashSet<>();
        java.util.Map<Long, Object> waitOf = new java.util.HashMap<>();
        java.util.function.LongConsumer send = r -> {
            held.remove(r);
            for (long e : writesOf.keySet()) {
                if (e >= r) continue;
                boolean conflict = !java.util.Collections.disjoint(writesOf.get(e), writesOf.get(r))
                        || !java.util.Collections.disjoint(writesOf.get(e), checksOf.get(r))
                        || !java.util.Collections.disjoint(checksOf.get(e), writesOf.get(r));
                if (conflict) assertThat(settled).as("revision %d sent before %d, which conflicts with it, settled", r, e).contains(e);
            }
            assertThat(sent).as("sent once").doesNotContain(r);
            sent.add(r);
            unsettledSent.add(r);
        };
        for (int step : steps) {
            if (step >= 90 && !held.isEmpty()) {
                // A held write gives up at its deadline: settled unsent, it keeps its place.
                long r = new ArrayList<>(held).get(random.nextInt(held.size()));
                assertThat(s.cancelWait(r, waitOf.get(r))).isTrue();
                held.remove(r);
                settled.add(r);
                s.settle(r);
            } else if (step < 55 || unsettledSent.isEmpty()) {
                java.util.Set<String> writes = new java.util.HashSet<>();
                java.util.Set<String> checks = new java.util.HashSet<>();
                for (int i = random.nextInt(3); i > 0; i--) writes.add("k" + random.nextInt(4));
                for (int i = random.nextInt(3); i > 0; i--) checks.add("k" + random.nextInt(4));
                checks.removeAll(writes);
                long r = s.allocate(writes, checks);
                writesOf.put(r, writes);
                checksOf.put(r, checks);
                java.util.function.Consumer<Boolean> then = go -> {
                    assertThat(go).isTrue();
                    send.accept(r);
                };
                waitOf.put(r, then);
                if (s.whenOrdered(r, then)) {
                    send.accept(r);
                } else {
                    held.add(r);
                }
            } else {
                long r = unsettledSent.remove(random.nextInt(unsettledSent.size()));
                settled.add(r);
                s.settle(r);
            }
        }
        while (!unsettledSent.isEmpty()) {
            long r = unsettledSent.remove(0);
            settled.add(r);
            s.settle(r);
        }
        assertThat(held).as("nothing left waiting").isEmpty();
        assertThat(sent.size() + settled.stream().filter(r -> !sent.contains(r)).count())
                .as("every write was sent in the end, or gave up").isEqualTo(writesOf.size());
        assertThat(s.waiting()).isZero();
        assertThat(s.watermark()).isEqualTo(s.last());
    }

    /** Checks of one key wait for no other check, but for an earlier write of it; a write waits for earlier checks. */
    @Property(tries = 10)
    void checksOfOneKeyOverlapAndAWriteWaitsForThem(@ForAll long seed) {
        Sequencer s = new Sequencer(Math.floorMod(seed, 1_000L));
        long check1 = s.allocate(List.of("a"), List.of("catalog"));
        long check2 = s.allocate(List.of("b"), List.of("catalog"));
        assertThat(s.whenOrdered(check1, go -> { })).isTrue();
        assertThat(s.whenOrdered(check2, go -> { })).as("two checks of one key do not conflict").isTrue();
        List<Boolean> write = new ArrayList<>();
        long writer = s.allocate(List.of("catalog"), List.of());
        assertThat(s.whenOrdered(writer, write::add)).as("a write waits for the earlier checks").isFalse();
        List<Boolean> check3 = new ArrayList<>();
        long later = s.allocate(List.of("c"), List.of("catalog"));
        assertThat(s.whenOrdered(later, check3::add)).as("a check waits for an earlier write").isFalse();
        s.settle(check1);
        assertThat(write).isEmpty();
        s.settle(check2);
        assertThat(write).containsExactly(true);
        assertThat(check3).isEmpty();
        s.settle(writer);
        assertThat(check3).containsExactly(true);
    }

    /** A revision that will never settle: every write held behind it is released unsent, and so is every later one. */
    @Property(tries = 100)
    void anAbandonedEpochReleasesItsHeldWritesUnsent(@ForAll long seed) {
        Sequencer s = new Sequencer(0);
        long stuck = s.allocate(List.of("k"), List.of());
        assertThat(s.whenOrdered(stuck, go -> { })).isTrue();
        List<Boolean> answers = new ArrayList<>();
        int held = 1 + Math.floorMod(seed, 5);
        for (int i = 0; i < held; i++) assertThat(s.whenOrdered(s.allocate(List.of("k"), List.of()), answers::add)).isFalse();
        assertThat(s.waiting()).isEqualTo(held);
        s.abandon();
        assertThat(answers).hasSize(held).containsOnly(false);
        assertThat(s.waiting()).isZero();
        List<Boolean> after = new ArrayList<>();
        assertThat(s.whenOrdered(s.allocate(List.of("other"), List.of()), after::add)).isFalse();
        assertThat(after).containsExactly(false);
    }

    /** The cap on held writes refuses only a write that would wait; one that would not goes on. */
    @Property(tries = 10)
    void theCapOnHeldWritesRefusesOnlyWritesThatWouldWait(@ForAll long seed) {
        Sequencer s = new Sequencer(Math.floorMod(seed, 1_000L));
        long first = s.allocate(List.of("hot"), List.of());
        assertThat(s.whenOrdered(first, go -> { })).isTrue();
        for (int i = 0; i < 2; i++) assertThat(s.whenOrdered(s.allocate(List.of("hot"), List.of()), go -> { })).isFalse();
        long third = s.allocate(List.of("hot"), List.of());
        long elsewhere = s.allocate(List.of("cold"), List.of());
        assertThat(s.heldOver(third, 2)).as("two held already: the third would wait, refused").isTrue();
        assertThat(s.heldOver(elsewhere, 2)).as("a write that would not wait goes on").isFalse();
        assertThat(s.heldOver(third, 3)).isFalse();
    }

    /** One store transaction on its way in the model below: a revision's write, or its void record. */
    private record Sent(long revision, long[] checks, boolean isVoid) {}

    /**
     * Writes sent at once with checks for their predecessors' records ({@link Sequencer#sendWithChecks}),
     * or held until those are all on their way ({@link Sequencer#whenSendable}), reaching a model
     * store in any order, refused when a checked record is missing (then waiting
     * and sent again), refused on their own conditions, retried after a renewal, their answers lost
     * (settled by void records, written only after the predecessors are released) or given up
     * while waiting: conflicting writes that apply always commit in revision order, and once
     * everything settles nothing is left waiting.
     */
    @Property(tries = 500)
    void writesSentWithChecksCommitInRevisionOrder(@ForAll("steps") List<Integer> steps, @ForAll long seed) {
        Sequencer s = new Sequencer(Math.floorMod(seed, 1_000_000L));
        Random random = new Random(seed);
        java.util.Map<Long, java.util.Set<String>> writesOf = new java.util.HashMap<>();
        java.util.Map<Long, java.util.Set<String>> checksOf = new java.util.HashMap<>();
        java.util.Set<Long> records = new java.util.HashSet<>();
        List<Long> committed = new ArrayList<>();
        List<Sent> toStore = new ArrayList<>();
        // Answers on their way back, and which of them say a checked record was missing.
        List<Long> answers = new ArrayList<>();
        java.util.Set<Long> resend = new java.util.HashSet<>();
        java.util.Set<Long> lost = new java.util.HashSet<>();
        java.util.Set<Long> waiting = new java.util.LinkedHashSet<>();
        java.util.Set<Long> settled = new java.util.HashSet<>();
        // Released by the sequencer (under its lock), handed to the store once its call returned.
        List<Sent> released = new ArrayList<>();
        Runnable hand = () -> {
            while (!released.isEmpty()) {
                Sent t = released.remove(0);
                toStore.add(t);
                s.handed(t.revision());
            }
        };
        // Each wait's continuation (its deadline's token), and those of waits already over.
        java.util.Map<Long, Object> currentWait = new java.util.HashMap<>();
        List<java.util.Map.Entry<Long, Object>> pastWaits = new ArrayList<>();
        java.util.function.BiConsumer<Long, Object> waitOver = (r, token) -> {
            currentWait.remove(r, token);
            pastWaits.add(java.util.Map.entry(r, token));
        };
        java.util.function.BiConsumer<Long, Boolean> sendAfterWait = (r, isVoid) -> {
            Object[] self = new Object[1];
            java.util.function.Consumer<Boolean> then = go -> {
                waiting.remove(r);
                waitOver.accept(r, self[0]);
                if (go) released.add(new Sent(r, new long[0], isVoid));
            };
            self[0] = then;
            if (s.whenOrdered(r, then)) {
                released.add(new Sent(r, new long[0], isVoid));
                pastWaits.add(java.util.Map.entry(r, then));
            } else {
                waiting.add(r);
                if (!isVoid) currentWait.put(r, then);
            }
            hand.run();
        };
        java.util.function.Consumer<Long> settle = r -> {
            settled.add(r);
            s.settle(r);
            hand.run();
        };
        int steps2 = steps.size();
        for (int i = 0; i < steps2 + 10_000; i++) {
            boolean draining = i >= steps2;
            int step = draining ? 40 + random.nextInt(60) : steps.get(i);
            if (draining && toStore.isEmpty() && answers.isEmpty() && waiting.isEmpty()) break;
            if (step < 40 && !draining) {
                java.util.Set<String> writes = new java.util.HashSet<>();
                java.util.Set<String> checks = new java.util.HashSet<>();
                for (int k = 1 + random.nextInt(2); k > 0; k--) writes.add("k" + random.nextInt(3));
                for (int k = random.nextInt(2); k > 0; k--) checks.add("k" + random.nextInt(3));
                checks.removeAll(writes);
                long r = s.allocate(writes, checks);
                writesOf.put(r, writes);
                checksOf.put(r, checks);
                int maxChecks = 1 + random.nextInt(4);
                if (random.nextBoolean()) {
                    // Sent with checks now, or held until everything before it is on its way.
                    Object[] self = new Object[1];
                    java.util.function.Consumer<long[]> then = found -> {
                        waiting.remove(r);
                        waitOver.accept(r, self[0]);
                        if (found != null) released.add(new Sent(r, found, false));
                    };
                    self[0] = then;
                    long[] with = s.whenSendable(r, maxChecks, then);
                    if (with != null) {
                        released.add(new Sent(r, with, false));
                        pastWaits.add(java.util.Map.entry(r, then));
                    } else {
                        waiting.add(r);
                        currentWait.put(r, then);
                    }
                    hand.run();
                } else {
                    long[] with = s.sendWithChecks(r, maxChecks);
                    if (with != null) {
                        released.add(new Sent(r, with, false));
                        hand.run();
                    } else {
                        sendAfterWait.accept(r, false);
                    }
                }
            } else if (step < 75 && !toStore.isEmpty()) {
                // The store takes any transaction on its way: arrival order is not revision order.
                Sent t = toStore.remove(random.nextInt(toStore.size()));
                long r = t.revision();
                if (t.isVoid()) {
                    // Applied (the write never can) or refused (the write's record is there): settled either way.
                    records.add(r);
                    answers.add(r);
                    continue;
                }
                if (records.contains(r)) continue; // a void record got there first: refused, and nobody listens
                boolean missing = java.util.Arrays.stream(t.checks()).anyMatch(c -> !records.contains(c));
                int fate = random.nextInt(20);
                boolean applied = fate >= 4 && !missing;
                if (applied) {
                    records.add(r);
                    committed.add(r);
                }
                if (lost.contains(r)) continue;
                if (random.nextInt(12) == 0) {
                    // The answer is lost: a void record settles it, once the predecessors are released.
                    lost.add(r);
                    sendAfterWait.accept(r, true);
                } else if (fate == 0 && !applied) {
                    released.add(t); // refused on its guard (a renewal in flight): sent again as it was
                    hand.run();
                } else if (fate >= 4 && missing) {
                    resend.add(r); // a checked record was missing: wait, then send again without checks
                    answers.add(r);
                } else {
                    answers.add(r);
                }
            } else if (step < 95 && !answers.isEmpty()) {
                long r = answers.remove(random.nextInt(answers.size()));
                if (resend.remove(r)) sendAfterWait.accept(r, false);
                else settle.accept(r);
            } else if (!draining && !pastWaits.isEmpty() && random.nextBoolean()) {
                // The deadline of a wait already over fires late: it must leave any later wait alone.
                var stale = pastWaits.get(random.nextInt(pastWaits.size()));
                assertThat(s.cancelWait(stale.getKey(), stale.getValue())).as("a finished wait's deadline cancels nothing").isFalse();
            } else if (!currentWait.isEmpty() && !draining) {
                long r = new ArrayList<>(currentWait.keySet()).get(random.nextInt(currentWait.size()));
                boolean withdrawn = s.cancelWait(r, currentWait.get(r));
                assertThat(withdrawn).as("a wait still on is withdrawn by its own deadline").isTrue();
                if (withdrawn) {
                    // Gave up at its deadline, unsent this time: a refused attempt wrote nothing.
                    waiting.remove(r);
                    waitOver.accept(r, currentWait.get(r));
                    settle.accept(r);
                }
            }
        }
        for (int b = 0; b < committed.size(); b++) {
            for (int a = 0; a < b; a++) {
                long first = committed.get(a);
                long second = committed.get(b);
                boolean conflict = !java.util.Collections.disjoint(writesOf.get(first), writesOf.get(second))
                        || !java.util.Collections.disjoint(writesOf.get(first), checksOf.get(second))
                        || !java.util.Collections.disjoint(checksOf.get(first), writesOf.get(second));
                if (conflict) assertThat(first).as("revision %d committed after %d, which conflicts with it", first, second).isLessThan(second);
            }
        }
        assertThat(waiting).as("nothing left waiting").isEmpty();
        assertThat(settled).as("every revision settled").hasSize(writesOf.size());
        assertThat(s.waiting()).isZero();
        assertThat(s.watermark()).isEqualTo(s.last());
    }

    /**
     * Review of the fourth part: a write refused for a missing record waits a second time; the
     * first wait's deadline, firing during the second, must not withdraw it (it would never be
     * released, and its revision never settle).
     */
    @Property(tries = 10)
    void anEarlierWaitsDeadlineLeavesALaterWaitAlone(@ForAll long seed) {
        Sequencer s = new Sequencer(Math.floorMod(seed, 1_000L));
        long first = s.allocate(List.of("k"), List.of());
        long second = s.allocate(List.of("k"), List.of());
        List<long[]> releases = new ArrayList<>();
        java.util.function.Consumer<long[]> firstWait = releases::add;
        assertThat(s.whenSendable(second, 8, firstWait)).as("its predecessor not yet handed: it waits").isNull();
        s.handed(first);
        assertThat(releases).hasSize(1);
        assertThat(releases.get(0)).containsExactly(first);
        s.handed(second);
        // Refused at the store (the earlier record missing): it waits again, for the settlement.
        List<Boolean> again = new ArrayList<>();
        java.util.function.Consumer<Boolean> secondWait = again::add;
        assertThat(s.whenOrdered(second, secondWait)).isFalse();
        assertThat(s.cancelWait(second, firstWait)).as("the first wait's deadline, late").isFalse();
        assertThat(s.waiting()).isEqualTo(1);
        s.settle(first);
        assertThat(again).containsExactly(true);
        s.settle(second);
        assertThat(s.watermark()).isEqualTo(second);
    }
}
