package lake.meta.rocks;

import io.vertx.core.Context;

/**
 * The invariant that RocksDB is never called on a Vert.x event-loop thread: every native call
 * blocks (a synced write waits for fsync), and a blocked event loop stalls every verticle it
 * serves. Violations are bugs, so they fail loudly instead of degrading.
 */
final class EventLoops {
    private EventLoops() {}

    /** @throws IllegalStateException when the calling thread is a Vert.x event loop */
    static void requireOffEventLoop(String what) {
        if (Context.isOnEventLoopThread()) {
            throw new IllegalStateException(what + " calls RocksDB and must not run on event loop thread "
                    + Thread.currentThread().getName());
        }
    }
}
