package lake.client;

import io.vertx.core.Future;
import io.vertx.core.streams.ReadStream;
import lake.client.model.MetasrvException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Walking pages that arrive at once (as the blocking transport delivers them, on the caller's
 * thread): the walk must not nest one call per page, or a long listing overflows the stack.
 */
class PagesTest {
    static final int PAGES = 200_000;

    /** Page i holds the number i; its continuation names the next page until the last. */
    static Pages<Integer> immediatePages() {
        return new Pages<>(c -> Future.succeededFuture(c == null ? 0 : Integer.parseInt(c)),
                p -> p + 1 < PAGES ? Integer.toString(p + 1) : null);
    }

    @Test
    void collectWalksManyImmediatePagesWithAFlatStack() {
        Future<List<Integer>> all = immediatePages().collect(List::of);
        assertThat(all.succeeded()).as("%s", all.cause()).isTrue();
        assertThat(all.result()).hasSize(PAGES);
        assertThat(all.result().get(PAGES - 1)).isEqualTo(PAGES - 1);
    }

    @Test
    void streamWalksManyImmediatePagesWithAFlatStack() {
        ReadStream<Integer> stream = immediatePages().stream();
        AtomicInteger seen = new AtomicInteger();
        AtomicBoolean ended = new AtomicBoolean();
        List<Throwable> failures = new ArrayList<>();
        stream.exceptionHandler(failures::add).endHandler(v -> ended.set(true)).handler(p -> seen.incrementAndGet());
        assertThat(failures).isEmpty();
        assertThat(seen.get()).isEqualTo(PAGES);
        assertThat(ended).isTrue();
    }

    @Test
    void streamFetchesOnlyWhatIsAskedFor() {
        ReadStream<Integer> stream = immediatePages().stream().pause();
        List<Integer> seen = new ArrayList<>();
        stream.handler(seen::add);
        assertThat(seen).isEmpty();
        stream.fetch(3);
        assertThat(seen).containsExactly(0, 1, 2);
    }

    @Test
    void aFailedPageEndsTheWalkWithItsFailure() {
        AtomicInteger calls = new AtomicInteger();
        Pages<Integer> failing = new Pages<>(c -> calls.incrementAndGet() == 3
                ? Future.failedFuture(new MetasrvException.BackendUnavailable("test")) : Future.succeededFuture(calls.get()),
                p -> "next");
        Future<List<Integer>> all = failing.collect(List::of);
        assertThat(all.failed()).isTrue();
        assertThat(all.cause()).isInstanceOf(MetasrvException.BackendUnavailable.class);
        assertThat(calls.get()).isEqualTo(3);
    }
}
